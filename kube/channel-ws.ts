// The channel websocket framing shared by pods/exec and pods/portforward: every binary
// message starts with one byte naming its channel. Also the flow control between a
// websocket and Node streams: output stops being read from the API server while a slow
// client (an SSH channel, a browser) has not drained, and input stops being read from it while the
// websocket has too much unsent, so one slow party never grows memory without bound.
import type { Readable, Writable } from 'node:stream';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { RawData, WebSocket } from 'ws';
import { KubeApiError, statusFromText, type KubeStatus } from './errors.js';

/** Unsent bytes on the websocket above which reading from the client side pauses. */
export const SEND_HIGH_WATER = 1 << 20;
export const SEND_LOW_WATER = 256 << 10;

export function frame(channel: number, payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(payload.length + 1);
  out[0] = channel;
  payload.copy(out, 1);
  return out;
}

export function asBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

export type MessageHandler = (frame: Buffer) => void;

/**
 * Resolves once the websocket is open, with a function that installs the frame handler;
 * rejects with the API server's own Status when the upgrade is refused (404 pod not found,
 * 403 RBAC), so the person sees that message. Frames that arrive together with the upgrade
 * answer, before the handler is installed (the port prefix, say), are kept and replayed.
 */
export function opened(ws: WebSocket, what: string): Promise<(handler: MessageHandler) => void> {
  const early: Buffer[] = [];
  let handler: MessageHandler | undefined;
  ws.on('message', (data) => {
    const buf = asBuffer(data);
    if (handler) handler(buf);
    else early.push(buf);
  });
  const install = (h: MessageHandler) => {
    handler = h;
    for (const buf of early.splice(0)) h(buf);
  };
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      ws.off('open', onOpen);
      ws.off('error', onError);
      ws.off('unexpected-response', onUnexpected);
    };
    const onOpen = () => {
      cleanup();
      resolve(install);
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onUnexpected = (req: ClientRequest, res: IncomingMessage) => {
      cleanup();
      // The refusal is reported below; errors from tearing down the refused upgrade add nothing.
      ws.on('error', afterRefusal);
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= 64 << 10) chunks.push(c);
      });
      res.on('error', (err) => reject(err));
      res.on('end', () => {
        req.destroy();
        const status = res.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8');
        let body: KubeStatus;
        try {
          body = JSON.parse(text) as KubeStatus;
        } catch {
          // Not a Status object (a proxy's page): keep the text as the message.
          body = statusFromText(status, text);
        }
        reject(new KubeApiError(status, body, 'GET', what));
      });
    };
    ws.on('open', onOpen);
    ws.on('error', onError);
    ws.on('unexpected-response', onUnexpected);
  });
}

function afterRefusal(): void {
  // Intentionally empty: see `opened`.
}

/**
 * Sends frames on a websocket and pauses `source` while more than SEND_HIGH_WATER bytes
 * are queued, resuming below SEND_LOW_WATER.
 */
export class FrameSender {
  private queued = 0;
  private pausedSources = new Set<Readable>();

  constructor(private readonly ws: WebSocket) {}

  send(channel: number, payload: Buffer, source?: Readable): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    const data = frame(channel, payload);
    this.queued += data.length;
    this.ws.send(data, { binary: true }, () => {
      this.queued -= data.length;
      if (this.queued <= SEND_LOW_WATER && this.pausedSources.size) {
        for (const s of this.pausedSources) s.resume();
        this.pausedSources.clear();
      }
    });
    if (source && this.queued > SEND_HIGH_WATER && !this.pausedSources.has(source)) {
      this.pausedSources.add(source);
      source.pause();
    }
  }

  get queuedBytes(): number {
    return this.queued;
  }
}

/**
 * Writes websocket output into Node streams and stops reading the websocket while any of
 * them is full, until it drains.
 */
export class OutputGate {
  private blocked = new Set<Writable>();

  constructor(private readonly ws: WebSocket) {}

  write(out: Writable, payload: Buffer): void {
    if (payload.length === 0 || out.destroyed || out.writableEnded) return;
    if (out.write(payload) || this.blocked.has(out)) return;
    this.blocked.add(out);
    if (this.blocked.size === 1) this.ws.pause();
    const release = () => {
      out.off('drain', release);
      out.off('close', release);
      this.blocked.delete(out);
      if (this.blocked.size === 0) this.ws.resume();
    };
    out.on('drain', release);
    out.on('close', release);
  }
}
