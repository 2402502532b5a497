// The addresses and the cookie of host-based previews: Den's `/apps/open` (mints a ticket for
// an app host and sends the browser there), the app host's `/__den/auth` (trades the ticket
// for the app cookie), and the app cookie itself: HttpOnly, host-only on the app's host, named
// like Den's cookies so the proxy never forwards it and no app can set it (headers.ts).
import type { AppPassStore } from '../auth/app-passes.js';
import { httpOnlyCookie } from '../auth/cookie.js';

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
