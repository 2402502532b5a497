// SPEC 4.4: the caller's own API tokens. The scope is asked for with `?scope=read`
// (default full) and an optional `?name=`; the plaintext is in the 201 answer only.
import type Router from '@koa/router';
import { HttpError } from '../http/errors.js';
import { noQuery, validateQuery } from '../http/validate.js';
import type { CoreState } from '../auth/authenticate.js';
import { TokenNameTakenError, type ApiToken, type ApiTokenStore } from '../auth/tokens.js';
import { issueTokenQuery } from './schemas.js';

export interface TokenRouteDeps {
  tokens: ApiTokenStore;
  now: () => number;
}

type TokenContext = Router.RouterContext<CoreState>;

function describeToken(token: ApiToken) {
  return { name: token.name, namespace: token.namespace, created_at: token.createdAt };
}

/** A read-scoped token must not mint itself a full one, nor revoke the tokens that outrank it. */
function refuseReadScope(ctx: TokenContext, action: string): void {
  if (ctx.state.caller.scope === 'read') throw new HttpError(403, `a read-scoped API token cannot ${action}`);
}

function listTokens(ctx: TokenContext, deps: TokenRouteDeps): void {
  validateQuery(ctx, noQuery);
  ctx.body = { items: deps.tokens.list(ctx.state.caller.email).map(describeToken) };
}

async function issueToken(ctx: TokenContext, deps: TokenRouteDeps): Promise<void> {
  refuseReadScope(ctx, 'issue tokens');
  const query = validateQuery(ctx, issueTokenQuery);
  const { caller } = ctx.state;
  try {
    const { token, record } = await deps.tokens.issue(
      { name: query.name, owner: caller.email, userspace: caller.userspace, namespace: caller.namespace, scope: query.scope === 'read' ? 'read' : 'full' },
      deps.now(),
    );
    ctx.status = 201;
    ctx.body = { ...describeToken(record), token };
  } catch (err) {
    if (err instanceof TokenNameTakenError) throw new HttpError(409, err.message);
    throw err;
  }
}

async function revokeToken(ctx: TokenContext, deps: TokenRouteDeps): Promise<void> {
  refuseReadScope(ctx, 'revoke tokens');
  validateQuery(ctx, noQuery);
  const name = ctx.params.name!;
  if (!(await deps.tokens.revoke(ctx.state.caller.email, name))) throw new HttpError(404, `you have no API token named ${name}`);
  ctx.status = 204;
}

export function mountTokenRoutes(router: Router<CoreState>, deps: TokenRouteDeps): void {
  router.get('/tokens', (ctx) => listTokens(ctx, deps));
  router.post('/tokens', (ctx) => issueToken(ctx, deps));
  router.delete('/tokens/:name', (ctx) => revokeToken(ctx, deps));
}
