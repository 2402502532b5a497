// GET and POST /cli/login: the browser half of `den login` (cli/dev/login.ts). The person is
// signed in however they sign in (a stranger goes to /login?next=… first); the POST is a form
// of their session (CSRF field checked by requireFormCsrf), issues a full API token through
// the token service, and answers a page whose form posts it to the command's loopback port.
// That answer's CSP allows form submission to exactly that loopback address.
import { randomHex } from '../auth/secrets.js';
import { HttpError } from '../../koa/errors.js';
import { issueTokenFor } from '../api/tokens.js';
import { cliLoginHandOffPage, cliLoginQuestionPage, type CliRequest } from '../../web/templates/cli-login.js';
import { PAGE_CSP, viewerOf } from './middleware.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';
import { sendPage } from './send.js';

/** The one-time state `den login` makes: 32 random bytes, base64url. */
const STATE = /^[A-Za-z0-9_-]{43}$/;

/** The listener's port and state, as the command sent them; anything else is refused before a token exists. */
export function cliRequestOf(raw: { port?: unknown; state?: unknown }): CliRequest {
  const port = typeof raw.port === 'string' && /^\d{1,5}$/.test(raw.port) ? Number(raw.port) : 0;
  if (port < 1024 || port > 65535) throw new HttpError(400, 'this sign-in link is not one den login makes (its port must be 1024-65535); run den login again');
  if (typeof raw.state !== 'string' || !STATE.test(raw.state)) throw new HttpError(400, 'this sign-in link is not one den login makes (its state is malformed); run den login again');
  return { port, state: raw.state };
}

/** The pages' CSP with form-action widened to the one loopback listener. */
export function handOffCsp(port: number): string {
  return PAGE_CSP.replace("form-action 'self'", `form-action http://127.0.0.1:${port}`);
}

async function handOff(ctx: PageContext, deps: PageDeps): Promise<void> {
  const request = cliRequestOf(ctx.request.form ?? {});
  if (ctx.state.credential.kind !== 'cookie') throw new HttpError(403, 'sign in with your browser session to authorise den');
  const { token, record } = await issueTokenFor({ tokens: deps.auth.tokens, now: deps.now, log: deps.log }, ctx.state.caller, { name: `den-cli-${randomHex(4)}`, scope: 'full' }, 'web');
  ctx.set('Content-Security-Policy', handOffCsp(request.port));
  sendPage(ctx, cliLoginHandOffPage(ctx.state.assets, viewerOf(ctx)!, request, { name: record.name, token }), 201);
}

export function mountCliLogin(router: PageRouter, deps: PageDeps): void {
  router.get('/cli/login', (ctx) => {
    const request = cliRequestOf({ port: ctx.query.port, state: ctx.query.state });
    sendPage(ctx, cliLoginQuestionPage(ctx.state.assets, viewerOf(ctx)!, request));
  });
  router.post('/cli/login', (ctx) => handOff(ctx, deps));
}
