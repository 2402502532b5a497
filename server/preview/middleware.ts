// The preview proxy as the first stop of den server's Koa app: a preview path is answered by
// the proxy on the raw request and response (its own body limit, no JSON or form parsing,
// the app's own headers), every other path goes on to Den.
import type { Context, Middleware, Next } from 'koa';
import { clientAddress, type TrustedProxies } from '../http/client-address.js';
import { isPreviewPath } from './address.js';
import type { PreviewProxy } from './proxy.js';

export function servePreviews(proxy: PreviewProxy, trusted: TrustedProxies): Middleware {
  return async function preview(ctx: Context, next: Next): Promise<void> {
    if (!isPreviewPath(ctx.path)) return next();
    ctx.respond = false;
    await proxy.serveHttp(ctx.req, ctx.res, clientAddress(ctx.req.socket.remoteAddress, ctx.get('X-Forwarded-For') || undefined, trusted));
  };
}
