// SPEC 4.4: the caller's own API tokens. The scope is asked for with `?scope=read`
// (default full) and an optional `?name=`; the plaintext is in the 201 answer only.
import type Router from '@koa/router';
import { HttpError } from '../../koa/errors.js';
import { noQuery, validateQuery } from '../http/validate.js';
import type { CoreState } from '../auth/authenticate.js';
import type { Caller } from '../http/context.js';
import { TokenNameTakenError, type ApiToken, type ApiTokenStore } from '../auth/token-store.js';
import { issueTokenQuery } from './account-schemas.js';
import { audit, AUDIT_ACTS, type AuditLog } from '../../process/audit.js';

export interface TokenRouteDeps {
  tokens: ApiTokenStore;
  now: () => number;
  /** Where issued and revoked tokens are audited (process/audit.ts), by name, never by value. */
  log: AuditLog;
}

type TokenContext = Router.RouterContext<CoreState>;

export function describeToken(token: ApiToken) {
  return { name: token.name, namespace: token.namespace, created_at: token.createdAt };
}

/** A read-scoped token must not mint itself a full one, nor revoke the tokens that outrank it. */
function refuseReadScope(ctx: TokenContext, action: string): void {
  if (ctx.state.caller.scope === 'read') throw new HttpError(403, `a read-scoped API token cannot ${action}`);
}

async function listTokens(ctx: TokenContext, deps: TokenRouteDeps): Promise<void> {
  validateQuery(ctx, noQuery);
  ctx.body = { items: (await deps.tokens.list(ctx.state.caller.email)).map(describeToken) };
}

/** A new API token of `caller`'s, with its plaintext (shown once); REST and the profile page both call it. */
export async function issueTokenFor(deps: TokenRouteDeps, caller: Caller, req: { name?: string; scope?: string }, via: 'web' | 'rest'): Promise<{ token: string; record: ApiToken }> {
  let issued: { token: string; record: ApiToken };
  try {
    issued = await deps.tokens.issue(
      { name: req.name, owner: caller.email, userspace: caller.userspace, namespace: caller.namespace, scope: req.scope === 'read' ? 'read' : 'full' },
      deps.now(),
    );
  } catch (err) {
    if (err instanceof TokenNameTakenError) throw new HttpError(409, err.message);
    throw err;
  }
  audit(deps.log, AUDIT_ACTS.tokenIssued, { person: caller.email, userspace: caller.userspace, tokenId: issued.record.name, scope: issued.record.scope, via });
  return issued;
}

export async function revokeTokenOf(deps: TokenRouteDeps, caller: Caller, name: string, via: 'web' | 'rest'): Promise<void> {
  if (!(await deps.tokens.revoke(caller.email, name))) throw new HttpError(404, `you have no API token named ${name}`);
  audit(deps.log, AUDIT_ACTS.tokenRevoked, { person: caller.email, userspace: caller.userspace, tokenId: name, via });
}

async function issueToken(ctx: TokenContext, deps: TokenRouteDeps): Promise<void> {
  refuseReadScope(ctx, 'issue tokens');
  const query = validateQuery(ctx, issueTokenQuery);
  const { token, record } = await issueTokenFor(deps, ctx.state.caller, query, 'rest');
  ctx.status = 201;
  ctx.body = { ...describeToken(record), token };
}

async function revokeToken(ctx: TokenContext, deps: TokenRouteDeps): Promise<void> {
  refuseReadScope(ctx, 'revoke tokens');
  validateQuery(ctx, noQuery);
  await revokeTokenOf(deps, ctx.state.caller, ctx.params.name!, 'rest');
  ctx.status = 204;
}

export function mountTokenRoutes(router: Router<CoreState>, deps: TokenRouteDeps): void {
  router.get('/tokens', (ctx) => listTokens(ctx, deps));
  router.post('/tokens', (ctx) => issueToken(ctx, deps));
  router.delete('/tokens/:name', (ctx) => revokeToken(ctx, deps));
}
