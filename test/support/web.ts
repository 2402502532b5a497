// What the web UI's tests share: one build of the assets for the whole test process, a form
// POST and a page GET as a browser sends them, and Chromium driven by playwright-core.
import { chromium, type Browser } from 'playwright-core';
import { AssetStore } from '../../server/pages/assets.js';

export const SHARED_ASSETS = new AssetStore();

export const CHROMIUM_PATH = process.env.DEN_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Debian's Chromium, headless (`npx playwright install` cannot work here). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export interface PageAnswer {
  status: number;
  text: string;
  headers: Headers;
  location: string | null;
}

/** A GET or urlencoded POST without following redirects, with an optional cookie. */
export async function fetchPage(url: string, opts: { cookie?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<PageAnswer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.cookie) headers.Cookie = opts.cookie;
  let body: string | undefined;
  if (opts.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  }
  const res = await fetch(url, { method: opts.form ? 'POST' : 'GET', headers, body, redirect: 'manual' });
  return { status: res.status, text: await res.text(), headers: res.headers, location: res.headers.get('location') };
}

/** What a browser holds after GET /login: the pre-session CSRF cookie and the token its sign-in form carries. */
export async function openLoginForm(base: string): Promise<{ cookie: string; csrf: string }> {
  const page = await fetchPage(`${base}/login`);
  const cookie = page.headers.getSetCookie().find((c) => c.startsWith('svc_login_csrf='))?.split(';')[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  if (!cookie || !csrf) throw new Error(`GET /login gave no sign-in CSRF cookie and token (${page.status})`);
  return { cookie, csrf };
}

/** The sign-in form posted as the browser posts it: from the page of `openLoginForm`, with its cookie and token. */
export async function postLoginForm(base: string, fields: { username: string; password: string; next?: string }): Promise<PageAnswer> {
  const { cookie, csrf } = await openLoginForm(base);
  return fetchPage(`${base}/login`, { cookie, form: { _csrf: csrf, next: '/', ...fields }, headers: { 'Sec-Fetch-Site': 'same-origin' } });
}
