// The server's figures: every HTTP request by route template, method and status, and the
// minted-token cache (hits, misses) with the TokenRequests behind the misses.
import type Koa from 'koa';
import { Histogram, type Registry } from 'prom-client';

export class HttpMetrics {
  readonly duration: Histogram<'route' | 'method' | 'status'>;

  constructor(registry: Registry) {
    this.duration = new Histogram({
      name: 'den_http_request_duration_seconds',
      help: 'REST and page requests by route template (/api/v1/workspaces/:name), method and status.',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  }

  /** First in the chain: times the request and labels it once the router has matched a route. */
  middleware(): Koa.Middleware {
    const duration = this.duration;
    return async function timeRequests(ctx, next): Promise<void> {
      const end = duration.startTimer();
      let status: number | undefined;
      try {
        await next();
      } catch (err) {
        status = (err as { status?: number }).status ?? 500;
        throw err;
      } finally {
        // Route templates, never raw paths: a label per workspace name would grow without bound.
        const matched = (ctx as Koa.Context & { _matchedRoute?: string | RegExp })._matchedRoute;
        const route = typeof matched === 'string' ? matched : ctx.path.startsWith('/api/') ? 'unmatched' : 'page';
        end({ route, method: methodLabel(ctx.method), status: String(status ?? ctx.status) });
      }
    };
  }
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'other';
}
