// The session cookie: an opaque random id and nothing else (SPEC 5 rule 2). Written by
// hand rather than through `ctx.cookies` so `Secure` can be set behind a TLS-terminating
// proxy, where the connection to the server itself is plain HTTP.

export const SESSION_COOKIE = 'svc_session';
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface SessionCookieOptions {
  /** Set when the base URL is https. */
  secure: boolean;
  /** Lifetime of the cookie in the browser; the server enforces its own expiry anyway. */
  maxAgeSeconds: number;
}

export function sessionCookie(id: string, opts: SessionCookieOptions): string {
  const parts = [`${SESSION_COOKIE}=${id}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${Math.floor(opts.maxAgeSeconds)}`];
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearedSessionCookie(opts: Pick<SessionCookieOptions, 'secure'>): string {
  const parts = [`${SESSION_COOKIE}=`, 'Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=0', 'Expires=Thu, 01 Jan 1970 00:00:00 GMT'];
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}

/** The session id from a `Cookie` header, or undefined when absent or not shaped like one. */
export function sessionIdFromCookieHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    if (pair.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = pair.slice(eq + 1).trim();
    return SESSION_ID_PATTERN.test(value) ? value : undefined;
  }
  return undefined;
}

/** The value of cookie `name` in a `Cookie` header, as sent (undefined when absent). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}
