// GET/POST /login and POST /logout for the browser: REST's signIn/signOut behind a form.
import type Router from '@koa/router';
import type { Context } from 'koa';
import { loginPage, type IdentityProviderLink } from '../../web/templates/login.js';
import { HttpError } from '../../koa/errors.js';
import { sessionIdFromCookieHeader } from '../auth/cookie.js';
import type { ClientAddressState } from '../http/client-address.js';
import { signIn, signOut, sessionCookieOf, type SessionRouteDeps } from '../api/session.js';
import { CSRF_FIELD } from '../../web/templates/layout.js';
import { clearedLoginCsrfCookie, LOGIN_CSRF_REFUSED, loginCsrfHolds, loginCsrfToken } from './login-csrf.js';
import { sameOriginPath, type PageState } from './middleware.js';

export interface LoginPageDeps extends SessionRouteDeps {
  identityProviders: readonly IdentityProviderLink[];
}

type PageContext = Router.RouterContext<PageState>;

function showLogin(ctx: Context, deps: LoginPageDeps, view: { next: string; error?: string; username?: string }, status = 200): void {
  const csrf = deps.localAuth ? loginCsrfToken(ctx, deps.secureCookies) : '';
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = loginPage((ctx.state as PageState).assets, { localAuth: deps.localAuth, providers: deps.identityProviders, csrf, ...view });
}

async function postLogin(ctx: Context, deps: LoginPageDeps): Promise<void> {
  const form = ctx.request.form ?? {};
  const next = sameOriginPath(form.next);
  if (!deps.localAuth) throw new HttpError(404, 'local login is disabled');
  // Checked before the password, and what another site typed is not written back.
  if (!loginCsrfHolds(ctx, form[CSRF_FIELD])) {
    showLogin(ctx, deps, { next, error: LOGIN_CSRF_REFUSED }, 403);
    return;
  }
  const username = form.username ?? '';
  if (!username.trim() || !form.password) {
    showLogin(ctx, deps, { next, username, error: 'Enter your username and password.' }, 400);
    return;
  }
  try {
    const { clientAddress } = ctx.state as ClientAddressState;
    const { id } = await signIn(deps, { username, password: form.password, clientAddress, previousCookie: ctx.get('Cookie'), via: 'web' });
    ctx.set('Set-Cookie', [sessionCookieOf(deps, id), clearedLoginCsrfCookie(deps.secureCookies)]);
    ctx.redirect(next);
  } catch (err) {
    // Wrong password, unknown user, throttled: the message never says whether the user exists.
    if (err instanceof HttpError && (err.status === 401 || err.status === 429)) {
      if (err.headers['Retry-After']) ctx.set('Retry-After', err.headers['Retry-After']);
      showLogin(ctx, deps, { next, username, error: err.status === 401 ? 'Invalid username or password.' : err.message }, err.status);
      return;
    }
    throw err;
  }
}

/** Public: the sign-in page and its form. Someone already signed in is sent on. */
export function mountLoginPages(router: Router<PageState>, deps: LoginPageDeps): void {
  router.get('/login', async (ctx) => {
    const next = sameOriginPath(ctx.query.next);
    const id = sessionIdFromCookieHeader(ctx.get('Cookie'));
    if (id && (await deps.sessions.lookup(id, deps.now()))) {
      ctx.redirect(next);
      return;
    }
    showLogin(ctx, deps, { next });
  });
  router.post('/login', (ctx) => postLogin(ctx, deps));
}

/** Behind authentication and the CSRF check. */
export function mountLogoutPage(router: Router<PageState>, deps: SessionRouteDeps): void {
  router.post('/logout', async (ctx: PageContext) => {
    ctx.set('Set-Cookie', await signOut(deps, ctx.state.credential));
    ctx.redirect('/login');
  });
}
