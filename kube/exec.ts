// A pods/exec client over the channel websocket: channel 0 stdin, 1 stdout, 2 stderr,
// 3 the final Status, 4 terminal resize. v5.channel.k8s.io is offered first because its
// close frame [255, 0] lets the command see EOF on stdin; an API server that only speaks
// v4.channel.k8s.io (Kubernetes before 1.29) picks v4, where stdin cannot be closed on
// its own and stays open until the command ends. A command that serves requests until its
// input ends (sftp-server) would then never end: such an exec is ended at the input's end.
import type { Readable, Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import type { KubeClient } from './client.js';
import type { KubeStatus } from './errors.js';
import { FrameSender, OutputGate, type MessageHandler } from './channel-ws.js';

export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;
export const V5 = 'v5.channel.k8s.io';

export const EXEC_CHANNEL = { stdin: 0, stdout: 1, stderr: 2, status: 3, resize: 4, close: 255 } as const;

/** Exit code reported when the exec failed for a reason other than the command's own exit. */
export const EXEC_FAILURE_CODE = 255;

export interface ExecTarget {
  namespace: string;
  pod: string;
  container?: string;
}

export interface ExecRequest {
  command: string[];
  tty: boolean;
  /** Initial terminal size when `tty`: set by the command's wrapper before it runs, and sent on channel 4. */
  size?: { cols: number; rows: number };
  /**
   * The command answers requests on stdin and has nothing left to do once stdin ends (sftp-server,
   * an scp sink). On v4, where the command cannot be told, the exec is then ended and reported as
   * exit 0; on v5 the command sees EOF and ends by itself.
   */
  endsWithInput?: boolean;
}

/**
 * Sets the pty's size, then runs the command in its place. The container runtime starts the
 * command at once on a 0x0 pty and applies channel-4 resizes asynchronously, so without this
 * a command that reads its size at start (`stty size`, `tput cols`, htop) may see 0 0.
 */
const SIZED = 'stty rows "$1" cols "$2" 2>/dev/null; shift 2; exec "$@"';

/** The argv pods/exec runs for `req`: the command itself, or wrapped so a terminal starts at its size. */
export function execArgv(req: ExecRequest): string[] {
  if (!req.tty || !req.size) return req.command;
  return ['/bin/sh', '-c', SIZED, 'den-pty', String(req.size.rows), String(req.size.cols), ...req.command];
}

export interface ExecStreams {
  stdin?: Readable;
  stdout: Writable;
  /** Unused with a tty (the pod's terminal merges both). */
  stderr?: Writable;
}

export interface ExecExit {
  exitCode: number;
  /** Why the exec failed, when it was not the command's own exit (shown on stderr). */
  message?: string;
}

export interface ExecSession {
  /** The subprotocol the API server picked. */
  protocol: string;
  resize(cols: number, rows: number): void;
  /** Settles when the exec ends. */
  done: Promise<ExecExit>;
  /** Ends the exec from our side (the SSH channel or the browser went away). */
  close(): void;
}

export function execPath(target: ExecTarget): string {
  return `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.pod)}/exec`;
}

export function execQuery(target: ExecTarget, req: ExecRequest, withStdin: boolean): URLSearchParams {
  const q = new URLSearchParams();
  for (const arg of execArgv(req)) q.append('command', arg);
  if (target.container) q.set('container', target.container);
  q.set('stdin', String(withStdin));
  q.set('stdout', 'true');
  q.set('stderr', String(!req.tty));
  q.set('tty', String(req.tty));
  return q;
}

/** The exit code a channel-3 Status stands for (SPEC fixtures: NonZeroExitCode carries it in details.causes). */
export function exitFromStatus(status: KubeStatus): ExecExit {
  if (status.status === 'Success') return { exitCode: 0 };
  if (status.reason === 'NonZeroExitCode') {
    const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
    const code = Number(cause?.message);
    if (Number.isInteger(code) && code >= 0 && code <= 255) return { exitCode: code };
  }
  return { exitCode: EXEC_FAILURE_CODE, message: status.message || 'the command could not be run in the pod' };
}

export function parseStatusFrame(payload: Buffer): ExecExit {
  try {
    return exitFromStatus(JSON.parse(payload.toString('utf8')) as KubeStatus);
  } catch (err) {
    return { exitCode: EXEC_FAILURE_CODE, message: `unreadable exit status from the API server (${(err as Error).message})` };
  }
}

export function resizeFrame(cols: number, rows: number): Buffer {
  return Buffer.from(JSON.stringify({ Width: cols, Height: rows }));
}

/** Opens the exec websocket and connects it to `streams`; rejects with the API server's Status when refused. */
export async function startExec(client: KubeClient, target: ExecTarget, req: ExecRequest, streams: ExecStreams): Promise<ExecSession> {
  const path = execPath(target);
  const { ws, onMessage } = await client.openStream(path, execQuery(target, req, streams.stdin !== undefined), [...EXEC_PROTOCOLS]);
  return connectExec(ws, onMessage, req, streams);
}

function connectExec(ws: WebSocket, onMessage: (handler: MessageHandler) => void, req: ExecRequest, streams: ExecStreams): ExecSession {
  const protocol = ws.protocol;
  const sender = new FrameSender(ws);
  const gate = new OutputGate(ws);
  let exit: ExecExit | undefined;
  /** Set once we ended the exec as done: nothing the server sends afterwards changes its outcome. */
  let finished = false;
  let transportError: Error | undefined;

  const resize = (cols: number, rows: number) => {
    if (req.tty && cols > 0 && rows > 0) sender.send(EXEC_CHANNEL.resize, resizeFrame(cols, rows));
  };

  onMessage((buf) => {
    if (buf.length === 0) return;
    const payload = buf.subarray(1);
    switch (buf[0]) {
      case EXEC_CHANNEL.stdout:
        gate.write(streams.stdout, payload);
        break;
      case EXEC_CHANNEL.stderr:
        gate.write(streams.stderr ?? streams.stdout, payload);
        break;
      case EXEC_CHANNEL.status:
        if (!finished) exit = parseStatusFrame(payload);
        break;
      default:
        break; // unknown channels are ignored, as kubectl does
    }
  });

  const stdin = streams.stdin;
  const onStdin = (chunk: Buffer) => sender.send(EXEC_CHANNEL.stdin, chunk, stdin);
  const onStdinEnd = () => {
    if (protocol === V5) sender.send(EXEC_CHANNEL.close, Buffer.from([EXEC_CHANNEL.stdin]));
    else if (req.endsWithInput) finish();
  };
  if (stdin) {
    stdin.on('data', onStdin);
    stdin.once('end', onStdinEnd);
  }

  const done = new Promise<ExecExit>((resolve) => {
    ws.on('error', (err) => {
      transportError = err;
    });
    ws.once('close', () => {
      if (stdin) {
        stdin.off('data', onStdin);
        stdin.off('end', onStdinEnd);
      }
      if (exit) return resolve(exit);
      const why = transportError ? `: ${transportError.message}` : '';
      resolve({ exitCode: EXEC_FAILURE_CODE, message: `the connection to the workspace pod ended without an exit status${why}` });
    });
  });

  if (req.size) resize(req.size.cols, req.size.rows);

  let closeTimer: NodeJS.Timeout | undefined;
  const close = () => {
    if (ws.readyState === ws.CLOSED || closeTimer) return;
    ws.close(1000);
    // A peer that never answers the close handshake must not keep the socket forever.
    closeTimer = setTimeout(() => ws.terminate(), 5_000);
    closeTimer.unref();
    void done.then(() => clearTimeout(closeTimer));
  };
  /** Ends the exec as a success, unless the command's own exit status came first. */
  const finish = () => {
    if (finished || ws.readyState !== ws.OPEN) return;
    finished = true;
    exit ??= { exitCode: 0 };
    close();
  };
  return { protocol, resize, done, close };
}
