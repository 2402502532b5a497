// SPEC 4.7 and 5 "Identity-provider login": GET /login/{provider} sends the browser to the
// provider with a one-time challenge kept as cluster state; GET /callback/{provider} takes the
// challenge, has the provider vouch for a verified e-mail, and signs the owner of that e-mail's
// UserSpace in with the same cookie session as a password login. Every refusal is a page with a
// 4xx (502 when the provider cannot be reached), and leaves no session and no challenge behind;
// the web UI's error pages (server/pages/middleware.ts pageErrors) show it.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { randomPKCECodeVerifier, randomNonce } from 'openid-client';
import type { Log } from '../../process/role.js';
import { audit, AUDIT_ACTS } from '../../process/audit.js';
import { cookieValue, httpOnlyCookie, sessionCookie, sessionIdFromCookieHeader } from '../auth/cookie.js';
import type { UserSpaceDirectory } from '../auth/directory.js';
import { TooManyChallengesError, type LoginChallengeStore } from '../auth/login-challenges.js';
import { LoginRefused } from '../auth/providers/refusals.js';
import type { IdentityProviders } from '../auth/providers/registry.js';
import { constantTimeEqual, randomSecret } from '../auth/secrets.js';
import type { SessionStore } from '../auth/sessions.js';
import { AttemptCounter, type ThrottlePolicy } from '../auth/throttle.js';
import type { ClientAddressState } from '../http/client-address.js';
import { HttpError } from '../../koa/errors.js';
import { sameOriginPath, type PageState } from './middleware.js';

/** Ties a sign-in to the browser that started it, so nobody can make a victim finish theirs (login CSRF). */
export const LOGIN_STATE_COOKIE = 'svc_login';

export interface ProviderLoginDeps {
  /** `--base-url`: the redirect URI is `<baseUrl>/callback/<provider>`. */
  baseUrl: string;
  secureCookies: boolean;
  providers: IdentityProviders;
  challenges: LoginChallengeStore;
  sessions: SessionStore;
  directory: UserSpaceDirectory;
  log: Log;
  now: () => number;
}

/**
 * Each started sign-in is a Secret until it is finished or expires, so one client address may
 * start only a few at a time: past them, further starts wait a window that doubles with each.
 * A finished sign-in gives its start back. The overall cap (MAX_OPEN_CHALLENGES) stays behind it.
 */
export const SIGN_IN_STARTS_PER_ADDRESS: ThrottlePolicy = {
  freeFailures: 20,
  baseLockMs: 1_000,
  maxLockMs: 10 * 60_000,
  forgetAfterMs: 10 * 60_000,
  maxEntries: 10_000,
};

function loginStateCookie(value: string, provider: string, deps: Pick<ProviderLoginDeps, 'secureCookies'>, maxAgeSeconds: number): string {
  return httpOnlyCookie(LOGIN_STATE_COOKIE, value, { path: `/callback/${provider}`, maxAgeSeconds, secure: deps.secureCookies });
}

/** One query parameter given at most once; anything else in the query is refused. */
function singleParams(ctx: Context, allowed: readonly string[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(ctx.query)) {
    if (!allowed.includes(key)) throw new LoginRefused(400, `the address has an unknown parameter ${key.slice(0, 40)}`);
    if (Array.isArray(value)) throw new LoginRefused(400, `the address gives ${key} more than once`);
    out[key] = value;
  }
  return out;
}

/**
 * The refusal as the error page shows it; the reason is logged, so an administrator can tell
 * why someone could not sign in. Failures of Den itself go on to the error pages as they are.
 */
function refusal(err: unknown, deps: ProviderLoginDeps, provider: string, client: string): unknown {
  if (err instanceof TooManyChallengesError) err = new HttpError(503, 'too many sign-ins are in progress right now; try again in a few minutes', { 'Retry-After': '60' });
  if (err instanceof LoginRefused) err = new HttpError(err.status, err.message);
  if (err instanceof HttpError) audit(deps.log, AUDIT_ACTS.signIn, { outcome: 'failure', method: provider.slice(0, 40), client, via: 'web', status: err.status, reason: err.message });
  return err;
}

function clientOf(ctx: Context): string {
  return (ctx.state as Partial<ClientAddressState>).clientAddress ?? ctx.req.socket.remoteAddress ?? '';
}

async function startLogin(ctx: Context, deps: ProviderLoginDeps, starts: AttemptCounter, name: string): Promise<void> {
  const provider = deps.providers.get(name);
  if (!provider) throw new LoginRefused(404, `there is no sign-in option named ${name.slice(0, 40)}`);
  const address = (ctx.state as Partial<ClientAddressState>).clientAddress ?? ctx.req.socket.remoteAddress ?? '';
  const waitMs = starts.retryAfterMs(address, deps.now());
  if (waitMs > 0) {
    throw new HttpError(429, 'too many sign-ins were started from your address; wait a little and try again', { 'Retry-After': String(Math.ceil(waitMs / 1000)) });
  }
  // Anywhere but a path on this site is the dashboard, as for the sign-in form: no open redirect.
  const next = sameOriginPath(singleParams(ctx, ['next']).next);
  const state = randomSecret(32);
  const nonce = randomNonce();
  const codeVerifier = randomPKCECodeVerifier();
  const redirectUri = `${deps.baseUrl}/callback/${name}`;
  // The address first: a provider that cannot be reached leaves no challenge behind.
  const url = await provider.authorizationUrl({ redirectUri, state, nonce, codeVerifier });
  await deps.challenges.create({ state, provider: name, nonce, codeVerifier, next }, deps.now());
  starts.add(address, deps.now());
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Set-Cookie', loginStateCookie(state, name, deps, 600));
  ctx.redirect(url.href);
}

async function finishLogin(ctx: Context, deps: ProviderLoginDeps, starts: AttemptCounter, name: string): Promise<void> {
  const provider = deps.providers.get(name);
  if (!provider) throw new LoginRefused(404, `there is no sign-in option named ${name.slice(0, 40)}`);
  const { label } = provider.config;
  // Whatever happens next, this browser's pending sign-in with this provider is over.
  ctx.set('Set-Cookie', loginStateCookie('', name, deps, 0));
  const params = singleParams(ctx, ['code', 'state', 'error', 'error_description', 'error_uri', 'iss', 'scope', 'session_state', 'authuser', 'hd', 'prompt']);
  const state = params.state;
  if (!state) throw new LoginRefused(400, `${label} sent you back without the sign-in state; start again from the sign-in page`);
  const bound = cookieValue(ctx.get('Cookie'), LOGIN_STATE_COOKIE);
  if (!bound || !constantTimeEqual(bound, state)) {
    throw new LoginRefused(400, 'this sign-in was not started in this browser, or was started again since; start again from the sign-in page');
  }
  const taken = await deps.challenges.take(state, name, deps.now());
  if (!taken.ok) {
    throw new LoginRefused(400, taken.reason === 'expired' ? 'the sign-in took longer than 10 minutes; start again from the sign-in page' : 'this sign-in link was already used or is not valid; start again from the sign-in page');
  }
  const { challenge } = taken;
  // The challenge is gone, so its start no longer holds anything of this address's.
  starts.takeBack((ctx.state as Partial<ClientAddressState>).clientAddress ?? ctx.req.socket.remoteAddress ?? '');
  if (params.error) {
    const said = (params.error_description ?? params.error).replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 200);
    throw new LoginRefused(401, `${label} did not sign you in: ${said}`);
  }
  const callbackUrl = new URL(`${deps.baseUrl}/callback/${name}`);
  callbackUrl.search = ctx.querystring;
  const email = await provider.verifiedEmail({ callbackUrl, redirectUri: `${deps.baseUrl}/callback/${name}`, state, nonce: challenge.nonce, codeVerifier: challenge.codeVerifier });
  const membership = await deps.directory.resolveEmail(email);
  const previous = sessionIdFromCookieHeader(ctx.get('Cookie'));
  if (previous) {
    const old = await deps.sessions.lookup(previous, deps.now());
    if (old) await deps.sessions.destroy(old);
  }
  const { id } = await deps.sessions.create({ owner: membership.owner, method: 'provider', provider: name }, deps.now());
  audit(deps.log, AUDIT_ACTS.signIn, { outcome: 'success', method: name, person: membership.owner, userspace: membership.userspace, client: clientOf(ctx), via: 'web' });
  ctx.append('Set-Cookie', sessionCookie(id, { secure: deps.secureCookies, maxAgeSeconds: deps.sessions.policy.absoluteMs / 1000 }));
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(challenge.next);
}

export function mountProviderLogin(router: Router<PageState>, deps: ProviderLoginDeps): void {
  const starts = new AttemptCounter(SIGN_IN_STARTS_PER_ADDRESS);
  router.get('/login/:provider', async (ctx) => {
    try {
      await startLogin(ctx, deps, starts, ctx.params.provider!);
    } catch (err) {
      throw refusal(err, deps, ctx.params.provider!, clientOf(ctx));
    }
  });
  router.get('/callback/:provider', async (ctx) => {
    try {
      await finishLogin(ctx, deps, starts, ctx.params.provider!);
    } catch (err) {
      throw refusal(err, deps, ctx.params.provider!, clientOf(ctx));
    }
  });
}
