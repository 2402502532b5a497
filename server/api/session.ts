// SPEC 4.1: POST /login (public), GET /session, POST /logout.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { HttpError } from '../../koa/errors.js';
import { noQuery, validateBody, validateQuery } from '../http/validate.js';
import type { CoreState, Credential } from '../auth/authenticate.js';
import { clearedSessionCookie, sessionCookie, sessionIdFromCookieHeader } from '../auth/cookie.js';
import { CSRF_HEADER } from '../auth/csrf.js';
import type { UserSpaceDirectory } from '../auth/directory.js';
import type { LocalUserStore } from '../auth/local-users.js';
import type { Session, SessionStore } from '../auth/sessions.js';
import type { LoginAttempt, LoginThrottle } from '../auth/throttle.js';
import type { ClientAddressState } from '../http/client-address.js';
import { loginRequest } from './account-schemas.js';
import { audit, AUDIT_ACTS, type AuditLog } from '../../process/audit.js';

export interface SessionRouteDeps {
  localAuth: boolean;
  /** `Secure` on the cookie: the base URL is https. */
  secureCookies: boolean;
  sessions: SessionStore;
  localUsers: LocalUserStore;
  directory: UserSpaceDirectory;
  throttle: LoginThrottle;
  now: () => number;
  /** Where sign-ins are audited (process/audit.ts). */
  log: AuditLog;
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

/**
 * Checks a local username and password (throttled) and starts a session, ending the one the
 * browser held before; 401 with the same message whether the username exists or not.
 */
export async function signIn(deps: SessionRouteDeps, input: { username: string; password: string; clientAddress: string; previousCookie?: string; via: 'web' | 'rest' }): Promise<{ id: string; session: Session }> {
  const username = input.username.trim().toLowerCase().slice(0, 253);
  const fields = { method: 'local', username, client: input.clientAddress, via: input.via };
  try {
    const signed = await checkPassword(deps, username, input);
    audit(deps.log, AUDIT_ACTS.signIn, { outcome: 'success', ...fields, person: signed.session.owner });
    return signed;
  } catch (err) {
    if (err instanceof HttpError) audit(deps.log, AUDIT_ACTS.signIn, { outcome: 'failure', ...fields, status: err.status, reason: err.message });
    throw err;
  }
}

async function checkPassword(deps: SessionRouteDeps, username: string, input: { password: string; clientAddress: string; previousCookie?: string }): Promise<{ id: string; session: Session }> {
  if (!deps.localAuth) throw new HttpError(404, 'local login is disabled');
  const attempt = { username, address: input.clientAddress };
  beginPasswordAttempt(deps.throttle, attempt, deps.now());
  const user = await deps.localUsers.verify(username, input.password);
  if (!user) throw new HttpError(401, BAD_LOGIN);
  deps.throttle.recordSuccess(attempt);
  // Only now, with the password proven, may the answer say more than "invalid".
  await deps.directory.resolve(user.owner);
  const previous = sessionIdFromCookieHeader(input.previousCookie);
  if (previous) {
    const old = await deps.sessions.lookup(previous, deps.now());
    if (old) await deps.sessions.destroy(old);
  }
  return deps.sessions.create({ owner: user.owner, method: 'local', username: user.username }, deps.now());
}

/** The Set-Cookie value of a new session. */
export function sessionCookieOf(deps: SessionRouteDeps, id: string): string {
  return sessionCookie(id, { secure: deps.secureCookies, maxAgeSeconds: deps.sessions.policy.absoluteMs / 1000 });
}

async function login(ctx: Context, deps: SessionRouteDeps): Promise<void> {
  if (!deps.localAuth) throw new HttpError(404, 'local login is disabled');
  validateQuery(ctx, noQuery);
  const req = validateBody(ctx, loginRequest);
  const { clientAddress } = ctx.state as ClientAddressState;
  const { id, session } = await signIn(deps, { username: req.username, password: req.password, clientAddress, previousCookie: ctx.get('Cookie'), via: 'rest' });
  ctx.set('Set-Cookie', sessionCookieOf(deps, id));
  ctx.set(CSRF_HEADER, session.csrfToken);
  ctx.status = 204;
}

/** How the session was established: `local` (password), `provider:<name>`, or `token` (bearer). */
export function establishedBy(credential: Credential): string {
  if (credential.kind === 'bearer') return 'token';
  return credential.session.method === 'provider' ? `provider:${credential.session.provider}` : 'local';
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
    auth: establishedBy(credential),
    // A bearer token's own name, so a client holding only the token can revoke it (den logout).
    ...(credential.kind === 'bearer' ? { token_name: credential.token.name } : {}),
  };
}

/** Ends a cookie session and answers the Set-Cookie value that clears the cookie; 400 for a bearer token. */
export async function signOut(deps: SessionRouteDeps, credential: Credential): Promise<string> {
  if (credential.kind !== 'cookie') throw new HttpError(400, 'logout ends cookie sessions only; revoke an API token with DELETE /api/v1/tokens/{name}');
  await deps.sessions.destroy(credential.session);
  return clearedSessionCookie({ secure: deps.secureCookies });
}

async function logout(ctx: Router.RouterContext<CoreState>, deps: SessionRouteDeps): Promise<void> {
  validateQuery(ctx, noQuery);
  ctx.set('Set-Cookie', await signOut(deps, ctx.state.credential));
  ctx.status = 204;
}

export function mountLogin(router: Router, deps: SessionRouteDeps): void {
  router.post('/login', (ctx) => login(ctx, deps));
}

export function mountSessionRoutes(router: Router<CoreState>, deps: SessionRouteDeps): void {
  router.get('/session', describeSession);
  router.post('/logout', (ctx) => logout(ctx, deps));
}
