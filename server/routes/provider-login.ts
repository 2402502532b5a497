// SPEC 4.7 and 5 "Identity-provider login": GET /login/{provider} sends the browser to the
// provider with a one-time challenge kept as cluster state; GET /callback/{provider} takes the
// challenge, has the provider vouch for a verified e-mail, and signs the owner of that e-mail's
// UserSpace in with the same cookie session as a password login. Every refusal is a page with a
// 4xx (502 when the provider cannot be reached), and leaves no session and no challenge behind.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { randomPKCECodeVerifier, randomNonce } from 'openid-client';
import type { Log } from '../../cli/role.js';
import { KubeApiError, KubeUnavailableError } from '../../kube/errors.js';
import { sessionCookie, sessionIdFromCookieHeader } from '../auth/cookie.js';
import type { UserSpaceDirectory } from '../auth/directory.js';
import { TooManyChallengesError, type LoginChallengeStore } from '../auth/providers/challenges.js';
import { LoginRefused } from '../auth/providers/refusals.js';
import type { IdentityProviders } from '../auth/providers/registry.js';
import { constantTimeEqual, randomSecret } from '../auth/secrets.js';
import type { SessionStore } from '../auth/sessions.js';
import { HttpError } from '../http/errors.js';

/** Ties a sign-in to the browser that started it, so nobody can make a victim finish theirs (login CSRF). */
export const LOGIN_STATE_COOKIE = 'svc_login';
const NEXT_MAX_LENGTH = 2048;

export interface ProviderLoginDeps {
  /** `--base-url`: the redirect URI is `<baseUrl>/callback/<provider>`. */
  baseUrl: string;
  secureCookies: boolean;
  providers: IdentityProviders;
  challenges: LoginChallengeStore;
  sessions: SessionStore;
  directory: UserSpaceDirectory;
  /** Writes a refusal page; the layout comes from the web UI. */
  renderRefusal: (refusal: { status: number; title: string; message: string }) => string;
  log: Log;
  now: () => number;
}

/**
 * `next` as a path on this site, or undefined when it would lead elsewhere (`//host`, `/\host`,
 * a scheme, control characters). Absent means the dashboard.
 */
export function safeNextPath(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return '/';
  if (raw.length > NEXT_MAX_LENGTH || !raw.startsWith('/') || raw.startsWith('//') || /[\u0000-\u001f\u007f\\]/.test(raw)) return undefined;
  const probe = new URL(raw, 'http://den.invalid');
  if (probe.origin !== 'http://den.invalid') return undefined;
  return probe.pathname + probe.search + probe.hash;
}

function basePath(baseUrl: string): string {
  return new URL(baseUrl).pathname.replace(/\/+$/, '');
}

function loginStateCookie(value: string, provider: string, deps: Pick<ProviderLoginDeps, 'baseUrl' | 'secureCookies'>, maxAgeSeconds: number): string {
  const parts = [`${LOGIN_STATE_COOKIE}=${value}`, `Path=${basePath(deps.baseUrl)}/callback/${provider}`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (deps.secureCookies) parts.push('Secure');
  return parts.join('; ');
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
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

const TITLES: Record<number, string> = { 400: 'Sign-in failed', 401: 'Sign-in refused', 403: 'Not allowed to sign in', 404: 'No such sign-in option', 502: 'Provider unreachable', 503: 'Try again shortly' };

function refuse(ctx: Context, deps: ProviderLoginDeps, err: unknown, provider: string): void {
  let status: number;
  let message: string;
  if (err instanceof LoginRefused || err instanceof HttpError) {
    ({ status, message } = err);
  } else if (err instanceof TooManyChallengesError) {
    status = 503;
    message = 'too many sign-ins are in progress right now; try again in a few minutes';
  } else if (err instanceof KubeUnavailableError || (err instanceof KubeApiError && err.status >= 500)) {
    status = 503;
    message = 'Den cannot reach its cluster right now; try again shortly';
  } else {
    status = 500;
    message = 'something went wrong on our side; try again, and tell an administrator if it keeps happening';
  }
  deps.log('provider sign-in refused', { provider, status, reason: status >= 500 ? String((err as Error)?.message ?? err) : message });
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
  ctx.body = deps.renderRefusal({ status, title: TITLES[status] ?? 'Sign-in failed', message });
}

async function startLogin(ctx: Context, deps: ProviderLoginDeps, name: string): Promise<void> {
  const provider = deps.providers.get(name);
  if (!provider) throw new LoginRefused(404, `there is no sign-in option named ${name.slice(0, 40)}`);
  const { next: rawNext } = singleParams(ctx, ['next']);
  const next = safeNextPath(rawNext);
  if (!next) throw new LoginRefused(400, 'next must be a path on this site, such as /w/my-workspace');
  const state = randomSecret(32);
  const nonce = randomNonce();
  const codeVerifier = randomPKCECodeVerifier();
  const redirectUri = `${deps.baseUrl}/callback/${name}`;
  // The address first: a provider that cannot be reached leaves no challenge behind.
  const url = await provider.authorizationUrl({ redirectUri, state, nonce, codeVerifier });
  await deps.challenges.create({ state, provider: name, nonce, codeVerifier, next }, deps.now());
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Set-Cookie', loginStateCookie(state, name, deps, 600));
  ctx.redirect(url.href);
}

async function finishLogin(ctx: Context, deps: ProviderLoginDeps, name: string): Promise<void> {
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
  if (params.error) {
    const said = (params.error_description ?? params.error).replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 200);
    throw new LoginRefused(401, `${label} did not sign you in: ${said}`);
  }
  const callbackUrl = new URL(`${deps.baseUrl}/callback/${name}`);
  callbackUrl.search = ctx.querystring;
  const email = await provider.verifiedEmail({ callbackUrl, redirectUri: `${deps.baseUrl}/callback/${name}`, state, nonce: challenge.nonce, codeVerifier: challenge.codeVerifier });
  const membership = deps.directory.resolveEmail(email);
  const previous = sessionIdFromCookieHeader(ctx.get('Cookie'));
  if (previous) {
    const old = await deps.sessions.lookup(previous, deps.now());
    if (old) await deps.sessions.destroy(old);
  }
  const { id } = await deps.sessions.create({ owner: membership.owner, method: 'provider', provider: name }, deps.now());
  deps.log('signed in with a provider', { provider: name, userspace: membership.userspace });
  ctx.append('Set-Cookie', sessionCookie(id, { secure: deps.secureCookies, maxAgeSeconds: deps.sessions.policy.absoluteMs / 1000 }));
  ctx.set('Cache-Control', 'no-store');
  ctx.redirect(`${basePath(deps.baseUrl)}${challenge.next}`);
}

export function mountProviderLogin(router: Router, deps: ProviderLoginDeps): void {
  router.get('/login/:provider', async (ctx) => {
    try {
      await startLogin(ctx, deps, ctx.params.provider!);
    } catch (err) {
      refuse(ctx, deps, err, ctx.params.provider!);
    }
  });
  router.get('/callback/:provider', async (ctx) => {
    try {
      await finishLogin(ctx, deps, ctx.params.provider!);
    } catch (err) {
      refuse(ctx, deps, err, ctx.params.provider!);
    }
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A refusal page with nothing but text and a link back to the sign-in page. */
export function plainRefusalPage(refusal: { status: number; title: string; message: string }): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(refusal.title)} · Den</title></head><body><main><h1>${escapeHtml(refusal.title)}</h1><p>${escapeHtml(refusal.message)}</p><p><a href="/login">Back to the sign-in page</a></p></main></body></html>`;
}
