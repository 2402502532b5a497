// Request bodies: at most `limit` bytes (SPEC leaves the size open; we answer 413),
// JSON only, parsed once into `ctx.request.body` for the routes and `validate.ts`.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Context, Next } from 'koa';
import { HttpError } from './errors.js';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body; undefined when the request had none. */
    body?: unknown;
  }
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * How much of a refused body (counted from its first byte) the server reads and drops before it
 * answers 413, so the client has finished sending and reads the answer; a longer body is cut off.
 * Answering and closing while the client is still sending resets the connection, and clients
 * such as Node's fetch (or a proxy in between) then report EPIPE instead of the 413.
 */
export const DISCARD_LIMIT = 16 * 1024 * 1024;

function tooLarge(limit: number): string {
  return `request body is larger than ${limit} bytes`;
}

/**
 * Reads and drops what is left of a refused body, `read` bytes of it already taken. Resolves
 * true once the body has ended, false as soon as the whole body exceeds `discardLimit` (reading
 * stops; the connection must close after the answer). Nothing read is kept.
 */
function discardRest(req: IncomingMessage, read: number, discardLimit: number): Promise<boolean> {
  if (req.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    let total = read;
    const finish = (ended: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onGone);
      if (!ended) req.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > discardLimit) finish(false);
    };
    const onEnd = () => finish(true);
    // A client that goes away mid-body: nothing more to read, and no answer will reach it.
    const onGone = () => finish(false);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onGone);
    req.once('close', onGone);
    req.resume();
  });
}

/** How long a connection whose body was cut off stays open, unread, after its answer. */
export const LINGER_MS = 2_000;

/**
 * Closes the connection of a body that was cut off so that the client can read the answer: the
 * answer and a FIN go out, nothing more is read, and the socket is destroyed once LINGER_MS has
 * passed (or the client resets it). Node destroys it as soon as the answer is written, and
 * closing a socket with the client's bytes unread sends a reset, which can overtake the answer:
 * the client's kernel drops what its reader had not taken yet (Apache calls the cure a lingering
 * close).
 */
function closeLingering(req: IncomingMessage): HttpError['headers'] {
  req.socket.destroySoon = function lingeringClose(this: Socket) {
    this.pause();
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS).unref();
    this.once('close', () => clearTimeout(timer));
  };
  return { Connection: 'close' };
}

/** The 413 for a body over `limit`, answered once the rest is drained or cut off. */
async function refusal(ctx: Context, read: number, limit: number, discardLimit: number, message: string): Promise<HttpError> {
  const ended = await discardRest(ctx.req, read, Math.max(limit, discardLimit));
  return new HttpError(413, message, ended ? {} : closeLingering(ctx.req));
}

/**
 * Refuses a request whose declared Content-Length is over the limit before anything else
 * runs or a byte of the body is kept. It sits outside the error mapper, so it writes its
 * own `{error}`; bodies without a length are counted by `readJsonBody` instead. A declared
 * length past `discardLimit` is not read: the answer comes at once and the connection closes.
 */
export function refuseOversizedBodies(limit = DEFAULT_BODY_LIMIT, discardLimit = DISCARD_LIMIT) {
  return async function refuseOversized(ctx: Context, next: Next): Promise<void> {
    const declared = Number(ctx.get('Content-Length') || 0);
    if (declared > limit) {
      const refused = declared > Math.max(limit, discardLimit) ? new HttpError(413, tooLarge(limit), closeLingering(ctx.req)) : await refusal(ctx, 0, limit, discardLimit, tooLarge(limit));
      ctx.status = 413;
      ctx.set(refused.headers);
      ctx.body = { error: refused.message };
      return;
    }
    await next();
  };
}

function hasBody(ctx: Context): boolean {
  return Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';
}

/**
 * The request body, at most `limit` bytes; a longer one is drained (up to `discardLimit`) and
 * refused with 413 and `message`.
 */
export function readLimited(ctx: Context, limit: number, message = tooLarge(limit), discardLimit = DISCARD_LIMIT): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const req = ctx.req;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        chunks.length = 0;
        refusal(ctx, size, limit, discardLimit, message).then(reject, reject);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(new HttpError(400, `request body could not be read: ${err.message}`));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** Reads and parses a JSON body into `ctx.request.body`; an empty body leaves it undefined. */
export function readJsonBody(limit = DEFAULT_BODY_LIMIT) {
  return async function jsonBody(ctx: Context, next: Next): Promise<void> {
    if (hasBody(ctx)) {
      const raw = await readLimited(ctx, limit);
      if (raw.length > 0) {
        if (!ctx.is('application/json', '+json')) throw new HttpError(415, 'request body must be JSON (Content-Type: application/json)');
        try {
          ctx.request.body = JSON.parse(raw.toString('utf8')) as unknown;
        } catch {
          throw new HttpError(400, 'request body is not valid JSON');
        }
      }
    }
    await next();
  };
}
