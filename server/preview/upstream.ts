// The upstream connection of a preview: a port forward to the app opened with the person's own
// token, counted against their limit, kept for the next request of the same person to the same
// port (tunnel-pool.ts), closed when no byte moves; and one HTTP request relayed over it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { http } from '../../process/node-http.js';
import type { Duplex } from 'node:stream';
import { openPortForward, tunnelSocket, type PortTunnel } from '../../kube/portforward.js';
import { HttpError } from '../../koa/errors.js';
import { serviceAccountOf } from '../auth/authenticate.js';
import { previewFailure } from './answers.js';
import { requestHeadersForApp, responseHeadersFromApp } from './headers.js';
import { TunnelPool } from './tunnel-pool.js';
import type { Admitted, PREVIEW_LIMITS, Route } from './types.js';

/** Closes whatever `streams` are still open once none of them has moved a byte for `ms`. */
export function closeWhenIdle(ms: number, streams: Duplex[], onIdle: () => void): () => void {
  let timer = setTimeout(onIdle, ms);
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(onIdle, ms);
  };
  for (const s of streams) s.on('data', touch);
  const stop = () => {
    clearTimeout(timer);
    for (const s of streams) s.off('data', touch);
  };
  return stop;
}

/** Opening a port forward failed (refused by the cluster, or the person's limit), as opposed to the app failing on an open one. */
class TunnelRefused extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

export class PreviewUpstream {
  private readonly openByPerson = new Map<string, number>();
  /** Tunnels open now, to close them when the server stops. */
  private readonly tunnels = new Set<PortTunnel>();
  /** Tunnels left open by an answer, for the next request to the same port. */
  private readonly pool: TunnelPool;

  constructor(
    readonly limits: typeof PREVIEW_LIMITS,
    private readonly https: boolean,
  ) {
    this.pool = new TunnelPool(limits.tunnelIdleMs);
  }

  /** Tunnels open now, per person, for tests and figures. */
  openTunnels(email: string): number {
    return this.openByPerson.get(email) ?? 0;
  }

  /** Tunnels waiting for a next request, for tests and figures. */
  idleTunnels(): number {
    return this.pool.idleTunnels();
  }

  /** (person, identity, pod, port) keys that hold a tunnel now, for tests. */
  pooledKeys(): number {
    return this.pool.keys;
  }

  /** Closes every open tunnel (the server is stopping). */
  close(): void {
    this.pool.close();
    for (const t of this.tunnels) t.close();
  }

  /** Opens a tunnel counted against the person's limit; released when it ends. */
  async openTunnel(admitted: Admitted, port: number): Promise<ReturnType<typeof tunnelSocket>> {
    const email = admitted.caller.email;
    const open = this.openByPerson.get(email) ?? 0;
    if (open >= this.limits.tunnelsPerPerson) {
      throw new HttpError(429, `you already have ${this.limits.tunnelsPerPerson} connections to workspace apps open; close some tabs and retry`, { 'Retry-After': '5' });
    }
    this.openByPerson.set(email, open + 1);
    const release = () => {
      const left = (this.openByPerson.get(email) ?? 1) - 1;
      if (left > 0) this.openByPerson.set(email, left);
      else this.openByPerson.delete(email);
    };
    let tunnel: PortTunnel;
    try {
      tunnel = await openPortForward(admitted.kube, admitted.target, port);
    } catch (err) {
      release();
      throw err;
    }
    this.tunnels.add(tunnel);
    const opened = tunnelSocket(tunnel);
    void opened.ended.then(() => {
      this.tunnels.delete(tunnel);
      release();
    });
    return opened;
  }

  forwardedFor(req: IncomingMessage, route: Route, clientAddress: string) {
    return { prefix: route.address.prefix, host: req.headers.host ?? new URL(route.origin).host, proto: this.https ? ('https' as const) : ('http' as const), clientAddress };
  }

  /**
   * Sends the request to the app over a tunnel of the person's pool (an idle one when there is
   * one, else a new port forward). A GET or HEAD whose idle tunnel turns out closed is sent
   * once more on a new one; a body is sent once. Nothing of the answer is written before
   * `confirmed` resolves; when it rejects, the app's answer is dropped with its tunnel.
   */
  async relayHttp(req: IncomingMessage, res: ServerResponse, route: Route, admitted: Admitted, clientAddress: string, confirmed?: () => Promise<void>): Promise<void> {
    const { address } = route;
    const what = `port ${address.port} of workspace ${address.workspace}`;
    const method = req.method ?? 'GET';
    const identity = admitted.sharedBy ? `shared by ${admitted.sharedBy}` : serviceAccountOf(admitted.caller);
    const key = [admitted.caller.email, identity, admitted.target.namespace, admitted.target.pod, address.port].join(' ');
    const agent = this.pool.agentFor(key, () => this.openTunnel(admitted, address.port).catch((err: unknown) => Promise.reject(new TunnelRefused(err))));
    const headers = requestHeadersForApp(req.headers, this.forwardedFor(req, route, clientAddress), { upgrade: false });
    const send = (withBody: boolean) => {
      const upstream = http.request({ agent, method, path: address.upstreamPath, headers });
      let stopIdle = () => {};
      upstream.once('socket', (socket: Duplex) => {
        stopIdle = closeWhenIdle(this.limits.idleMs, [socket, req.socket], () => upstream.destroy(new Error(`no byte moved for ${this.limits.idleMs / 1000} s`)));
      });
      if (withBody) {
        let sent = 0;
        req.on('data', (chunk: Buffer) => {
          sent += chunk.length;
          if (sent > this.limits.bodyBytes) {
            upstream.destroy(new Error(`the request body is larger than the preview's limit of ${this.limits.bodyBytes} bytes`));
            req.socket.destroy();
          }
        });
        req.pipe(upstream);
      } else {
        upstream.end();
      }
      const answered = new Promise<IncomingMessage>((resolve, reject) => {
        upstream.once('response', resolve);
        upstream.once('error', reject);
      });
      return { upstream, answered, stopIdle: () => stopIdle() };
    };
    const bodiless = method === 'GET' || method === 'HEAD';
    let attempt = send(!bodiless);
    let unconfirmed: { err: unknown } | undefined;
    try {
      let answer: IncomingMessage;
      try {
        answer = await attempt.answered;
      } catch (err) {
        if (!bodiless || !attempt.upstream.reusedSocket || err instanceof TunnelRefused) throw err;
        attempt.stopIdle();
        attempt = send(false);
        answer = await attempt.answered;
      }
      if (confirmed) {
        try {
          await confirmed();
        } catch (err) {
          unconfirmed = { err };
          throw err;
        }
      }
      // The browser went away while the app (or the session check) was answering: 'close' has
      // fired already, so nothing would end this request; the tunnel carries an unread answer.
      if (res.destroyed) {
        attempt.upstream.destroy();
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, responseHeadersFromApp(answer.headers, address.prefix, { upgrade: false }));
      answer.pipe(res);
      await new Promise<void>((resolve) => {
        res.once('close', resolve);
        answer.once('error', () => res.destroy());
      });
      // The browser went away mid-answer: that tunnel carries the rest of it, so it is not reused.
      if (!answer.complete) attempt.upstream.destroy();
    } catch (err) {
      if (unconfirmed) {
        attempt.upstream.destroy();
        throw unconfirmed.err;
      }
      if (err instanceof TunnelRefused) {
        const failure = previewFailure(err.reason, `the port forward to ${what}`);
        throw new HttpError(failure.status, failure.message, err.reason instanceof HttpError ? err.reason.headers : {});
      }
      const socket = attempt.upstream.socket;
      attempt.upstream.destroy();
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const end = await this.pool.endOf(socket);
      const why = end?.error ?? (err as Error).message;
      throw new HttpError(502, `nothing answered on ${what}: ${why}. Is a server listening on port ${address.port} inside the workspace?`);
    } finally {
      attempt.stopIdle();
    }
  }
}
