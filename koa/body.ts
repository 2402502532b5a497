// Request bodies: at most `limit` bytes (SPEC leaves the size open; we answer 413),
// JSON only, parsed once into `ctx.request.body` for the routes and `validate.ts`.
import type { Context, Next } from 'koa';
import { HttpError } from './errors.js';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body; undefined when the request had none. */
    body?: unknown;
  }
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

function tooLarge(limit: number): string {
  return `request body is larger than ${limit} bytes`;
}

/**
 * Refuses a request whose declared Content-Length is over the limit before anything else
 * runs or a byte of the body is read. It sits outside the error mapper, so it writes its
 * own `{error}`; bodies without a length are counted by `readJsonBody` instead.
 */
export function refuseOversizedBodies(limit = DEFAULT_BODY_LIMIT) {
  return async function refuseOversized(ctx: Context, next: Next): Promise<void> {
    const declared = Number(ctx.get('Content-Length') || 0);
    if (declared > limit) {
      ctx.status = 413;
      ctx.set('Connection', 'close');
      ctx.body = { error: tooLarge(limit) };
      return;
    }
    await next();
  };
}

function hasBody(ctx: Context): boolean {
  return Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';
}

function readLimited(ctx: Context, limit: number): Promise<Buffer> {
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
        req.resume();
        ctx.set('Connection', 'close');
        reject(new HttpError(413, tooLarge(limit)));
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
