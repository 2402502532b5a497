// One browser websocket relayed to one pods/exec, with flow control both ways: output
// stops being read from the exec while the browser has more than OUTPUT_HIGH_WATER unsent
// (so `yes` cannot grow den server's memory), and keystrokes stop being read from the
// browser while the exec websocket is backed up. Either side ending ends the other, with
// a close reason the page can show.
import { Readable, Writable } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import type { KubeClient } from '../../kube/client.js';
import { startExec, type ExecExit, type ExecSession, type ExecTarget } from '../../kube/exec.js';
import { asBuffer } from '../../kube/channel-ws.js';
import { CLOSE, dimension, type ServerNotice } from '../../web/terminal-protocol.js';
import { refusalOf, TerminalRefused } from './target.js';

/** Unsent output to the browser above which the exec stops being read. */
export const OUTPUT_HIGH_WATER = 512 << 10;
export const OUTPUT_LOW_WATER = 128 << 10;
/** Keystrokes held for a backed-up exec above which the browser stops being read. */
const INPUT_HIGH_WATER = 64 << 10;
/** A close reason is at most 123 bytes (RFC 6455); the full text goes in the notice before it. */
const MAX_REASON_BYTES = 123;

export function closeReason(message: string): string {
  const buf = Buffer.from(message, 'utf8');
  if (buf.length <= MAX_REASON_BYTES) return message;
  // Cut on a character boundary: the decoder drops a partial trailing character.
  return new TextDecoder('utf-8', { fatal: false }).decode(buf.subarray(0, MAX_REASON_BYTES - 3)).replace(/\uFFFD$/, '') + '...';
}

/** A browser that never answers the close handshake (it stopped reading) is cut off after this long. */
const CLOSE_GRACE_MS = 5_000;

/** Sends the notice, then closes; the browser shows the message either way. */
export function refuse(ws: WebSocket, code: number, message: string): void {
  sendNotice(ws, { type: 'error', message });
  closeBrowser(ws, code, message);
}

function closeBrowser(ws: WebSocket, code: number, message: string): void {
  if (ws.readyState !== ws.OPEN) return;
  ws.close(code, closeReason(message));
  const timer = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
  timer.unref();
  ws.once('close', () => clearTimeout(timer));
}

function sendNotice(ws: WebSocket, notice: ServerNotice): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(notice));
}

/**
 * Terminal output on its way to the browser. write() answers false (and OutputGate pauses
 * the exec websocket) while more than OUTPUT_HIGH_WATER bytes sit unsent on the browser's
 * socket; the held write completes once that falls under OUTPUT_LOW_WATER.
 */
export class BrowserOutput extends Writable {
  private queued = 0;
  private pending: Buffer[] = [];
  private flushScheduled = false;
  private held: ((err?: Error | null) => void) | undefined;
  /** How often the exec had to wait for the browser. */
  pauses = 0;

  constructor(private readonly ws: WebSocket) {
    super({ highWaterMark: OUTPUT_LOW_WATER });
    ws.once('close', () => this.release());
  }

  get unsentBytes(): number {
    return this.queued + this.writableLength;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    if (this.ws.readyState !== this.ws.OPEN) return callback();
    this.queued += chunk.length;
    // Output that arrives in one turn of the event loop goes out as one frame: fewer frames, fewer writes.
    this.pending.push(chunk);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    if (this.queued > OUTPUT_HIGH_WATER) {
      this.pauses += 1;
      this.held = callback;
    } else {
      callback();
    }
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.flush();
    callback();
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0) return;
    const data = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    if (this.ws.readyState !== this.ws.OPEN) {
      this.queued -= data.length;
      return;
    }
    this.ws.send(data, { binary: true }, () => {
      this.queued -= data.length;
      if (this.queued <= OUTPUT_LOW_WATER) this.release();
    });
  }

  private release(): void {
    const held = this.held;
    this.held = undefined;
    held?.();
  }
}

/** Keystrokes from the browser; the browser's socket stops being read while they back up. */
export class BrowserInput extends Readable {
  constructor(private readonly ws: WebSocket) {
    super({ highWaterMark: INPUT_HIGH_WATER });
  }

  feed(chunk: Buffer): void {
    if (!this.push(chunk)) this.ws.pause();
  }

  override _read(): void {
    if (this.ws.isPaused) this.ws.resume();
  }
}

export interface RelayOptions {
  client: KubeClient;
  target: ExecTarget;
  command: string[];
  size: { cols: number; rows: number };
  onEnd: (outcome: { exit?: ExecExit; refused?: TerminalRefused; by: 'exec' | 'browser' }) => void;
}

export interface Relay {
  output: BrowserOutput;
  input: BrowserInput;
  /** Settles once both sides are closed. */
  done: Promise<void>;
  /** Closes the terminal from the server's side (shutdown). */
  close(code: number, message: string): void;
}

function parseControl(text: string): { cols: number; rows: number } | undefined {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!msg || typeof msg !== 'object' || (msg as { type?: unknown }).type !== 'resize') return undefined;
  const cols = dimension((msg as { cols?: unknown }).cols);
  const rows = dimension((msg as { rows?: unknown }).rows);
  return cols && rows ? { cols, rows } : undefined;
}

/** Starts the exec and relays it to `browser` until either ends. */
export function relayTerminal(browser: WebSocket, opts: RelayOptions): Relay {
  const output = new BrowserOutput(browser);
  const input = new BrowserInput(browser);
  let exec: ExecSession | undefined;
  let browserClosed = false;
  let size = opts.size;
  let endedBy: 'exec' | 'browser' | undefined;

  const browserGone = new Promise<void>((resolve) => browser.once('close', () => resolve()));
  browser.on('message', (data: RawData, isBinary: boolean) => {
    if (isBinary) return input.feed(asBuffer(data));
    const resize = parseControl(asBuffer(data).toString('utf8'));
    if (!resize) return refuse(browser, CLOSE.protocolError, 'unknown control message: only {"type":"resize","cols":n,"rows":n} is understood');
    size = resize;
    exec?.resize(resize.cols, resize.rows);
  });
  browser.resume();
  browser.once('close', () => {
    browserClosed = true;
    endedBy ??= 'browser';
    input.push(null);
    exec?.close();
  });

  const execDone = startExec(opts.client, opts.target, { command: opts.command, tty: true, size: opts.size }, { stdin: input, stdout: output })
    .then((session) => {
      exec = session;
      if (browserClosed) session.close();
      else if (size.cols !== opts.size.cols || size.rows !== opts.size.rows) session.resize(size.cols, size.rows);
      return session.done;
    })
    .then(
      (exit) => {
        endedBy ??= 'exec';
        opts.onEnd({ exit, by: endedBy });
        if (browserClosed) return;
        const notice: ServerNotice = exit.message ? { type: 'exit', code: exit.exitCode, message: exit.message } : { type: 'exit', code: exit.exitCode };
        // Output still queued goes out before the notice and the close frame (ws keeps order).
        output.end(() => {
          sendNotice(browser, notice);
          const why = exit.message ?? `the shell exited with code ${exit.exitCode}`;
          closeBrowser(browser, exit.message ? CLOSE.clusterFailed : CLOSE.exited, why);
        });
      },
      (err: unknown) => {
        const refused = refusalOf(err, 'opening the shell');
        endedBy ??= 'exec';
        opts.onEnd({ refused, by: endedBy });
        refuse(browser, refused.code, refused.message);
      },
    );

  return {
    output,
    input,
    done: Promise.all([execDone, browserGone]).then(() => undefined),
    close(code, message) {
      refuse(browser, code, message);
      exec?.close();
    },
  };
}
