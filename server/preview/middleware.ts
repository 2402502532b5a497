// The preview proxy as the first stop of den server's Koa app: a request to an app's own host
// (host-based previews) and a preview path are answered by the proxy on the raw request and
// response (its own body limit, no JSON or form parsing, the app's own headers), and so is
// `/apps/open`, which sends a signed-in person to an app host; every other request goes on to Den.
import type { Context, Middleware, Next } from 'koa';
import { clientAddress, type TrustedProxies } from '../http/client-address.js';
import { isPreviewPath } from './address.js';
import { OPEN_APP_PATH } from './app-host.js';
import type { PreviewProxy } from './proxy.js';

export function servePreviews(proxy: PreviewProxy, trusted: TrustedProxies): Middleware {
  return async function preview(ctx: Context, next: Next): Promise<void> {
    const app = proxy.appOf(ctx.req);
    if (!app && ctx.path === OPEN_APP_PATH && ctx.method === 'GET') {
      ctx.respond = false;
      await proxy.openApp(ctx.req, ctx.res);
      return;
    }
    if (!app && !isPreviewPath(ctx.path)) return next();
    ctx.respond = false;
    const client = clientAddress(ctx.req.socket.remoteAddress, ctx.get('X-Forwarded-For') || undefined, trusted);
    if (app) await proxy.serveAppHost(ctx.req, ctx.res, app, client);
    else await proxy.serveHttp(ctx.req, ctx.res, client);
  };
}
