// A one-time notice carried across a redirect (POST, then the page it leads to): an HttpOnly
// cookie scoped to that page's path, read and cleared by the page's next GET. The text is
// Den's own words with the cluster's reason; it is escaped when shown like everything else.
import type { Context } from 'koa';
import { cookieValue, httpOnlyCookie } from '../auth/cookie.js';

export const NOTICE_COOKIE = 'svc_notice';
const MAX_NOTICE_CHARS = 600;

function noticeCookie(path: string, value: string, secure: boolean, maxAgeSeconds: number): string {
  return httpOnlyCookie(NOTICE_COOKIE, value, { path, maxAgeSeconds, secure });
}

/** Leaves `message` for the next GET of `path` (within a minute). */
export function leaveNotice(ctx: Context, path: string, message: string, secure: boolean): void {
  const text = message.length > MAX_NOTICE_CHARS ? `${message.slice(0, MAX_NOTICE_CHARS - 1)}…` : message;
  ctx.append('Set-Cookie', noticeCookie(path, Buffer.from(text, 'utf8').toString('base64url'), secure, 60));
}

/** The notice left for this page, if any, cleared so a reload does not show it again. */
export function takeNotice(ctx: Context, secure: boolean): string | undefined {
  const raw = cookieValue(ctx.get('Cookie'), NOTICE_COOKIE);
  if (raw === undefined) return undefined;
  ctx.append('Set-Cookie', noticeCookie(ctx.path, '', secure, 0));
  if (!/^[A-Za-z0-9_-]{1,1200}$/.test(raw)) return undefined;
  return Buffer.from(raw, 'base64url').toString('utf8').replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, MAX_NOTICE_CHARS);
}
