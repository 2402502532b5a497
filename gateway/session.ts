// One SSH "session" channel: pty-req, env and window-change are remembered, then shell,
// exec or the sftp subsystem starts one pods/exec in the workspace pod, as the workspace
// owner (the client carries their minted token). Exit codes come from the exec Status;
// stderr stays separate unless a terminal merges it. A refusal by the cluster is told on
// stderr and ends the channel with EXEC_FAILURE_CODE. sftp and legacy scp's sink end with
// the client's EOF even where the exec cannot pass it on (v4, Kubernetes before 1.29): the
// client waits for every answer before it sends EOF, so nothing more can be asked of them.
import type { Writable } from 'node:stream';
import type { ServerChannel, Session } from 'ssh2';
import type { Log } from '../process/role.js';
import type { KubeClient } from '../kube/client.js';
import { KubeApiError } from '../kube/errors.js';
import { MintError } from '../kube/minting.js';
import { envRefusal, execCommand, isScpSink, sanitizeTerm, sftpCommand, shellCommand } from '../shell/commands.js';
import { EXEC_FAILURE_CODE, startExec, type ExecExit, type ExecSession } from '../kube/exec.js';
import { ownerIdentity, type ConnectionFacts, type SessionKind, type SessionRecorder } from './session-record.js';

export interface SessionDeps {
  /** Acts as the workspace owner (kube/forwarding.ts). */
  client: KubeClient;
  facts: ConnectionFacts;
  record: SessionRecorder;
  log: Log;
  /** Channels with a running command, so shutdown can tell them why they end. */
  running: Set<ServerChannel>;
}

interface Pty {
  term: string;
  cols: number;
  rows: number;
}

/** A number of columns/rows from the client, clamped to what a terminal can be. */
function dimension(n: unknown): number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? Math.min(n, 10_000) : 0;
}

/** Settles once every chunk written to `w` so far has been handed to the SSH connection. */
function written(w: Writable): Promise<void> {
  // An empty write completes only after the writes queued before it, including those waiting for window.
  return new Promise((resolve) => (w.writableLength === 0 ? resolve() : w.write(Buffer.alloc(0), () => resolve())));
}

/** Waits until stdout and stderr of `channel` have gone out, or the channel closed. */
function flushed(channel: ServerChannel, closed: Promise<void>): Promise<void> {
  return Promise.race([Promise.all([written(channel), written(channel.stderr)]).then(() => undefined), closed]);
}

export function serveSession(session: Session, deps: SessionDeps): void {
  let pty: Pty | undefined;
  const env = new Map<string, string>();
  let exec: ExecSession | undefined;
  let started = false;
  let closed = false;
  const { facts, log } = deps;
  const { target } = facts;

  session.on('pty', (accept, reject, info) => {
    if (started) return reject?.();
    pty = { term: sanitizeTerm(String(info.term ?? 'xterm')), cols: dimension(info.cols) || 80, rows: dimension(info.rows) || 24 };
    accept?.();
  });

  session.on('window-change', (accept, reject, info) => {
    const cols = dimension(info.cols);
    const rows = dimension(info.rows);
    if (!pty || !cols || !rows) return reject?.();
    pty = { ...pty, cols, rows };
    exec?.resize(cols, rows);
    accept?.();
  });

  session.on('env', (accept, reject, info) => {
    const name = String(info.key ?? '');
    const value = String(info.val ?? '');
    const refusal = started ? 'session already started' : envRefusal(name, value, env.size);
    if (refusal) {
      log('env request refused', { workspace: target.workspace, name: name.slice(0, 64).replace(/[^\x20-\x7e]/g, '?'), reason: refusal });
      return reject?.();
    }
    env.set(name, value);
    accept?.();
  });

  // pods/exec cannot deliver signals; the client is told the request failed, as sshd does for unknown signals.
  session.on('signal', (_accept, reject) => reject?.());

  const sessionEnv = () => ({ term: pty?.term, vars: env });

  session.on('shell', (accept, reject) => {
    if (started) return reject?.();
    run(accept(), shellCommand(target, sessionEnv()), pty !== undefined, 'shell', false);
  });

  session.on('exec', (accept, reject, info) => {
    if (started) return reject?.();
    const command = String(info.command ?? '');
    run(accept(), execCommand(target, sessionEnv(), command), pty !== undefined, 'exec', pty === undefined && isScpSink(command));
  });

  session.on('subsystem', (accept, reject, info) => {
    if (started || info.name !== 'sftp') {
      log('subsystem refused', { workspace: target.workspace, subsystem: String(info.name).slice(0, 32).replace(/[^\x20-\x7e]/g, '?') });
      return reject?.();
    }
    run(accept(), sftpCommand(target), false, 'sftp', true);
  });

  session.on('close', () => {
    closed = true;
    exec?.close();
  });

  function run(channel: ServerChannel | undefined, command: string[], tty: boolean, kind: SessionKind, endsWithInput: boolean): void {
    if (!channel) return;
    started = true;
    const tally = deps.record.opened(facts, kind);
    tally.watch(channel);
    let channelClosed = false;
    let markClosed!: () => void;
    const channelGone = new Promise<void>((resolve) => (markClosed = resolve));
    deps.running.add(channel);
    channel.on('error', (err: Error) => log('session channel error', { workspace: target.workspace, kind, error: err.message }));
    channel.stderr.on('error', (err: Error) => log('session stderr error', { workspace: target.workspace, kind, error: err.message }));
    channel.once('close', () => {
      channelClosed = true;
      markClosed();
      deps.running.delete(channel);
      exec?.close();
      tally.close();
    });
    const size = pty ? { cols: pty.cols, rows: pty.rows } : undefined;
    startExec(deps.client, target, { command, tty, size, endsWithInput }, { stdin: channel, stdout: channel, stderr: tty ? undefined : channel.stderr })
      .then((session) => {
        exec = session;
        if (closed || channelClosed) session.close();
        // The terminal may have been resized while the exec was being set up.
        if (pty && size && (pty.cols !== size.cols || pty.rows !== size.rows)) session.resize(pty.cols, pty.rows);
        log('exec started', { namespace: target.namespace, workspace: target.workspace, kind, tty, protocol: session.protocol });
        return session.done;
      })
      .catch((err: unknown): ExecExit => {
        const message = execFailure(err, target);
        log('exec failed', { namespace: target.namespace, workspace: target.workspace, kind, error: message });
        if (err instanceof KubeApiError) deps.record.refused(facts, kind, 'create pods/exec', err.status, err.message);
        else if (err instanceof MintError) deps.record.refused(facts, kind, 'create serviceaccounts/token', undefined, err.message);
        return { exitCode: EXEC_FAILURE_CODE, message };
      })
      .then(async (exit) => {
        if (channelClosed) return;
        if (exit.message) channel.stderr.write(`den: ${exit.message}\r\n`);
        await flushed(channel, channelGone);
        channel.exit(exit.exitCode);
        channel.end();
      })
      .catch((err: unknown) => log('session teardown failed', { workspace: target.workspace, error: (err as Error).message }));
  }
}

/** What the person reads on stderr when the exec could not start. */
function execFailure(err: unknown, target: ConnectionFacts['target']): string {
  if (err instanceof KubeApiError) return `the cluster refused the exec as ${ownerIdentity(target)} (HTTP ${err.status}): ${err.message}`;
  if (err instanceof MintError) return `den gateway cannot act as ${ownerIdentity(target)}: ${err.message}`;
  return `cannot reach the workspace pod: ${(err as Error).message}`;
}
