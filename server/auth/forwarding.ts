// A KubeClient that acts as the caller: every request carries the token minted for the
// caller's ServiceAccount. The token is fetched when the first request is made, so a
// route that never reaches the cluster (GET /session, the token list) costs no mint,
// and a long-lived stream picks up a fresh token on reconnect.
import type http from 'node:http';
import type { WebSocket } from 'ws';
import { KubeClient, type RequestOptions } from '../../kube/client.js';

export class ForwardingClient extends KubeClient {
  constructor(
    private readonly base: KubeClient,
    private readonly token: () => Promise<string>,
  ) {
    super(base.connection, undefined, { shared: base });
  }

  override async send(opts: RequestOptions): Promise<http.IncomingMessage> {
    return this.base.withToken(await this.token()).send(opts);
  }

  override async websocket(path: string, query: URLSearchParams, protocols: string[]): Promise<WebSocket> {
    return this.base.withToken(await this.token()).websocket(path, query, protocols);
  }

  override withToken(token: string): KubeClient {
    return this.base.withToken(token);
  }
}
