// Login CSRF: without it a hostile site could post its own username and password to /login
// from a victim's browser and sign the victim into the attacker's account. Before any session
// exists, the sign-in form carries a random token that must equal the `svc_login_csrf` cookie
// sent with the form (HttpOnly, SameSite=Lax, so another site can neither read it nor have it
// sent with its POST), compared in constant time; and a POST the browser itself marks as coming
// from elsewhere (`Sec-Fetch-Site`) is refused outright.
import type { Context } from 'koa';
import { cookieValue, httpOnlyCookie } from '../auth/cookie.js';
import { constantTimeEqual, randomSecret } from '../auth/secrets.js';

export const LOGIN_CSRF_COOKIE = 'svc_login_csrf';
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** A sign-in page left open longer than this asks to be reloaded. */
const MAX_AGE_SECONDS = 12 * 3600;

export const LOGIN_CSRF_REFUSED =
  'This sign-in form did not come from this Den sign-in page, or it has expired; nobody was signed in. Sign in again with the form below.';

function loginCsrfCookie(value: string, secure: boolean, maxAgeSeconds: number): string {
  return httpOnlyCookie(LOGIN_CSRF_COOKIE, value, { path: '/', maxAgeSeconds, secure });
}

function cookieToken(ctx: Context): string | undefined {
  const value = cookieValue(ctx.get('Cookie'), LOGIN_CSRF_COOKIE);
  return value && TOKEN_PATTERN.test(value) ? value : undefined;
}

/**
 * The token for the sign-in form this response shows: the browser's own when it has one (so
 * two open sign-in tabs both work), else a new one, set as the cookie either way.
 */
export function loginCsrfToken(ctx: Context, secure: boolean): string {
  const token = cookieToken(ctx) ?? randomSecret(32);
  ctx.append('Set-Cookie', loginCsrfCookie(token, secure, MAX_AGE_SECONDS));
  return token;
}

/** True when a sign-in POST carries the token of its browser's cookie and is not marked as cross-site. */
export function loginCsrfHolds(ctx: Context, sent: string | undefined): boolean {
  const site = ctx.get('Sec-Fetch-Site');
  if (site && site !== 'same-origin') return false;
  const expected = cookieToken(ctx);
  return Boolean(expected && sent && constantTimeEqual(sent, expected));
}

/** Once signed in, the sign-in token has done its work. */
export function clearedLoginCsrfCookie(secure: boolean): string {
  return loginCsrfCookie('', secure, 0);
}
