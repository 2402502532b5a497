// Headers every answer carries: no sniffing, no framing, no referrer, and for the JSON
// API no caching (answers are per person) and a CSP that allows nothing.
import type { Context, Next } from 'koa';

export function securityHeaders(opts: { https: boolean }) {
  return async function setSecurityHeaders(ctx: Context, next: Next): Promise<void> {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (opts.https) ctx.set('Strict-Transport-Security', 'max-age=31536000');
    if (ctx.path.startsWith('/api/')) {
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    }
    await next();
  };
}
