// A KubeClient that acts as a person: every request carries the token minted for their
// ServiceAccount (den server's callers, den gateway's workspace owners). The token is
// fetched when the first request is made, so a route that never reaches the cluster
// (GET /session, the token list) costs no mint, and a long-lived stream picks up a fresh
// token on reconnect. A cached token the API server answers 401 (its ServiceAccount was
// deleted and created again, say, which another replica did) is dropped and the request,
// or the streaming upgrade, is sent once more with a freshly minted one.
import type http from 'node:http';
import type { WebSocket } from 'ws';
import { KubeClient, type OpenStream, type RequestOptions } from './client.js';
import { KubeApiError } from './errors.js';
import { SERVICE_ACCOUNTS } from './group.js';
import type { MintTarget, TokenMinter } from './minting.js';

export class ForwardingClient extends KubeClient {
  constructor(
    private readonly base: KubeClient,
    private readonly minter: Pick<TokenMinter, 'token' | 'refused'>,
    private readonly target: MintTarget,
  ) {
    super(base.connection, undefined, { shared: base });
  }

  override async send(opts: RequestOptions): Promise<http.IncomingMessage> {
    const first = await this.minter.token(this.target);
    const res = await this.base.withToken(first.token).send(opts);
    if (res.statusCode !== 401) return res;
    this.minter.refused(this.target, first.token);
    if (!first.reused) return res;
    res.resume();
    const fresh = await this.minter.token(this.target);
    return this.base.withToken(fresh.token).send(opts);
  }

  override async openStream(path: string, query: URLSearchParams, protocols: string[]): Promise<OpenStream> {
    const first = await this.minter.token(this.target);
    try {
      return await this.base.withToken(first.token).openStream(path, query, protocols);
    } catch (err) {
      if (!(err instanceof KubeApiError) || err.status !== 401) throw err;
      this.minter.refused(this.target, first.token);
      if (!first.reused) throw err;
    }
    const fresh = await this.minter.token(this.target);
    return this.base.withToken(fresh.token).openStream(path, query, protocols);
  }

  override async websocket(path: string, query: URLSearchParams, protocols: string[]): Promise<WebSocket> {
    const { token } = await this.minter.token(this.target);
    const ws = await this.base.withToken(token).websocket(path, query, protocols);
    ws.once('unexpected-response', (_req, res) => {
      if (res.statusCode === 401) this.minter.refused(this.target, token);
    });
    return ws;
  }

  override withToken(token: string): KubeClient {
    return this.base.withToken(token);
  }
}

/**
 * A client acting as the person of `namespace` in a session of theirs (an SSH session, a port they shared):
 * every request carries a token minted for their `session` ServiceAccount, cached under `ownerUid`.
 */
export function sessionClient(base: KubeClient, minter: Pick<TokenMinter, 'token' | 'refused'>, ownerUid: string, namespace: string): ForwardingClient {
  return new ForwardingClient(base, minter, { ownerUid, namespace, serviceAccount: SERVICE_ACCOUNTS.session });
}
