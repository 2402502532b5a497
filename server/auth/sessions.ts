// Cookie sessions. The browser holds a random id; the cluster holds only its SHA-256
// (as the Secret name), so reading the Secrets does not yield a usable cookie.
import { isNotFound } from '../../kube/errors.js';
import { randomSecret, sha256Hex } from './secrets.js';
import type { ServiceState, StateRecord } from './state.js';

export interface SessionPolicy {
  /** A session unused for this long ends. */
  idleMs: number;
  /** A session ends this long after sign-in, however busy. */
  absoluteMs: number;
  /** `last_seen` is written at most this often, so browsing does not write a Secret per request. */
  touchEveryMs: number;
}

export const DEFAULT_SESSION_POLICY: SessionPolicy = {
  idleMs: 12 * 3_600_000,
  absoluteMs: 7 * 24 * 3_600_000,
  touchEveryMs: 5 * 60_000,
};

/** `local`: a username and password; `provider`: an identity provider (SPEC 5), named in `provider`. */
export type SignInMethod = 'local' | 'provider';

export interface Session {
  /** Name of the Secret holding it. */
  secretName: string;
  owner: string;
  method: SignInMethod;
  /** Local username, when signed in with a password. */
  username?: string;
  /** Name of the identity provider, when signed in through one. */
  provider?: string;
  csrfToken: string;
  createdAt: number;
  lastSeen: number;
}

export function sessionSecretName(id: string): string {
  return `session-${sha256Hex(id)}`;
}

export function sessionOf(record: StateRecord): Session | undefined {
  const { owner, method, username, provider, csrf_token, created_at, last_seen } = record.data;
  const createdAt = Date.parse(created_at ?? '');
  const lastSeen = Date.parse(last_seen ?? '');
  if (!owner || !csrf_token || Number.isNaN(createdAt) || Number.isNaN(lastSeen)) return undefined;
  const base = { secretName: record.name, owner, csrfToken: csrf_token, createdAt, lastSeen };
  if (method === 'local') return { ...base, method, username: username || undefined };
  // A provider session never carries a local username, whatever the Secret says.
  if (method === 'provider' && provider) return { ...base, method, provider };
  return undefined;
}

export function isExpired(session: Pick<Session, 'createdAt' | 'lastSeen'>, now: number, policy: SessionPolicy): boolean {
  return now - session.lastSeen >= policy.idleMs || now - session.createdAt >= policy.absoluteMs;
}

export class SessionStore {
  constructor(
    private readonly state: ServiceState,
    readonly policy: SessionPolicy = DEFAULT_SESSION_POLICY,
  ) {}

  /** Starts a session; the returned id goes into the cookie and is not kept anywhere. */
  async create(input: { owner: string; method: SignInMethod; username?: string; provider?: string }, now: number): Promise<{ id: string; session: Session }> {
    const id = randomSecret(32);
    const stamp = new Date(now).toISOString();
    const record = await this.state.create('session', sessionSecretName(id), {
      owner: input.owner,
      method: input.method,
      username: input.method === 'local' ? (input.username ?? '') : '',
      provider: input.method === 'provider' ? (input.provider ?? '') : '',
      csrf_token: randomSecret(32),
      created_at: stamp,
      last_seen: stamp,
    });
    return { id, session: sessionOf(record)! };
  }

  /** The session as this replica's informer holds it, unless expired: a hint, confirmed by `lookup`. */
  cached(id: string, now: number): Session | undefined {
    return this.cachedStored(sessionSecretName(id), now);
  }

  /** `cached` by the Secret's name (an app cookie's session): a hint, confirmed by `lookupStored`. */
  cachedStored(secretName: string, now: number): Session | undefined {
    const record = this.state.cached('session', secretName);
    const session = record && sessionOf(record);
    return session && !isExpired(session, now, this.policy) ? session : undefined;
  }

  /** The live session for a cookie id; an expired one is deleted and not returned. */
  lookup(id: string, now: number): Promise<Session | undefined> {
    return this.lookupStored(sessionSecretName(id), now);
  }

  /** `lookup` by the Secret's name, for what a session vouched for without holding its id (an app cookie). */
  async lookupStored(secretName: string, now: number): Promise<Session | undefined> {
    const record = await this.state.find('session', secretName);
    const session = record && sessionOf(record);
    if (!session) return undefined;
    if (isExpired(session, now, this.policy)) {
      await this.state.remove(session.secretName);
      return undefined;
    }
    if (now - session.lastSeen >= this.policy.touchEveryMs) {
      try {
        await this.state.update('session', session.secretName, { last_seen: new Date(now).toISOString() });
      } catch (err) {
        // Logged out on another replica between the read and the write.
        if (isNotFound(err)) return undefined;
        throw err;
      }
      return { ...session, lastSeen: now };
    }
    return session;
  }

  async destroy(session: Pick<Session, 'secretName'>): Promise<void> {
    await this.state.remove(session.secretName);
  }

  /** Ends every session signed in as local `username`, except `keep` (after a password change or user removal). */
  async destroyForUsername(username: string, keep?: string): Promise<number> {
    let ended = 0;
    // From the API server: a session signed in on another replica a moment ago ends too.
    for (const record of await this.state.current('session')) {
      const session = sessionOf(record);
      if (session?.username !== username || session.secretName === keep) continue;
      if (await this.state.remove(session.secretName)) ended++;
    }
    return ended;
  }

  /** Deletes expired sessions, so abandoned ones do not pile up. */
  async sweep(now: number): Promise<number> {
    let removed = 0;
    for (const record of this.state.list('session')) {
      const session = sessionOf(record);
      if (session && !isExpired(session, now, this.policy)) continue;
      if (await this.state.remove(record.name)) removed++;
    }
    return removed;
  }
}
