// Who is calling: a bearer API token or the session cookie, resolved to the person's
// UserSpace and to a client that forwards a token minted for their ServiceAccount
// (SPEC 5). Sets `ctx.state.caller`, `ctx.state.kube` and `ctx.state.credential`.
import type { Context, Next } from 'koa';
import type { ClientAddressState } from '../http/client-address.js';
import type { KubeClient } from '../../kube/client.js';
import { SERVICE_ACCOUNTS } from '../../kube/group.js';
import type { AuthenticatedState, Caller } from '../http/context.js';
import { HttpError } from '../../koa/errors.js';
import { sessionIdFromCookieHeader } from './cookie.js';
import type { UserSpaceDirectory } from './directory.js';
import { ForwardingClient } from '../../kube/forwarding.js';
import type { TokenMinter } from '../../kube/minting.js';
import { looksLikeApiToken } from './secrets.js';
import type { Session, SessionStore } from './sessions.js';
import type { ApiToken, ApiTokenStore } from './token-store.js';

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

/** The request's credential is missing, malformed, unknown, revoked or expired (not: the person is refused). */
export class CredentialRefused extends HttpError {
  constructor(message: string) {
    super(401, message);
  }
}

/** Methods that change nothing, so their credential may be confirmed beside the request instead of before it. */
export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/** The bearer token of an `Authorization` header; undefined when there is none, 401 when it is malformed. */
export function bearerOf(header: string): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m || !looksLikeApiToken(m[1]!)) throw new CredentialRefused('invalid bearer token: expected Authorization: Bearer svc_…');
  return m[1]!;
}

export async function credentialOf(ctx: Pick<Context, 'get'>, deps: Pick<AuthDeps, 'tokens' | 'sessions' | 'now'>): Promise<Credential> {
  const bearer = bearerOf(ctx.get('Authorization'));
  if (bearer) {
    const token = await deps.tokens.lookup(bearer);
    if (!token) throw new CredentialRefused('invalid or revoked API token');
    return { kind: 'bearer', token };
  }
  const id = sessionIdFromCookieHeader(ctx.get('Cookie'));
  if (!id) throw new CredentialRefused(UNAUTHENTICATED);
  const session = await deps.sessions.lookup(id, deps.now());
  if (!session) throw new CredentialRefused('your session has ended; sign in again');
  return { kind: 'cookie', session };
}

/** The credential as this replica's informer holds it, when it holds it: a hint, never the answer. */
export function cachedCredentialOf(ctx: Pick<Context, 'get'>, deps: Pick<AuthDeps, 'tokens' | 'sessions' | 'now'>): Credential | undefined {
  const bearer = bearerOf(ctx.get('Authorization'));
  if (bearer) {
    const token = deps.tokens.cached(bearer);
    return token && { kind: 'bearer', token };
  }
  const id = sessionIdFromCookieHeader(ctx.get('Cookie'));
  const session = id ? deps.sessions.cached(id, deps.now()) : undefined;
  return session && { kind: 'cookie', session };
}

/** The person a credential stands for, and a client that acts as them on the cluster. */
export async function actAs(credential: Credential, deps: Pick<AuthDeps, 'directory' | 'minter' | 'serverClient'>, opts: { confirmed?: boolean } = {}): Promise<{ caller: Caller; kube: KubeClient }> {
  const owner = credential.kind === 'bearer' ? credential.token.owner : credential.session.owner;
  const membership = await (opts.confirmed ? deps.directory.resolveConfirmed(owner) : deps.directory.resolve(owner));
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
  const target = { ownerUid: membership.uid, namespace: membership.namespace, serviceAccount: serviceAccountOf(caller) };
  return { caller, kube: new ForwardingClient(deps.serverClient, deps.minter, target) };
}

export function serviceAccountOf(caller: Pick<Caller, 'scope'>): string {
  return caller.scope === 'read' ? SERVICE_ACCOUNTS.sessionReadonly : SERVICE_ACCOUNTS.session;
}

/**
 * Every request's credential is confirmed with the API server (another replica may have revoked
 * it a moment ago). A write waits for that answer, and for a GET of the person's UserSpace (a
 * disable made through another replica), before it runs. A read whose credential this
 * replica's informer already holds runs beside the confirmation, so the GET adds no latency;
 * its answer is replaced by the 401 when the confirmation fails, and it changed nothing.
 */
export function authenticate(deps: AuthDeps) {
  return async function authenticateRequest(ctx: Context, next: Next): Promise<void> {
    const state = ctx.state as CoreState;
    const writes = !READ_METHODS.has(ctx.method);
    const admit = async (credential: Credential) => {
      const { caller, kube } = await actAs(credential, deps, { confirmed: writes });
      state.credential = credential;
      state.caller = caller;
      state.kube = kube;
    };
    const hint = writes ? undefined : cachedCredentialOf(ctx, deps);
    if (!hint) {
      await admit(await credentialOf(ctx, deps));
      return next();
    }
    const [served, confirmation] = await Promise.allSettled([admit(hint).then(() => next()), credentialOf(ctx, deps)]);
    if (confirmation.status === 'rejected') throw confirmation.reason;
    if (served.status === 'rejected') throw served.reason;
  };
}
