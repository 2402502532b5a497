// Text answers (pages, JSON, scripts, styles, SVG) of 1 KiB or more go out compressed with
// brotli or gzip, whichever the client prefers among those it accepts, with
// `Vary: Accept-Encoding` so a cache keeps one copy per encoding. Streams are left alone (a
// stream's chunks must reach the client as they come). A Buffer body, which is what the
// immutable assets are, is compressed once per encoding and kept with the Buffer.
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Context, Next } from 'koa';

export const MIN_COMPRESSED_BYTES = 1024;
const COMPRESSIBLE = /^(text\/|application\/(json|javascript|xml)\b|image\/svg\+xml\b)/;
type Encoding = 'br' | 'gzip';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

function encode(body: Buffer, encoding: Encoding, once: boolean): Promise<Buffer> {
  if (encoding === 'gzip') return gzipped(body, { level: 6 });
  // What is kept is worth a slower, smaller encoding; a page made for one answer is not.
  return brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: once ? 4 : 9, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
}

/** The body as bytes, when it is text Koa would send in one piece. */
function bytesOf(ctx: Context): Buffer | undefined {
  const body: unknown = ctx.body;
  if (typeof body === 'string') return Buffer.from(body);
  if (Buffer.isBuffer(body)) return body;
  if (body !== null && typeof body === 'object' && typeof (body as { pipe?: unknown }).pipe !== 'function') return Buffer.from(JSON.stringify(body));
  return undefined;
}

export function compressText() {
  const kept = new WeakMap<Buffer, Partial<Record<Encoding, Buffer>>>();
  return async function compress(ctx: Context, next: Next): Promise<void> {
    await next();
    if (!COMPRESSIBLE.test(ctx.response.type || '')) return;
    ctx.vary('Accept-Encoding');
    if (ctx.status === 204 || ctx.status === 304 || ctx.response.get('Content-Encoding') || /\bno-transform\b/.test(ctx.response.get('Cache-Control') ?? '')) return;
    // Brotli whenever accepted (it is smaller); browsers list gzip first but accept both alike.
    const encoding: Encoding | undefined = ctx.acceptsEncodings('br') === 'br' ? 'br' : ctx.acceptsEncodings('gzip') === 'gzip' ? 'gzip' : undefined;
    if (!encoding) return;
    const original = ctx.body;
    const body = bytesOf(ctx);
    if (!body || body.length < MIN_COMPRESSED_BYTES) return;
    let encoded: Buffer;
    if (Buffer.isBuffer(original)) {
      const variants = kept.get(original) ?? {};
      encoded = variants[encoding] ??= await encode(body, encoding, false);
      kept.set(original, variants);
    } else {
      encoded = await encode(body, encoding, true);
    }
    // The Content-Type already set stays: Koa only guesses one for a body that has none.
    ctx.body = encoded;
    ctx.set('Content-Encoding', encoding);
  };
}
