// SPEC 4.1: POST /login (public), GET /session, POST /logout.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { HttpError } from '../http/errors.js';
import { noQuery, validateBody, validateQuery } from '../http/validate.js';
import type { CoreState } from '../auth/authenticate.js';
import { clearedSessionCookie, sessionCookie, sessionIdFromCookieHeader } from '../auth/cookie.js';
import { CSRF_HEADER } from '../auth/csrf.js';
import type { UserSpaceDirectory } from '../auth/directory.js';
import type { LocalUserStore } from '../auth/local-users.js';
import type { SessionStore } from '../auth/sessions.js';
import type { LoginAttempt, LoginThrottle } from '../auth/throttle.js';
import type { ClientAddressState } from '../http/client-address.js';
import { loginRequest } from './schemas.js';

export interface SessionRouteDeps {
  localAuth: boolean;
  /** `Secure` on the cookie: the base URL is https. */
  secureCookies: boolean;
  sessions: SessionStore;
  localUsers: LocalUserStore;
  directory: UserSpaceDirectory;
  throttle: LoginThrottle;
  now: () => number;
}

const BAD_LOGIN = 'invalid username or password';

/**
 * Refuses a password check when this address failed too often lately, for this username or
 * for any (429, before any password work; the same whether the username exists or not), else
 * counts this one. The caller calls `recordSuccess` when it succeeds.
 */
export function beginPasswordAttempt(throttle: LoginThrottle, attempt: LoginAttempt, now: number): void {
  const waitMs = throttle.retryAfterMs(attempt, now);
  if (waitMs > 0) {
    const seconds = Math.ceil(waitMs / 1000);
    throw new HttpError(429, `too many failed sign-in attempts; retry in ${seconds} s`, { 'Retry-After': String(seconds) });
  }
  throttle.recordAttempt(attempt, now);
}

async function login(ctx: Context, deps: SessionRouteDeps): Promise<void> {
  if (!deps.localAuth) throw new HttpError(404, 'local login is disabled');
  validateQuery(ctx, noQuery);
  const req = validateBody(ctx, loginRequest);
  const username = req.username.trim().toLowerCase();
  const attempt = { username, address: (ctx.state as ClientAddressState).clientAddress };
  beginPasswordAttempt(deps.throttle, attempt, deps.now());
  const user = await deps.localUsers.verify(username, req.password);
  if (!user) throw new HttpError(401, BAD_LOGIN);
  deps.throttle.recordSuccess(attempt);
  // Only now, with the password proven, may the answer say more than "invalid".
  deps.directory.resolve(user.owner);
  const previous = sessionIdFromCookieHeader(ctx.get('Cookie'));
  if (previous) {
    const old = await deps.sessions.lookup(previous, deps.now());
    if (old) await deps.sessions.destroy(old);
  }
  const { id, session } = await deps.sessions.create({ owner: user.owner, method: 'local', username: user.username }, deps.now());
  ctx.set('Set-Cookie', sessionCookie(id, { secure: deps.secureCookies, maxAgeSeconds: deps.sessions.policy.absoluteMs / 1000 }));
  ctx.set(CSRF_HEADER, session.csrfToken);
  ctx.status = 204;
}

function describeSession(ctx: Router.RouterContext<CoreState>): void {
  validateQuery(ctx, noQuery);
  const { caller, credential } = ctx.state;
  ctx.body = {
    email: caller.email,
    userspace: caller.userspace,
    namespace: caller.namespace,
    role: caller.role,
    // A bearer request needs no CSRF token, so it has none.
    csrf_token: credential.kind === 'cookie' ? credential.session.csrfToken : '',
  };
}

async function logout(ctx: Router.RouterContext<CoreState>, deps: SessionRouteDeps): Promise<void> {
  validateQuery(ctx, noQuery);
  const { credential } = ctx.state;
  if (credential.kind !== 'cookie') throw new HttpError(400, 'logout ends cookie sessions only; revoke an API token with DELETE /api/v1/tokens/{name}');
  await deps.sessions.destroy(credential.session);
  ctx.set('Set-Cookie', clearedSessionCookie({ secure: deps.secureCookies }));
  ctx.status = 204;
}

export function mountLogin(router: Router, deps: SessionRouteDeps): void {
  router.post('/login', (ctx) => login(ctx, deps));
}

export function mountSessionRoutes(router: Router<CoreState>, deps: SessionRouteDeps): void {
  router.get('/session', describeSession);
  router.post('/logout', (ctx) => logout(ctx, deps));
}
