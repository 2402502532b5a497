// The web UI (SPEC 4.7) as one middleware of the app: every path outside /api/v1 and the
// health checks. Order: security headers, error pages, /assets, readiness, form body, public
// pages (/login), authentication (a stranger goes to /login?next=…), the CSRF field, pages.
import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { isDns1123Subdomain } from '../../kube/names.js';
import { HttpError } from '../../koa/errors.js';
import { serveAssets } from './assets.js';
import type { PageDeps, PageRouter } from './types.js';
import { authenticatePage, compose, pageErrors, pageHeaders, readFormBody, requireFormCsrf, withAssets, type PageState } from './middleware.js';
import { mountProviderLogin } from './provider-login.js';
import { mountLoginPages, mountLogoutPage } from './session.js';
import { mountWorkspacePages } from './workspaces.js';
import { mountPortSharePages } from './port-share.js';
import { mountSchedulePage } from './schedule.js';
import { mountSharePages } from './shares.js';
import { mountCatalogPages } from './catalog.js';
import { mountNewPage } from './new.js';
import { mountProfilePages } from './profile.js';
import { mountAdminPages } from './admin.js';
import { mountActivityPages } from './activity.js';
import { mountCliLogin } from './cli-login.js';
import { CLI_DISTRIBUTION_PATHS } from '../api/cli-distribution.js';

export type { PageContext, PageDeps, PageRouter } from './types.js';

/** Paths REST, the health checks and the den download own; everything else is a page. */
export function isPagePath(path: string): boolean {
  return !(path === '/api' || path.startsWith('/api/') || path === '/healthz' || path === '/readyz' || CLI_DISTRIBUTION_PATHS.includes(path));
}

/** Object names in page paths are checked as REST checks them: a name Kubernetes refuses is a 404 without a cluster call. */
export function checkNameParam(router: PageRouter): void {
  router.param('name', (name, _ctx, next) => {
    if (!isDns1123Subdomain(name)) throw new HttpError(404, `not found: "${name}" is not a valid object name`);
    return next();
  });
}

export function webUi(deps: PageDeps): Middleware {
  const sessionDeps = { ...deps.auth, localAuth: deps.localAuth, secureCookies: deps.secureCookies, now: deps.now, log: deps.log };

  const publicPages: PageRouter = new Router();
  mountLoginPages(publicPages, { ...sessionDeps, identityProviders: deps.providers.choices() });
  mountProviderLogin(publicPages, { ...deps.auth, baseUrl: deps.baseUrl, secureCookies: deps.secureCookies, providers: deps.providers, log: (msg, fields) => deps.log(msg, fields ?? {}), now: deps.now });

  const pages: PageRouter = new Router();
  checkNameParam(pages);
  mountLogoutPage(pages, sessionDeps);
  mountWorkspacePages(pages, deps);
  mountPortSharePages(pages, deps);
  mountSchedulePage(pages, deps);
  mountSharePages(pages, deps);
  mountCatalogPages(pages, deps);
  mountNewPage(pages, deps);
  mountProfilePages(pages, deps);
  mountAdminPages(pages, deps);
  mountActivityPages(pages, deps);
  mountCliLogin(pages, deps);

  const chain = compose([
    pageHeaders(),
    pageErrors(deps.assets, deps.log),
    serveAssets(deps.assets),
    deps.refuseUntilReady,
    withAssets(deps.assets),
    readFormBody(deps.bodyLimitBytes),
    publicPages.routes() as Middleware,
    authenticatePage({ ...deps.auth, serverClient: deps.serverClient, now: deps.now }),
    requireFormCsrf(),
    pages.routes() as Middleware,
  ]);
  return function webUiPages(ctx: Context, next: Next) {
    return isPagePath(ctx.path) ? chain(ctx, async () => undefined) : next();
  };
}
