// One real `den <role>` process for a bench: started through bin/den.js on the project's Node
// with its inspector on a loopback port, ready once /readyz answers 200, its memory read after
// a full collection (inspector.ts) and its resident and peak memory from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Inspector, inspectorUrl, type Memory } from './inspector.js';
import { MALLOC_ENV, MANAGER_NODE_FLAGS, managerNodeOptions } from '../../infra/install/node-options.js';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';

const DEN = fileURLToPath(new URL('../../bin/den.js', import.meta.url));
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

/**
 * The environment `den manager` and `den server` run with in the chart's containers, beyond
 * NODE_OPTIONS (which the benches pass as flags): glibc's malloc settings, unless the caller's
 * environment sets them.
 */
export function chartEnvironment(): NodeJS.ProcessEnv {
  return { ...MALLOC_ENV, ...process.env };
}

/** The malloc settings the benches run `den manager` with, for their tables: `MALLOC_ARENA_MAX=2, …`. */
export function mallocSettings(): string {
  const env = chartEnvironment();
  return Object.keys(MALLOC_ENV).map((name) => `${name}=${env[name] ?? '(unset)'}`).join(', ');
}

/** The V8 flags of `den manager`'s container at the default memory limit: its command line's, then its NODE_OPTIONS. */
export function chartManagerNodeFlags(): string[] {
  return [...MANAGER_NODE_FLAGS, ...managerNodeOptions(DEFAULT_SETTINGS.manager.resources.limits.memory).split(' ')];
}

export interface ProcessMemory extends Memory {
  /** KiB: the most the process has held resident since it started (VmHWM). */
  peakRssKiB: number;
}

export class BenchProcess {
  private stderr = '';
  /** The inspector's address, kept apart: the log's tail soon scrolls past it. */
  private inspector: string | undefined;

  private constructor(
    readonly role: string,
    private readonly child: ChildProcess,
  ) {
    child.stderr!.on('data', (c: Buffer) => {
      this.stderr = (this.stderr + c.toString()).slice(-64_000);
      this.inspector ??= inspectorUrl(this.stderr);
    });
  }

  /** Starts `den <role> <args>` (with `nodeFlags` for its Node, in `env`) and resolves once it answers ready on `healthPort`. */
  static async start(role: string, args: string[], healthPort: number, nodeFlags: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<BenchProcess> {
    const child = spawn(process.execPath, [...nodeFlags, '--inspect=127.0.0.1:0', DEN, role, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env });
    const den = new BenchProcess(role, child);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while ((await fetch(`http://127.0.0.1:${healthPort}/readyz`).then((r) => r.status, () => 0)) !== 200) {
      if (Date.now() > deadline || child.exitCode !== null) {
        await den.stop();
        throw new Error(`den ${role} did not become ready: ${den.stderr.slice(-1500)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return den;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Resident KiB now, without a collection first. */
  async rssKiB(): Promise<number> {
    return Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${this.pid}/status`, 'utf8'))![1]);
  }

  /** Memory after a full collection, and the peak resident size so far. */
  async memory(): Promise<ProcessMemory> {
    const url = this.inspector;
    if (!url) throw new Error(`den ${this.role} printed no inspector address`);
    const inspector = await Inspector.connect(url);
    try {
      const memory = await inspector.memory();
      const status = await readFile(`/proc/${this.pid}/status`, 'utf8');
      return { ...memory, peakRssKiB: Number(/VmHWM:\s+(\d+)/.exec(status)![1]) };
    } finally {
      inspector.close();
    }
  }

  /** SIGTERM, then SIGKILL when it has not exited in time. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, STOP_TIMEOUT_MS))]);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
