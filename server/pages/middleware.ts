// The web UI's middleware, one concern each: the pages' security headers, error pages,
// form bodies, cookie authentication that sends a stranger to /login, and the CSRF field
// every form POST carries. REST keeps its own (server/app.ts); pages reuse its authentication.
import type { Context, Middleware, Next } from 'koa';
import { authenticate, CredentialRefused, type AuthDeps, type CoreState } from '../auth/authenticate.js';
import { constantTimeEqual } from '../auth/secrets.js';
import { browserScriptRefusal } from '../auth/csrf.js';
import { describeError, HttpError, type ErrorLogger } from '../../koa/errors.js';
import { readLimited } from '../../koa/body.js';
import { KubeApiError } from '../../kube/errors.js';
import { CSRF_FIELD, errorPage, type Viewer } from '../../web/templates/layout.js';
import type { AssetStore, BuiltAssets } from './assets.js';

/** What every page handler finds on `ctx.state`. */
export interface PageState extends CoreState {
  assets: BuiltAssets;
}

/** The form fields of a POST (`application/x-www-form-urlencoded`); empty for a GET. */
export type FormFields = Record<string, string>;

declare module 'koa' {
  interface Request {
    form?: FormFields;
  }
}

export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** Runs `middleware` in order, as one middleware (what `app.use` does one by one). */
export function compose(middleware: Middleware[]): Middleware {
  return function composed(ctx, next) {
    const run = (i: number): Promise<void> => (i === middleware.length ? next() : Promise.resolve(middleware[i]!(ctx, () => run(i + 1))));
    return run(0);
  };
}

export function pageHeaders() {
  return async function setPageHeaders(ctx: Context, next: Next): Promise<void> {
    ctx.set('Content-Security-Policy', PAGE_CSP);
    // A page another document opens gets a browsing context of its own unless that document is Den's too:
    // an app's script on a path-based preview (whose answers never carry this header) cannot read it.
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    ctx.set('Cache-Control', 'no-store');
    await next();
  };
}

/** The built assets on `ctx.state.assets` for the templates. */
export function withAssets(store: AssetStore) {
  return async function loadAssets(ctx: Context, next: Next): Promise<void> {
    (ctx.state as PageState).assets = await store.load();
    await next();
  };
}

/** The signed-in person as the page header shows them, when there is one. */
export function viewerOf(ctx: Context): Viewer | undefined {
  const { caller, credential } = ctx.state as Partial<PageState>;
  if (!caller || !credential) return undefined;
  return { email: caller.email, role: caller.role, csrf: credential.kind === 'cookie' ? credential.session.csrfToken : '' };
}

/**
 * Every failure becomes a page saying what went wrong: the cluster's message for its refusals
 * (a missing right reads as the cluster's 403), a short one for anything unexpected, which is
 * logged. Never a stack trace.
 */
export function pageErrors(store: AssetStore, logError: ErrorLogger) {
  return async function renderErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new HttpError(404, `there is no page at ${ctx.path}`);
    } catch (err) {
      const { status, message, headers, logged } = describeError(err);
      if (status >= 500 || logged) logError('page failed', { method: ctx.method, path: ctx.path, status, error: String((err as Error)?.message ?? err) });
      ctx.status = status;
      for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
      ctx.type = 'html';
      ctx.body = errorPage(await store.load(), status, message, viewerOf(ctx), status === 403 && err instanceof KubeApiError);
    }
  };
}

/** Parses an urlencoded form body (at most `limit` bytes) into `ctx.request.form`; other bodies are refused. */
export function readFormBody(limit: number) {
  return async function formBody(ctx: Context, next: Next): Promise<void> {
    ctx.request.form = {};
    if (ctx.method === 'POST') {
      const raw = await readLimited(ctx, limit, `the form is larger than ${limit} bytes`);
      if (raw.length > 0) {
        if (!ctx.is('application/x-www-form-urlencoded')) throw new HttpError(415, 'pages accept HTML form submissions only (application/x-www-form-urlencoded)');
        const form: FormFields = {};
        for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) form[k] = v;
        ctx.request.form = form;
      }
    }
    await next();
  };
}

/**
 * A path on this site to return to after signing in: only `/…` paths (not `//host` or `/\host`,
 * which browsers read as another origin), else the dashboard.
 */
export function sameOriginPath(raw: unknown): string {
  if (typeof raw !== 'string' || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return '/';
  if (/[\u0000-\u001f\u007f\\]/.test(raw) || raw.length > 2048) return '/';
  return raw;
}

export function loginRedirect(ctx: Context): string {
  const target = ctx.method === 'GET' ? ctx.originalUrl : '/';
  return `/login?next=${encodeURIComponent(sameOriginPath(target))}`;
}

/**
 * REST's authentication (server/auth/authenticate.ts) for pages: someone without a live session
 * is sent to /login?next=<this page> instead of getting a 401.
 */
export function authenticatePage(deps: AuthDeps) {
  const inner = authenticate(deps);
  return async function authenticateForPage(ctx: Context, next: Next): Promise<void> {
    try {
      await inner(ctx, next);
    } catch (err) {
      if (!(err instanceof CredentialRefused)) throw err;
      ctx.redirect(loginRedirect(ctx));
    }
  };
}

/** Every POST of a cookie session carries the session's CSRF token in the `_csrf` field, compared in constant time. */
export function requireFormCsrf() {
  return async function checkFormCsrf(ctx: Context, next: Next): Promise<void> {
    const { credential } = ctx.state as CoreState;
    if (ctx.method === 'POST' && credential.kind === 'cookie') {
      // A form of Den is submitted by the browser as a whole page; a script's fetch of it (an app's, on a path-based preview) is refused.
      if (browserScriptRefusal(ctx.get('Sec-Fetch-Site'), ctx.get('Sec-Fetch-Mode'), ctx.get('Sec-Fetch-Dest'))) {
        throw new HttpError(403, "Den's forms are submitted by the browser as a page, not sent by a page's script; reload the page and submit the form");
      }
      const sent = ctx.request.form?.[CSRF_FIELD] ?? '';
      if (!sent || !constantTimeEqual(sent, credential.session.csrfToken)) {
        throw new HttpError(403, 'this form is out of date or did not come from Den (its CSRF token does not match your session); reload the page and try again');
      }
    }
    await next();
  };
}
