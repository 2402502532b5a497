// An in-process fake of the kubelet side of pods/exec and pods/portforward, speaking the
// channel websocket protocol exactly as recorded in shared/fixtures/kube (exec-*.jsonl,
// portforward-v4-http.jsonl): one leading byte per frame naming the channel, an empty
// frame on stdout first, the final Status on channel 3 (NonZeroExitCode with the code in
// details.causes), resize on 4, v5's close frame [255, 0], and for port forwarding the
// port as two little-endian bytes opening each channel.
//
// The "pod" is this machine: an exec runs the requested command as a real local process
// (a terminal session runs under util-linux `script`, which gives it a real pty), and a
// port forward connects to a real local TCP port.
//
// Terminal sizes behave as with a real kubelet and container runtime: the command starts at
// once on a pty of size 0x0, and resize frames are applied to the pty asynchronously, after
// the process started and `resizeLatencyMs` later, so a command that reads its size at once
// sees 0 0 unless the client set the size itself first.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile, readdir, readlink } from 'node:fs/promises';
import http from 'node:http';
import { constants as osConstants } from 'node:os';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

export const V4 = 'v4.channel.k8s.io';
export const V5 = 'v5.channel.k8s.io';

export interface ExecRecord {
  namespace: string;
  pod: string;
  container?: string;
  command: string[];
  tty: boolean;
  stdin: boolean;
  stderr: boolean;
  protocol: string;
  /** Terminal sizes received on channel 4, in order. */
  resizes: { Width: number; Height: number }[];
  /** How many resizes have reached the pty of the terminal session. */
  resizesApplied: number;
  /** True once a v5 close frame for stdin arrived. */
  stdinClosedByFrame: boolean;
  /** The process's exit code once it ended. */
  exitCode?: number;
  /** Writing to the command's stdin failed (it exited without reading it all). */
  stdinError?: string;
}

export interface ForwardRecord {
  namespace: string;
  pod: string;
  ports: number[];
}

export interface FakeExecOptions {
  /** Working directory of every command (the pod's filesystem, in effect). */
  cwd: string;
  /** Subprotocols this "cluster" speaks; `[V4]` mimics an API server before 1.29. */
  protocols?: string[];
  /** Whether the pod exists; answered with the recorded 404 Status when not. */
  podExists?: (namespace: string, pod: string) => boolean;
  /** Local port a pod port is served on (default: the same number). */
  localPort?: (port: number) => number;
  /** Environment of the commands. */
  env?: NodeJS.ProcessEnv;
  /** How long after it arrives (and after the process started) a resize reaches the pty; default 50 ms. */
  resizeLatencyMs?: number;
}

const EXEC_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec$/;
const FORWARD_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/portforward$/;
const SEND_HIGH_WATER = 1 << 20;

function frame(channel: number, payload: Buffer | string): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return Buffer.concat([Buffer.from([channel]), data]);
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The Status the API server sends on channel 3 when the command ends (recorded shapes). */
export function exitStatus(command: string[], code: number): Record<string, unknown> {
  if (code === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

/** The Status a refused upgrade carries (exec-forbidden.jsonl). */
function notFoundStatus(pod: string): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `pods "${pod}" not found`,
    reason: 'NotFound',
    details: { name: pod, kind: 'pods' },
    code: 404,
  };
}

function refuseUpgrade(socket: Duplex, status: number, body: Record<string, unknown>): void {
  const text = JSON.stringify(body) + '\n';
  const reason = http.STATUS_CODES[status] ?? 'Error';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

/** The pty device a child of `pid` has on stdin (script's shell), to resize it. */
async function ptyOfChild(pid: number): Promise<string | undefined> {
  // Processes come and go while /proc is read: a vanished entry just means "no pty there".
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  for (const task of tasks) {
    const children = (await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '')).trim().split(/\s+/).filter(Boolean);
    for (const child of children) {
      const tty = await readlink(`/proc/${child}/fd/0`).catch(() => '');
      if (tty.startsWith('/dev/pts/')) return tty;
    }
  }
  return undefined;
}

/**
 * Resizes the pty of the session `script` runs (the kernel sends the program SIGWINCH), as a
 * runtime does; waits for `script` to have started its child. False when the process ended first.
 */
async function resizePty(script: ChildProcess, cols: number, rows: number): Promise<boolean> {
  for (;;) {
    if (script.exitCode !== null || script.signalCode !== null || !script.pid) return false;
    const device = await ptyOfChild(script.pid);
    if (device) {
      return new Promise<boolean>((resolve) => {
        execFile('stty', ['-F', device, 'cols', String(cols), 'rows', String(rows)], (err) => resolve(!err));
      });
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

export class FakeExec {
  readonly execs: ExecRecord[] = [];
  readonly forwards: ForwardRecord[] = [];
  /** Transport errors seen on upgraded connections (a client vanishing mid-stream, say). */
  readonly socketErrors: string[] = [];
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (offered: Set<string>) => {
      // Like the API server: the first protocol the client offered that it speaks.
      for (const p of offered) if (this.protocols.includes(p)) return p;
      return false;
    },
  });
  private readonly children = new Set<ChildProcess>();
  private readonly sockets = new Set<net.Socket>();
  private standalone: http.Server | undefined;

  private readonly opts: FakeExecOptions;

  constructor(opts: FakeExecOptions) {
    this.opts = { ...opts };
  }

  private get protocols(): string[] {
    return this.opts.protocols ?? [V5, V4];
  }

  /** Switches the subprotocols this "cluster" speaks (`[V4]`: an API server before 1.29). */
  speak(protocols: string[]): void {
    this.opts.protocols = protocols;
  }

  /** Serves pods/exec and pods/portforward behind the fake API server (which authenticates and authorizes first). */
  attachTo(api: { onUpgrade(pattern: RegExp, handler: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void): void }): void {
    const handler = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!this.handleUpgrade(req, socket, head)) socket.destroy();
    };
    api.onUpgrade(EXEC_PATH, handler);
    api.onUpgrade(FORWARD_PATH, handler);
  }

  /** Path patterns to register with FakeApiServer.onUpgrade. */
  static readonly paths = { exec: EXEC_PATH, portforward: FORWARD_PATH };

  /** Handles an HTTP upgrade for pods/exec or pods/portforward; false when the path is neither. */
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? '/', 'http://fake');
    const exec = EXEC_PATH.exec(url.pathname);
    const forward = FORWARD_PATH.exec(url.pathname);
    const match = exec ?? forward;
    if (!match) return false;
    socket.on('error', (err) => this.socketErrors.push(err.message));
    const namespace = decodeURIComponent(match[1]!);
    const pod = decodeURIComponent(match[2]!);
    if (this.opts.podExists && !this.opts.podExists(namespace, pod)) {
      refuseUpgrade(socket, 404, notFoundStatus(pod));
      return true;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', (err) => {
        this.socketErrors.push(err.message);
        ws.terminate();
      });
      if (exec) this.exec(ws, namespace, pod, url.searchParams);
      else this.forward(ws, namespace, pod, url.searchParams);
    });
    return true;
  }

  /** Serves the endpoints on their own loopback HTTP server (tests that need no API server). */
  async listen(): Promise<string> {
    const server = http.createServer((_req, res) => {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', status: 'Failure', code: 404, message: 'only exec and portforward are served here' }));
    });
    server.on('upgrade', (req, socket, head) => {
      if (!this.handleUpgrade(req, socket, head)) socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.standalone = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    for (const child of this.children) child.kill('SIGKILL');
    for (const s of this.sockets) s.destroy();
    if (this.standalone) {
      const server = this.standalone;
      this.standalone = undefined;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private exec(ws: WebSocket, namespace: string, pod: string, q: URLSearchParams): void {
    const record: ExecRecord = {
      namespace,
      pod,
      container: q.get('container') ?? undefined,
      command: q.getAll('command'),
      tty: q.get('tty') === 'true',
      stdin: q.get('stdin') === 'true',
      stderr: q.get('stderr') === 'true',
      protocol: ws.protocol,
      resizes: [],
      resizesApplied: 0,
      stdinClosedByFrame: false,
    };
    this.execs.push(record);
    // Like a container runtime: the command starts at once, on a pty of size 0x0 when tty.
    const env = { ...process.env, ...this.opts.env };
    const child = record.tty
      ? spawn('script', ['-qefc', `exec ${record.command.map(shellQuote).join(' ')}`, '/dev/null'], { cwd: this.opts.cwd, env: { ...env, SHELL: '/bin/sh' } })
      : spawn(record.command[0] ?? 'true', record.command.slice(1), { cwd: this.opts.cwd, env });
    this.run(ws, record, child);
    if (!record.stdin) child.stdin?.end();
    const latency = this.opts.resizeLatencyMs ?? 50;
    // Resizes reach the pty one after another, in the order they arrived, each `latency` late.
    let resizing = Promise.resolve();

    ws.on('message', (data) => {
      const buf = toBuffer(data);
      const payload = buf.subarray(1);
      switch (buf[0]) {
        case 0:
          child.stdin?.write(payload);
          break;
        case 4: {
          const size = JSON.parse(payload.toString('utf8')) as { Width: number; Height: number };
          record.resizes.push(size);
          if (!record.tty) break;
          resizing = resizing
            .then(() => new Promise((r) => setTimeout(r, latency)))
            .then(() => resizePty(child, size.Width, size.Height))
            .then((applied) => {
              if (applied) record.resizesApplied += 1;
            });
          break;
        }
        case 255:
          if (ws.protocol === V5 && payload[0] === 0) {
            record.stdinClosedByFrame = true;
            child.stdin?.end();
          }
          break;
        default:
          break;
      }
    });

    // Like the kubelet: an empty frame on the lowest output channel says the stream is up.
    ws.send(frame(1, Buffer.alloc(0)));
  }

  private run(ws: WebSocket, record: ExecRecord, child: ChildProcess): void {
    this.children.add(child);
    // EPIPE when the command exits without reading all its input: the command's business, as in a pod.
    child.stdin?.on('error', (err) => record.stdinError ??= err.message);
    const pump = (stream: NodeJS.ReadableStream | null, channel: number) => {
      stream?.on('data', (chunk: Buffer) => {
        if (ws.readyState !== ws.OPEN) return;
        ws.send(frame(channel, chunk), () => {
          if (ws.bufferedAmount < SEND_HIGH_WATER) stream.resume();
        });
        if (ws.bufferedAmount > SEND_HIGH_WATER) stream.pause();
      });
    };
    pump(child.stdout, 1);
    pump(child.stderr, record.stderr ? 2 : 1);
    child.on('error', (err) => {
      this.children.delete(child);
      if (ws.readyState !== ws.OPEN) return;
      ws.send(frame(3, JSON.stringify({ metadata: {}, status: 'Failure', message: `exec failed: ${err.message}`, reason: 'InternalError' })));
      ws.close(1000);
    });
    child.on('close', (code, signal) => {
      this.children.delete(child);
      // A container runtime reports a command killed by signal n as exit code 128+n.
      const exit = code ?? (signal ? 128 + (osConstants.signals[signal] ?? 15) : 1);
      record.exitCode = exit;
      if (ws.readyState !== ws.OPEN) return;
      ws.send(frame(3, JSON.stringify(exitStatus(record.command, exit))));
      ws.close(1000);
    });
    ws.on('close', () => {
      child.stdin?.end();
      if (child.exitCode === null && child.signalCode === null) {
        const timer = setTimeout(() => child.kill('SIGKILL'), 1000);
        timer.unref();
        child.kill('SIGHUP');
      }
    });
  }

  private forward(ws: WebSocket, namespace: string, pod: string, q: URLSearchParams): void {
    const ports = (q.get('ports') ?? '').split(',').map(Number).filter((p) => Number.isInteger(p) && p > 0 && p < 65536);
    this.forwards.push({ namespace, pod, ports });
    let open = ports.length;
    const sockets: net.Socket[] = [];
    const done = () => {
      open -= 1;
      if (open <= 0 && ws.readyState === ws.OPEN) ws.close(1000);
    };
    ports.forEach((port, i) => {
      const data = 2 * i;
      const errors = data + 1;
      const prefix = Buffer.alloc(2);
      prefix.writeUInt16LE(port);
      ws.send(frame(data, prefix));
      ws.send(frame(errors, prefix));
      const socket = net.connect({ host: '127.0.0.1', port: this.opts.localPort?.(port) ?? port });
      sockets[i] = socket;
      this.sockets.add(socket);
      let failed = false;
      socket.on('data', (chunk) => {
        ws.send(frame(data, chunk), () => {
          if (ws.bufferedAmount < SEND_HIGH_WATER) socket.resume();
        });
        if (ws.bufferedAmount > SEND_HIGH_WATER) socket.pause();
      });
      socket.on('error', (err) => {
        failed = true;
        if (ws.readyState === ws.OPEN) {
          ws.send(frame(errors, `error forwarding port ${port} to pod ${pod}, uid : failed to connect to localhost:${port} inside namespace: ${err.message}`));
        }
      });
      socket.on('close', () => {
        this.sockets.delete(socket);
        if (failed || socket.destroyed) done();
      });
    });
    ws.on('message', (raw) => {
      const buf = toBuffer(raw);
      const socket = sockets[Math.floor((buf[0] ?? 0) / 2)];
      if (buf[0] !== undefined && buf[0] % 2 === 0 && socket && !socket.destroyed) socket.write(buf.subarray(1));
    });
    ws.on('close', () => {
      for (const s of sockets) s?.destroy();
    });
  }
}
