// The Koa application of `den server`, separate from the listening server so tests drive
// it over a loopback port. Middleware order: port previews (server/preview), compression of text answers, body-size limit, client address, the web UI
// (every path outside /api and the health checks: server/pages/index.ts), then for REST: error
// mapper, security headers, JSON body, public routes, authentication, CSRF, authenticated routes.
import Router from '@koa/router';
import Koa from 'koa';
import type { Log } from '../process/role.js';
import type { KubeClient } from '../kube/client.js';
import { mountPublicRoutes, mountResourceRoutes, type ResourceDeps } from './api/routes.js';
import { authenticate, type CoreState } from './auth/authenticate.js';
import { requireCsrfToken } from './auth/csrf.js';
import { IdentityProviders } from './auth/providers/registry.js';
import type { AuthServices } from './auth/services.js';
import { DEFAULT_BODY_LIMIT, readJsonBody, refuseOversizedBodies } from '../koa/body.js';
import type { AuthenticatedState } from './http/context.js';
import { identifyClient, TrustedProxies } from './http/client-address.js';
import { errorMapper, HttpError } from '../koa/errors.js';
import { compressText } from './http/compress.js';
import { securityHeaders } from './http/security-headers.js';
import { mountLocalUserRoutes } from './api/local-users.js';
import { mountProfileRoutes } from './api/profile.js';
import { mountPersonalRoutes } from './api/personal.js';
import { mountLogin, mountSessionRoutes } from './api/session.js';
import { mountTokenRoutes } from './api/tokens.js';
import { AssetStore } from './pages/assets.js';
import { webUi } from './pages/index.js';
import { Registry } from 'prom-client';
import { HttpMetrics } from './metrics.js';
import { PreviewProxy } from './preview/proxy.js';
import { servePreviews } from './preview/middleware.js';
import { appUrlsOf } from '../contract/apps-domain.js';
import { denVersion } from '../process/version.js';
import { CliPackage } from './cli/bundle.js';
import { serveCliDistribution } from './api/cli-distribution.js';

export const API_PREFIX = '/api/v1';

export interface AppConfig {
  /** `--base-url`: an https URL makes cookies `Secure` and turns on HSTS. */
  baseUrl: string;
  /** `--local-auth`: local users may sign in, and administrators may manage them. */
  localAuth: boolean;
  /** `--trusted-proxies`: only from these does X-Forwarded-For name the client (none by default). */
  trustedProxies?: readonly string[];
  bodyLimitBytes?: number;
  /** `--gateway-port`: where people reach den gateway, for the commands the pages offer (default 22). */
  gatewayPort?: number;
  /** `--apps-domain`: host-based app previews under it; none when absent or empty. */
  appsDomain?: string;
  /** `--apps-allow-public-ports`: a port may be shared with anyone, no sign-in (host-based only). */
  allowPublicPorts?: boolean;
}

export interface AppDeps {
  config: AppConfig;
  /** The server's own client: bookkeeping and minting only. */
  serverClient: KubeClient;
  auth: AuthServices;
  /** Everything but the share cache, which comes from `auth`. */
  resources: Omit<ResourceDeps, 'sharesNaming'>;
  /** Identity providers people may sign in with: buttons on /login, /login/<name>, /callback/<name>. None by default. */
  providers?: IdentityProviders;
  log: Log;
  /** `/readyz` answers 200 only when this is true (caches synced, listening). */
  ready: () => boolean;
  now?: () => number;
  /** The web UI's scripts and styles; built on first use unless given (`den server` builds them before it listens). */
  assets?: AssetStore;
  /** Request figures; an app of its own (tests) counts into a registry nobody scrapes. */
  httpMetrics?: HttpMetrics;
  /** The den laptops install from /cli/den.tgz; built on first use unless given (`den server` builds it before it listens). */
  cli?: CliPackage;
  /** This Den's version (/api/v1/version); package.json's unless given. */
  version?: string;
  /** The port preview proxy (`/w/<name>/ports/<port>/…`); its websockets are routed by server/http/upgrades.ts. One of its own unless given. */
  previews?: PreviewProxy;
}

/** The preview proxy an app serves when it is given none. */
export function previewProxyOf(deps: Pick<AppDeps, 'config' | 'auth' | 'serverClient' | 'log' | 'ready' | 'now' | 'assets'>): PreviewProxy {
  return new PreviewProxy({ ...deps.auth, serverClient: deps.serverClient, baseUrl: deps.config.baseUrl, appsDomain: deps.config.appsDomain, allowPublicPorts: deps.config.allowPublicPorts ?? false, assets: deps.assets ?? new AssetStore(), log: deps.log, ready: deps.ready, now: deps.now ?? Date.now });
}

function healthRoutes(ready: () => boolean): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', (ctx) => {
    ctx.status = ready() ? 200 : 503;
    ctx.body = ready() ? { status: 'ready' } : { error: 'not ready: caches are still loading' };
  });
  return router;
}

/** Until the caches hold their first list, nobody could be recognised: say so instead of 401/403. */
function refuseUntilReady(ready: () => boolean): Koa.Middleware {
  return async function untilReady(_ctx, next): Promise<void> {
    if (!ready()) throw new HttpError(503, 'the server is starting; retry shortly', { 'Retry-After': '2' });
    await next();
  };
}

export function createApp(deps: AppDeps): Koa {
  const now = deps.now ?? Date.now;
  const { config, auth } = deps;
  const limit = config.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const https = config.baseUrl.startsWith('https:');
  const routeDeps = { ...auth, localAuth: config.localAuth, secureCookies: https, now, log: deps.log };
  const resources: ResourceDeps = { serverClient: deps.serverClient, ...deps.resources, sharesNaming: auth.sharesNaming, appUrl: appUrlsOf(config.appsDomain, config.baseUrl), allowPublicPorts: Boolean(config.appsDomain && config.allowPublicPorts) };

  const publicApi = new Router({ prefix: API_PREFIX });
  mountLogin(publicApi, routeDeps);
  mountPublicRoutes(publicApi);

  const coreApi = new Router<CoreState>({ prefix: API_PREFIX });
  mountSessionRoutes(coreApi, routeDeps);
  mountTokenRoutes(coreApi, routeDeps);
  mountProfileRoutes(coreApi, routeDeps);
  mountPersonalRoutes(coreApi);
  mountLocalUserRoutes(coreApi, routeDeps);

  const resourceApi = new Router<AuthenticatedState>({ prefix: API_PREFIX });
  mountResourceRoutes(resourceApi, resources);

  const untilReady = refuseUntilReady(deps.ready);
  const pages = webUi({
    auth,
    serverClient: deps.serverClient,
    resources,
    localAuth: config.localAuth,
    secureCookies: https,
    baseUrl: config.baseUrl,
    providers: deps.providers ?? new IdentityProviders([]),
    assets: deps.assets ?? new AssetStore(),
    bodyLimitBytes: limit,
    gatewayPort: config.gatewayPort ?? 22,
    log: (msg, fields) => deps.log(msg, fields),
    refuseUntilReady: untilReady,
    now,
  });

  const trusted = new TrustedProxies(config.trustedProxies ?? []);
  const app = new Koa();
  app.use((deps.httpMetrics ?? new HttpMetrics(new Registry())).middleware());
  // Previews carry the apps' own bodies and headers: before Den's body limit and headers.
  app.use(servePreviews(deps.previews ?? previewProxyOf(deps), trusted));
  app.use(compressText());
  app.use(refuseOversizedBodies(limit));
  app.use(identifyClient(trusted));
  app.use(securityHeaders({ https }));
  // Every path outside /api/v1 and the health checks is a page, with its own error pages.
  app.use(pages);
  app.use(errorMapper((msg, fields) => deps.log(msg, fields)));
  app.use(healthRoutes(deps.ready).routes());
  const version = deps.version ?? denVersion();
  app.use(serveCliDistribution({ baseUrl: config.baseUrl, version, cli: deps.cli ?? new CliPackage(version) }));
  app.use(untilReady);
  app.use(readJsonBody(limit));
  app.use(publicApi.routes());
  app.use(authenticate({ ...auth, serverClient: deps.serverClient, now }));
  app.use(requireCsrfToken());
  app.use(coreApi.routes() as Koa.Middleware);
  app.use(resourceApi.routes() as Koa.Middleware);
  return app;
}
