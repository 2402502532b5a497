// den ssh, den code and den forward: the system's own OpenSSH through the gateway, so there
// is nothing new to trust. A stopped workspace is started first, with a progress line until
// it is Running.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { join } from 'node:path';
import type { DenApi, Json } from './api.js';
import { CONTEXT_OPTIONS, parse, usage } from './args.js';
import { openBrowser } from './browser.js';
import type { Context } from './contexts.js';
import { CommandError, UsageError, type DevIo } from './io.js';
import { findKeyPair, homeOf } from './keys.js';
import { connect } from './session.js';

const RUNNING_WAIT_MS = 5 * 60_000;
const POLL_MS = 1000;

/** Flags before the workspace name are den's; everything after it belongs to ssh's command. */
function splitAtName(argv: string[], valueFlags: string[]): [string[], string[]] {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return [argv.slice(0, i), argv.slice(i + 1)];
    if (!arg.startsWith('-')) return [argv.slice(0, i + 1), argv.slice(i + 1)];
    if (valueFlags.includes(arg)) i++;
  }
  return [argv, []];
}

const SSH_FLAGS = { ...CONTEXT_OPTIONS, identity: { type: 'string', short: 'i' } } as const;
const VALUE_FLAGS = ['--context', '--url', '--identity', '-i'];

/**
 * A workspace someone shared with the caller, by its SSH username `<workspace>.<owner>` (GET
 * /shared-workspaces); undefined for any name without a dot (the caller's own).
 */
async function sharedWorkspace(api: DenApi, name: string): Promise<{ path: string; query: Record<string, string>; owner: string; workspace: Json } | undefined> {
  if (!name.includes('.')) return undefined;
  const { items } = await api.request<{ items: Json[] }>('GET', '/shared-workspaces');
  const found = items.find((s) => s.ssh_user === name);
  if (!found) throw new CommandError(`no workspace ${name} is shared with you (den ls lists the ones that are)`);
  // The list answers the Workspace as the guest's token read it: no second read to start from.
  return { path: `/workspaces/${encodeURIComponent(found.name)}`, query: { namespace: found.namespace }, owner: found.owner, workspace: found.workspace };
}

/** The workspace, started if it was stopped (one's own only: a guest cannot start another's), once its phase is Running. */
export async function runningWorkspace(api: DenApi, name: string, io: DevIo): Promise<Json> {
  const shared = await sharedWorkspace(api, name);
  const path = shared?.path ?? `/workspaces/${encodeURIComponent(name)}`;
  const query = shared?.query ?? {};
  let ws: Json = shared?.workspace ?? (await api.request('GET', path, { query }));
  if (ws.spec?.running === false && shared) throw new CommandError(`workspace ${name} is stopped, and only ${shared.owner} can start it`);
  if (ws.spec?.running === false) {
    io.stderr.write(`starting workspace ${name}\n`);
    ws = await api.request('POST', `${path}/start`);
  }
  const deadline = Date.now() + RUNNING_WAIT_MS;
  let shown = '';
  let shownClone = '';
  while (ws.status?.phase !== 'Running') {
    const phase = ws.status?.phase ?? 'Pending';
    if (phase === 'Failed') throw new CommandError(`workspace ${name} failed: ${failure(ws)}`);
    if (phase !== shown) io.stderr.write(`waiting for workspace ${name} to be Running (now ${phase})\n`);
    shown = phase;
    const cloning = cloningMessage(ws);
    if (cloning && cloning !== shownClone) io.stderr.write(`${cloning}\n`);
    shownClone = cloning;
    if (Date.now() > deadline) throw new CommandError(`workspace ${name} is still ${phase} after ${RUNNING_WAIT_MS / 60_000} minutes`);
    await new Promise((r) => setTimeout(r, POLL_MS));
    ws = await api.request('GET', path, { query });
  }
  return ws;
}

/** Ready reasons of a start that say what it is doing (hooks/workspace/lifecycle-status.ts): devcontainer.json being applied, its commands running. */
const PROGRESS_REASONS = new Set(['ApplyingDevcontainer', 'RunningLifecycleCommands']);

/**
 * While the workspace starts, what it does: the clone step of spec.source (the Cloned condition,
 * hooks/workspace/clone-status.ts), applying devcontainer.json, running its commands.
 */
function cloningMessage(ws: Json): string {
  const conditions: Json[] = ws.status?.conditions ?? [];
  const cloned = conditions.find((c) => c.type === 'Cloned');
  if (cloned?.reason === 'Cloning' && typeof cloned.message === 'string') return cloned.message;
  const ready = conditions.find((c) => c.type === 'Ready');
  return PROGRESS_REASONS.has(ready?.reason) && typeof ready?.message === 'string' ? ready.message : '';
}

function failure(ws: Json): string {
  const ready = (ws.status?.conditions ?? []).find((c: Json) => c.type === 'Ready');
  return ready?.message ?? 'see den logs';
}

/** `ssh` arguments that reach the workspace through the gateway without any ~/.ssh/config. */
export function sshTarget(ws: Json, context: Context, identityFile: string, user: string = ws.metadata.name): string[] {
  const endpoint: string = ws.status?.endpoint ?? '';
  const host = context.sshHost || endpoint.slice(endpoint.lastIndexOf('@') + 1) || new URL(context.url).hostname;
  return ['-p', String(context.sshPort), '-i', identityFile, '-o', 'IdentitiesOnly=yes', '-l', user, host];
}

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Runs ssh on this terminal; a signal den receives is passed on, and den exits as ssh did. */
function exec(io: DevIo, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(io.env.DEN_SSH || 'ssh', args, { stdio: 'inherit', env: io.env as NodeJS.ProcessEnv });
    const pass = (signal: NodeJS.Signals) => child.kill(signal);
    for (const s of FORWARDED_SIGNALS) process.on(s, pass);
    const done = () => {
      for (const s of FORWARDED_SIGNALS) process.off(s, pass);
    };
    child.on('error', (err) => {
      done();
      reject(new CommandError(`cannot run ssh: ${err.message}`));
    });
    child.on('exit', (code, signal) => {
      done();
      resolve(code ?? 128 + (signal ? osConstants.signals[signal] : 0));
    });
  });
}

export async function ssh(argv: string[], io: DevIo): Promise<number> {
  const [own, command] = splitAtName(argv, VALUE_FLAGS);
  const { values, positionals, help } = parse(own, SSH_FLAGS, { min: 1, max: 1, names: 'the workspace name' });
  if (help) return usage(io, 'den ssh <name> [command...]  a shell (or the command) in the workspace, started if stopped; <workspace>.<owner> for one shared with you');
  const { context, api } = await connect(io, values);
  const ws = await runningWorkspace(api, positionals[0]!, io);
  const { identityFile } = await findKeyPair(io.env, values.identity);
  return exec(io, [...sshTarget(ws, context, identityFile, positionals[0]!), ...command]);
}

export async function forward(argv: string[], io: DevIo): Promise<number> {
  const { values, positionals, help } = parse(argv, SSH_FLAGS, { min: 2, max: 2, names: 'the workspace name and <local-port>:<remote-port>' });
  if (help) return usage(io, 'den forward <name> <local-port>:<remote-port>  forwards 127.0.0.1:<local-port> to the workspace\'s localhost:<remote-port>');
  const match = /^(\d{1,5}):(\d{1,5})$/.exec(positionals[1]!);
  const ports = match ? [Number(match[1]), Number(match[2])] : [];
  if (!match || ports.some((p) => p < 1 || p > 65535)) throw new UsageError(`"${positionals[1]}" must be <local-port>:<remote-port>, such as 8080:3000`);
  const { context, api } = await connect(io, values);
  const ws = await runningWorkspace(api, positionals[0]!, io);
  const { identityFile } = await findKeyPair(io.env, values.identity);
  io.stderr.write(`forwarding 127.0.0.1:${ports[0]} to port ${ports[1]} in workspace ${positionals[0]}; Ctrl-C stops\n`);
  return exec(io, ['-N', '-o', 'ExitOnForwardFailure=yes', '-L', `127.0.0.1:${ports[0]}:localhost:${ports[1]}`, ...sshTarget(ws, context, identityFile, positionals[0]!)]);
}

export async function code(argv: string[], io: DevIo): Promise<number> {
  const { values, positionals, help } = parse(argv, SSH_FLAGS, { min: 1, max: 1, names: 'the workspace name' });
  if (help) return usage(io, 'den code <name>  opens VS Code (Remote-SSH) in the workspace\'s home folder; run den config-ssh first');
  const { name: contextName, api } = await connect(io, values);
  const ws = await runningWorkspace(api, positionals[0]!, io);
  const image = await api.request('GET', `/workspace-images/${encodeURIComponent(ws.spec.imageRef.name)}`);
  const alias = `${positionals[0]!}.${contextName}`;
  // No ~/.ssh/config at all reads as one without the host: the note below says what to do.
  const config = await readFile(join(homeOf(io.env), '.ssh', 'config'), 'utf8').catch(() => '');
  if (!config.split('\n').some((l) => l.trim() === `Host ${alias}`)) io.stderr.write(`note: ~/.ssh/config has no Host ${alias}; run den config-ssh so VS Code can reach it\n`);
  const home: string = image.spec?.homePath ?? '/home/dev';
  const uri = `vscode://vscode-remote/ssh-remote+${encodeURIComponent(alias)}${home.startsWith('/') ? '' : '/'}${home}`;
  io.stdout.write(uri + '\n');
  (io.openBrowser ?? ((u) => openBrowser(u, io.env)))(uri);
  return 0;
}
