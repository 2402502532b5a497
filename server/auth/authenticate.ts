// Who is calling: a bearer API token or the session cookie, resolved to the person's
// UserSpace and to a client that forwards a token minted for their ServiceAccount
// (SPEC 5). Sets `ctx.state.caller`, `ctx.state.kube` and `ctx.state.credential`.
import type { Context, Next } from 'koa';
import type { ClientAddressState } from '../http/client-address.js';
import type { KubeClient } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { SERVICE_ACCOUNTS } from '../../kube/group.js';
import type { AuthenticatedState, Caller } from '../http/context.js';
import { HttpError } from '../../koa/errors.js';
import { sessionIdFromCookieHeader } from './cookie.js';
import type { UserSpaceDirectory } from './directory.js';
import { ForwardingClient } from './forwarding.js';
import type { TokenMinter } from './minting.js';
import { looksLikeApiToken } from './secrets.js';
import type { Session, SessionStore } from './sessions.js';
import type { ApiToken, ApiTokenStore } from './tokens.js';

export type Credential = { kind: 'cookie'; session: Session } | { kind: 'bearer'; token: ApiToken };

export interface CoreState extends AuthenticatedState, ClientAddressState {
  credential: Credential;
}

export interface AuthDeps {
  sessions: SessionStore;
  tokens: ApiTokenStore;
  directory: UserSpaceDirectory;
  minter: TokenMinter;
  /** The server's own client; forwarding clients share its connection. */
  serverClient: KubeClient;
  now: () => number;
}

const UNAUTHENTICATED = 'authentication required: sign in with POST /api/v1/login or send Authorization: Bearer <API token>';

/** The bearer token of an `Authorization` header; undefined when there is none, 401 when it is malformed. */
export function bearerOf(header: string): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m || !looksLikeApiToken(m[1]!)) throw new HttpError(401, 'invalid bearer token: expected Authorization: Bearer svc_…');
  return m[1]!;
}

async function credentialOf(ctx: Context, deps: AuthDeps): Promise<Credential> {
  const bearer = bearerOf(ctx.get('Authorization'));
  if (bearer) {
    const token = await deps.tokens.lookup(bearer);
    if (!token) throw new HttpError(401, 'invalid or revoked API token');
    return { kind: 'bearer', token };
  }
  const id = sessionIdFromCookieHeader(ctx.get('Cookie'));
  if (!id) throw new HttpError(401, UNAUTHENTICATED);
  const session = await deps.sessions.lookup(id, deps.now());
  if (!session) throw new HttpError(401, 'your session has ended; sign in again');
  return { kind: 'cookie', session };
}

export function callerOf(credential: Credential, deps: Pick<AuthDeps, 'directory'>): Caller {
  const owner = credential.kind === 'bearer' ? credential.token.owner : credential.session.owner;
  const membership = deps.directory.resolve(owner);
  const caller: Caller = {
    email: owner,
    userspace: membership.userspace,
    namespace: membership.namespace,
    role: membership.role,
    kind: credential.kind,
    scope: credential.kind === 'bearer' ? credential.token.scope : 'full',
    localLogin: credential.kind === 'cookie' && credential.session.method === 'local',
  };
  if (credential.kind === 'cookie' && credential.session.username) caller.username = credential.session.username;
  return caller;
}

export function serviceAccountOf(caller: Pick<Caller, 'scope'>): string {
  return caller.scope === 'read' ? SERVICE_ACCOUNTS.sessionReadonly : SERVICE_ACCOUNTS.session;
}

export function authenticate(deps: AuthDeps) {
  return async function authenticateRequest(ctx: Context, next: Next): Promise<void> {
    const credential = await credentialOf(ctx, deps);
    const caller = callerOf(credential, deps);
    const serviceAccount = serviceAccountOf(caller);
    const state = ctx.state as CoreState;
    state.credential = credential;
    state.caller = caller;
    state.kube = new ForwardingClient(deps.serverClient, () => deps.minter.token(caller.namespace, serviceAccount));
    try {
      await next();
    } catch (err) {
      // The cluster no longer accepts the cached token (its ServiceAccount was recreated, say).
      if (err instanceof KubeApiError && err.status === 401) deps.minter.forget(caller.namespace, serviceAccount);
      throw err;
    }
  };
}
