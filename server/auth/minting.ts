// Short-lived tokens for a person's `session` / `session-readonly` ServiceAccount,
// minted through TokenRequest with the server's identity and reused until most of
// their lifetime has passed. Concurrent requests for the same account share one mint.
import type { KubeClient } from '../../kube/client.js';
import { isNotFound, KubeApiError } from '../../kube/errors.js';
import { RESOURCES, resourcePath } from '../../kube/resources.js';
import { HttpError } from '../../koa/errors.js';
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
}

interface TokenRequestAnswer {
  status?: { token?: string; expirationTimestamp?: string };
}

interface Minted {
  token: string;
  refreshAt: number;
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

  async token(namespace: string, serviceAccount: string): Promise<string> {
    const key = `${namespace}/${serviceAccount}`;
    const hit = this.cached.get(key);
    if (hit && this.now() < hit.refreshAt) {
      this.metrics.cache.inc({ result: 'hit' });
      return hit.token;
    }
    this.metrics.cache.inc({ result: 'miss' });
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.mint(namespace, serviceAccount).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    const minted = await pending;
    if (this.useCache) this.cached.set(key, minted);
    return minted.token;
  }

  /** Drops a cached token the API server no longer accepts. */
  forget(namespace: string, serviceAccount: string): void {
    this.cached.delete(`${namespace}/${serviceAccount}`);
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
      if (isNotFound(err)) {
        throw new HttpError(503, `the namespace ${namespace} is not ready yet (ServiceAccount ${serviceAccount} not found); retry shortly`, { 'Retry-After': '5' });
      }
      if (err instanceof KubeApiError && (err.status === 401 || err.status === 403)) {
        throw new HttpError(502, `the server may not mint tokens for ${serviceAccountUsername(namespace, serviceAccount)}: ${err.message}`);
      }
      throw err;
    }
    const token = answer?.status?.token;
    if (!token) throw new HttpError(502, `the cluster API returned no token for ${serviceAccountUsername(namespace, serviceAccount)}`);
    const expiresAt = Date.parse(answer.status?.expirationTimestamp ?? '');
    const lifetime = Number.isNaN(expiresAt) || expiresAt <= issuedAt ? this.opts.ttlSeconds * 1000 : expiresAt - issuedAt;
    return { token, refreshAt: issuedAt + lifetime * this.refreshFraction };
  }
}
