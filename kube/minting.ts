// Short-lived tokens for a person's `session` / `session-readonly` ServiceAccount, minted
// through TokenRequest with the process's own identity (den server for REST and the web UI,
// den gateway for SSH) and reused until most of their lifetime has passed. Concurrent
// requests for the same account share one mint. A cached token is keyed by the UID of an
// object that lives and dies with the ServiceAccount's namespace (the UserSpace for den
// server, the Workspace for den gateway): a person deleted and created again under the same
// name (a new namespace, a new ServiceAccount) never reuses a token of the old one, and a
// token the API server refuses is dropped (forwarding.ts).
import type { KubeClient } from './client.js';
import { isNamespaceTerminating, isNotFound, KubeApiError } from './errors.js';
import { RESOURCES, resourcePath } from './resources.js';
import { Registry } from 'prom-client';
import { MintingMetrics } from './minting-metrics.js';

export interface MinterOptions {
  /** Requested lifetime; the API server may shorten it (and refuses less than 10 minutes). */
  ttlSeconds: number;
  /** A cached token is replaced once this fraction of its lifetime has passed. */
  refreshFraction?: number;
  /** False mints on every request (used by the benchmark to show what the cache saves). */
  cache?: boolean;
  now?: () => number;
  /** The process's figures; a minter of its own (tests) counts into a registry nobody scrapes. */
  metrics?: MintingMetrics;
  /** Who mints, in refusals: `the server`, `the gateway`. */
  minter?: string;
}

/**
 * No token could be minted. `retryable`: the person's namespace is not ready yet (its
 * ServiceAccount does not exist); otherwise this process may not mint, or got no token.
 */
export class MintError extends Error {
  override readonly name = 'MintError';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

interface TokenRequestAnswer {
  status?: { token?: string; expirationTimestamp?: string };
}

interface Minted {
  token: string;
  refreshAt: number;
}

/** The ServiceAccount a token is minted for, and the object (by UID) whose life it shares. */
export interface MintTarget {
  /** `metadata.uid` of the UserSpace whose namespace holds the ServiceAccount, or of a Workspace in that namespace. */
  ownerUid: string;
  namespace: string;
  serviceAccount: string;
}

/** A token to send, and whether an earlier request was already sent with it. */
export interface IssuedToken {
  token: string;
  reused: boolean;
}

function keyOf(target: MintTarget): string {
  return `${target.ownerUid}/${target.namespace}/${target.serviceAccount}`;
}

export function serviceAccountUsername(namespace: string, serviceAccount: string): string {
  return `system:serviceaccount:${namespace}:${serviceAccount}`;
}

export class TokenMinter {
  private readonly cached = new Map<string, Minted>();
  private readonly inflight = new Map<string, Promise<Minted>>();
  private readonly refreshFraction: number;
  private readonly useCache: boolean;
  private readonly now: () => number;
  private readonly metrics: MintingMetrics;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: MinterOptions,
  ) {
    this.refreshFraction = opts.refreshFraction ?? 0.8;
    this.useCache = opts.cache ?? true;
    this.now = opts.now ?? Date.now;
    this.metrics = opts.metrics ?? new MintingMetrics(new Registry());
  }

  async token(target: MintTarget): Promise<IssuedToken> {
    const key = keyOf(target);
    const hit = this.cached.get(key);
    if (hit && this.now() < hit.refreshAt) {
      this.metrics.cache.inc({ result: 'hit' });
      return { token: hit.token, reused: true };
    }
    this.metrics.cache.inc({ result: 'miss' });
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.mint(target.namespace, target.serviceAccount).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    const minted = await pending;
    if (this.useCache) this.keep(key, minted);
    return { token: minted.token, reused: false };
  }

  /** The API server refused `token`: it is not handed out again (a newer one cached meanwhile stays). */
  refused(target: MintTarget, token: string): void {
    const key = keyOf(target);
    if (this.cached.get(key)?.token === token) this.cached.delete(key);
  }

  /** Tokens held now (one per ServiceAccount served lately). */
  get size(): number {
    return this.cached.size;
  }

  private keep(key: string, minted: Minted): void {
    // Tokens of UserSpaces that are gone would otherwise stay forever; a mint is rare enough to sweep on.
    const now = this.now();
    for (const [k, m] of this.cached) if (m.refreshAt <= now) this.cached.delete(k);
    this.cached.set(key, minted);
  }

  private async mint(namespace: string, serviceAccount: string): Promise<Minted> {
    const issuedAt = this.now();
    let answer: TokenRequestAnswer;
    const end = this.metrics.tokenRequests.startTimer();
    try {
      answer = await this.client.request<TokenRequestAnswer>({
        method: 'POST',
        path: resourcePath(RESOURCES.serviceAccount, { namespace, name: serviceAccount, subresource: 'token' }),
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: this.opts.ttlSeconds } },
      });
      end({ result: 'ok' });
    } catch (err) {
      end({ result: 'error' });
      if (isNotFound(err)) throw new MintError(`the namespace ${namespace} is not ready yet (ServiceAccount ${serviceAccount} not found); retry shortly`, true);
      // The person's space is going away: errorMapper words that for them.
      if (isNamespaceTerminating(err)) throw err;
      if (err instanceof KubeApiError && (err.status === 401 || err.status === 403)) {
        throw new MintError(`${this.opts.minter ?? 'Den'} may not mint tokens for ${serviceAccountUsername(namespace, serviceAccount)}: ${err.message}`, false);
      }
      throw err;
    }
    const token = answer?.status?.token;
    if (!token) throw new MintError(`the cluster API returned no token for ${serviceAccountUsername(namespace, serviceAccount)}`, false);
    const expiresAt = Date.parse(answer.status?.expirationTimestamp ?? '');
    const lifetime = Number.isNaN(expiresAt) || expiresAt <= issuedAt ? this.opts.ttlSeconds * 1000 : expiresAt - issuedAt;
    return { token, refreshAt: issuedAt + lifetime * this.refreshFraction };
  }
}
