// The den this server matches, for anyone to install (nothing here is secret, and nothing needs
// a session): GET/HEAD /cli/install.sh (the POSIX sh piped from curl), /cli/den.tgz (the
// npm package it downloads) and /api/v1/version (what `den version` compares). Each answer has a
// strong ETag and `Cache-Control: no-cache, no-transform`, so a client revalidates cheaply (304) and an
// upgraded server is seen at once. Mounted before authentication, CSRF and readiness.
import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { CliPackage } from '../cli/bundle.js';
import { installScript } from '../cli/install-script.js';

export const INSTALL_SCRIPT_PATH = '/cli/install.sh';
export const CLI_TARBALL_PATH = '/cli/den.tgz';
export const VERSION_PATH = '/api/v1/version';

/** Paths this router owns outside /api: the web UI passes them on. */
export const CLI_DISTRIBUTION_PATHS: readonly string[] = [INSTALL_SCRIPT_PATH, CLI_TARBALL_PATH];

/** The command a person runs to install den from this Den. */
export function installCommand(baseUrl: string): string {
  return `curl -fsSL ${baseUrl.replace(/\/+$/, '')}${INSTALL_SCRIPT_PATH} | sh`;
}

/** The npm alternative. */
export function npmInstallCommand(baseUrl: string): string {
  return `npm install -g ${baseUrl.replace(/\/+$/, '')}${CLI_TARBALL_PATH}`;
}

function send(ctx: Context, body: Buffer | string, type: string, extra: Record<string, string> = {}): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  // no-transform: the bytes sent are the bytes the ETag names (the compression step leaves them alone).
  ctx.set('Cache-Control', 'public, no-cache, no-transform');
  for (const [name, value] of Object.entries(extra)) ctx.set(name, value);
  ctx.etag = createHash('sha256').update(bytes).digest('base64url');
  ctx.type = type;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = bytes;
}

/** The three answers; any other method on their paths is a 405 naming GET and HEAD, before any sign-in is asked for. */
export function serveCliDistribution(deps: { baseUrl: string; version: string; cli: CliPackage }): Middleware {
  const router = cliDistributionRoutes(deps);
  const routes = router.routes() as Middleware;
  const paths = new Set([...CLI_DISTRIBUTION_PATHS, VERSION_PATH]);
  // `.router` as koa-router's own middleware carries it: what lists the app's routes finds these.
  return Object.assign(async function cliDistribution(ctx: Context, next: Next) {
    if (!paths.has(ctx.path)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = { error: `${ctx.path} answers GET and HEAD only, not ${ctx.method}` };
      return;
    }
    return routes(ctx, next);
  }, { router });
}

function cliDistributionRoutes(deps: { baseUrl: string; version: string; cli: CliPackage }): Router {
  const router = new Router();
  let script: Promise<string> | undefined;
  const scriptText = () =>
    (script ??= deps.cli.load().then((built) => installScript({ baseUrl: deps.baseUrl, version: built.version, sha256: built.sha256 })));
  router.get(INSTALL_SCRIPT_PATH, async (ctx) => {
    send(ctx, await scriptText(), 'text/plain; charset=utf-8');
  });
  router.get(CLI_TARBALL_PATH, async (ctx) => {
    const built = await deps.cli.load();
    send(ctx, built.tarball, 'application/gzip', { 'Content-Disposition': `attachment; filename="den-${built.version}.tgz"` });
  });
  router.get(VERSION_PATH, (ctx) => {
    send(ctx, JSON.stringify({ version: deps.version }), 'application/json; charset=utf-8');
  });
  return router;
}
