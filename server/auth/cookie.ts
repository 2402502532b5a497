// The session cookie: an opaque random id and nothing else (SPEC 5 rule 2). Written by
// hand rather than through `ctx.cookies` so `Secure` can be set behind a TLS-terminating
// proxy, where the connection to the server itself is plain HTTP.

export const SESSION_COOKIE = 'svc_session';
/** Every cookie Den sets starts with this (svc_session, svc_login, svc_login_csrf, svc_notice). */
export const DEN_COOKIE_PREFIX = 'svc_';

export function isDenCookie(name: string): boolean {
  return name.startsWith(DEN_COOKIE_PREFIX);
}
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface SessionCookieOptions {
  /** Set when the base URL is https. */
  secure: boolean;
  /** Lifetime of the cookie in the browser; the server enforces its own expiry anyway. */
  maxAgeSeconds: number;
}

/**
 * A `Set-Cookie` value for one of Den's cookies: always HttpOnly and SameSite=Lax, `Secure`
 * when the base URL is https; a Max-Age of 0 (with `expires`) removes it.
 */
export function httpOnlyCookie(name: string, value: string, opts: { path: string; maxAgeSeconds: number; secure: boolean; expired?: boolean }): string {
  const parts = [`${name}=${value}`, `Path=${opts.path}`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${Math.floor(opts.maxAgeSeconds)}`];
  if (opts.expired) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}

export function sessionCookie(id: string, opts: SessionCookieOptions): string {
  return httpOnlyCookie(SESSION_COOKIE, id, { path: '/', maxAgeSeconds: opts.maxAgeSeconds, secure: opts.secure });
}

export function clearedSessionCookie(opts: Pick<SessionCookieOptions, 'secure'>): string {
  return httpOnlyCookie(SESSION_COOKIE, '', { path: '/', maxAgeSeconds: 0, secure: opts.secure, expired: true });
}

/** The session id from a `Cookie` header, or undefined when absent or not shaped like one. */
export function sessionIdFromCookieHeader(header: string | undefined): string | undefined {
  const value = cookieValue(header, SESSION_COOKIE);
  return value !== undefined && SESSION_ID_PATTERN.test(value) ? value : undefined;
}

/** The value of cookie `name` in a `Cookie` header, as sent (undefined when absent). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}
