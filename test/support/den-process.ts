// The real `den` processes of a test: `den <args>` run to completion as a person runs it, and the
// long-running roles (manager, server, gateway) started through bin/den.js with a clean
// environment, waited on until ready, stopped gracefully; and the polling helpers tests share.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isNotFound } from '../../kube/errors.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DEN_BIN = join(REPO_ROOT, 'bin/den.js');
const READY_TIMEOUT_MS = 45_000;
const STOP_TIMEOUT_MS = 8_000;
/** Lines of each process's stderr kept for failure messages. */
const STDERR_LINES = 200;

export type Role = 'manager' | 'server' | 'gateway';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `den <args>` (through bin/den.js, as a person would) to completion, with no DEN_* or KUBECONFIG from the test runner. */
export function runDen(args: string[], opts: { stdin?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
  return runCommand(process.execPath, [DEN_BIN, ...args], { ...opts, env: cleanEnv() });
}

/** Runs a program to completion, feeding `stdin`, collecting its output; kills it after `timeoutMs`. */
export function runCommand(file: string, args: string[], opts: { stdin?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CommandResult> {
  return new Promise((resolvePromise, reject) => {
    // Without input the child reads /dev/null: an empty pipe that a child exiting at once never
    // reads would fail the write with EPIPE now and then.
    const child = spawn(file, args, { cwd: REPO_ROOT, env: opts.env ?? process.env, stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.stdin?.on('error', (err) => (stderr += `\n[stdin: ${err.message}]`));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
    if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  });
}

/** Polls `probe` until it answers something other than undefined/false. */
export async function eventually<R>(probe: () => R, what: string, timeoutMs: number, intervalMs = 100): Promise<Exclude<Awaited<R>, undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as Exclude<Awaited<R>, undefined | false>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError ? ` (last error: ${(lastError as Error).message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Whether `lookup` (a get) answers 404: true for 404, false when found, any other error thrown. */
export async function gone(lookup: Promise<unknown>): Promise<boolean> {
  try {
    await lookup;
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

/** One `den <role>` child process and what it said on stderr. */
export class DenProcess {
  /** The last STDERR_LINES lines, for failure messages. */
  readonly stderr: string[] = [];
  /** Everything it wrote on stderr (its log), line by line. */
  readonly log: string[] = [];
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(
    readonly role: Role,
    args: string[],
    readonly healthUrl: string,
    /** Which replica, in failure messages (`server-1`). */
    readonly name: string = role,
  ) {
    this.child = spawn(process.execPath, [DEN_BIN, role, ...args], { cwd: REPO_ROOT, env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    let partial = '';
    this.child.stderr!.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      this.stderr.push(...lines);
      this.log.push(...lines);
      if (this.stderr.length > STDERR_LINES) this.stderr.splice(0, this.stderr.length - STDERR_LINES);
    });
    this.exited = new Promise((ok) => {
      this.child.on('error', (err) => {
        this.stderr.push(`[spawn failed: ${err.message}]`);
        ok(null);
      });
      this.child.on('exit', (code) => ok(code));
    });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves once `/readyz` answers 200; rejects with the process's stderr when it exits first. */
  async ready(timeoutMs = READY_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`den ${this.role} exited with code ${this.child.exitCode} before it was ready:\n${this.tail()}`);
      const ok = await fetch(`${this.healthUrl}/readyz`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error(`den ${this.role} was not ready after ${timeoutMs} ms:\n${this.tail()}`);
  }

  /** Sends `signal` (SIGKILL: gone at once; SIGSTOP: frozen, its sockets open; SIGCONT: thawed). */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGTERM (graceful), then SIGKILL if it has not exited in time; answers the exit code. */
  async stop(): Promise<number | null> {
    if (this.running) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      const code = await this.exited;
      clearTimeout(timer);
      return code;
    }
    return this.exited;
  }

  tail(lines = 40): string {
    return this.stderr.slice(-lines).map((l) => `  [${this.name}] ${l}`).join('\n');
  }
}

/** The test runner's environment without anything that would point a child at another cluster. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DEN_') && k !== 'KUBECONFIG' && k !== 'KUBERNETES_SERVICE_HOST') env[k] = v;
  return env;
}
