// Signing in to an app host of host-based previews: Den's `/apps/open` (mints a ticket for an
// app host and sends the browser there), the app host's `/__den/auth` (trades the ticket for
// the app cookie), and the app cookie itself: HttpOnly, host-only on the app's host, named like
// Den's cookies so the proxy never forwards it and no app can set it (headers.ts).
import type http from 'node:http';
import { appOfHost, type AppUrl } from '../../contract/apps-domain.js';
import { HttpError } from '../../koa/errors.js';
import type { AppPassStore } from '../auth/app-passes.js';
import { credentialOf, CredentialRefused, type AuthDeps } from '../auth/authenticate.js';
import { httpOnlyCookie } from '../auth/cookie.js';
import { sameOriginPath } from '../pages/middleware.js';

/** On Den's origin: `?host=<app host>&path=<path in the app>`. */
export const OPEN_APP_PATH = '/apps/open';
/** On an app host: `?ticket=<one-use ticket>`; this path never reaches the app. */
export const APP_AUTH_PATH = '/__den/auth';
export const APP_COOKIE = 'svc_app';

export interface AppPassDeps {
  appPasses: AppPassStore;
}

export function openAppPath(host: string, path: string): string {
  return `${OPEN_APP_PATH}?${new URLSearchParams({ host, path }).toString()}`;
}

export function appPassCookie(value: string, opts: { secure: boolean; maxAgeSeconds: number }): string {
  return httpOnlyCookie(APP_COOKIE, value, { path: '/', ...opts });
}

/**
 * Every app cookie value a `Cookie` header carries: a page of a sibling app host may plant one
 * for the whole apps domain, so each is tried and only one bound to this host counts.
 */
export function appCookieValues(header: string): string[] {
  const values: string[] = [];
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === APP_COOKIE) values.push(pair.slice(eq + 1).trim());
  }
  return values.slice(0, 4);
}

export interface SendToAppHostDeps extends Pick<AuthDeps, 'sessions' | 'tokens' | 'now'>, AppPassDeps {
  /** Den's own origin. */
  origin: string;
  appsDomain: string;
  appUrl: AppUrl | undefined;
}

/**
 * `GET /apps/open?host=<app host>&path=<path>` on Den's origin: the person signed in to Den gets
 * a one-use ticket for that app host and is sent there (302) to trade it for the app's cookie;
 * someone not signed in is sent to sign in first. Throws an HttpError for the page to say.
 */
export async function sendToAppHost(req: http.IncomingMessage, res: http.ServerResponse, deps: SendToAppHostDeps): Promise<void> {
  const url = new URL(req.url ?? '/', deps.origin);
  const hostParam = url.searchParams.get('host') ?? '';
  const app = deps.appsDomain ? appOfHost(hostParam, deps.appsDomain) : undefined;
  const redeemAt = app && deps.appUrl?.(app, APP_AUTH_PATH);
  if (!redeemAt) {
    throw new HttpError(404, deps.appsDomain ? `"${hostParam.slice(0, 200)}" is not the host of an app under ${deps.appsDomain}` : 'host-based app previews are not configured on this Den; use /w/<workspace>/ports/<port>/');
  }
  const cookie = req.headers.cookie ?? '';
  const credential = await credentialOf({ get: (name) => (name.toLowerCase() === 'cookie' ? cookie : '') }, deps).catch((err: unknown) => {
    if (err instanceof CredentialRefused) return undefined;
    throw err;
  });
  if (credential?.kind !== 'cookie') {
    res.writeHead(302, { Location: `/login?next=${encodeURIComponent(sameOriginPath(req.url))}`, 'Cache-Control': 'no-store' }).end();
    return;
  }
  const next = sameOriginPath(url.searchParams.get('path') ?? '/');
  const ticket = await deps.appPasses.mintTicket({ session: credential.session.secretName, host: new URL(redeemAt).hostname, next }, deps.now());
  res.writeHead(302, { Location: `${redeemAt}?ticket=${ticket}`, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).end();
}

/** `/__den/auth?ticket=…` on an app host (`url`): the ticket, used once, becomes this host's app cookie (303 to where it said). */
export async function redeemTicket(req: http.IncomingMessage, res: http.ServerResponse, url: URL, deps: AppPassDeps & Pick<AuthDeps, 'now'> & { https: boolean }): Promise<void> {
  if (req.method !== 'GET') throw new HttpError(405, `${APP_AUTH_PATH} only answers GET`);
  const redeemed = await deps.appPasses.redeem(url.searchParams.get('ticket') ?? '', url.hostname, deps.now());
  if (!redeemed.ok) throw new HttpError(403, redeemed.reason);
  res.writeHead(303, {
    Location: redeemed.next,
    'Set-Cookie': appPassCookie(redeemed.cookie, { secure: deps.https, maxAgeSeconds: deps.appPasses.policy.cookieTtlMs / 1000 }),
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
  }).end();
}
