// Port preview: `{base_url}/w/<workspace>/ports/<port>/…` proxied, HTTP and websockets, to
// localhost:<port> in the workspace's pod through pods/portforward opened with the person's
// own minted token, so the cluster's RBAC decides who reaches which pod. One tunnel per
// connection to the app (the portforward protocol carries one TCP stream per websocket).
// The person is recognised by Den's session cookie (or a Den API token), which never reaches
// the app (headers.ts); a websocket from a browser must come from a page of Den's origin, and
// a cookie-carried request that changes something must not come from another origin.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Log } from '../../process/role.js';
import type { KubeClient } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { openPortForward, tunnelSocket, type PortTunnel } from '../../kube/portforward.js';
import type { SessionTarget } from '../../shell/target.js';
import { HttpError } from '../../koa/errors.js';
import { errorPage, type Viewer } from '../../web/templates/layout.js';
import { actAs, credentialOf, CredentialRefused, type AuthDeps, type Credential } from '../auth/authenticate.js';
import type { Caller } from '../http/context.js';
import type { AssetStore } from '../pages/assets.js';
import { PAGE_CSP, sameOriginPath } from '../pages/middleware.js';
import { answerHttp } from '../terminal/upgrade.js';
import { CLOSE } from '../../web/terminal-protocol.js';
import { refusalOf, resolveTerminalTarget, TerminalRefused } from '../terminal/target.js';
import { previewAddress, PreviewAddressError, type PreviewAddress } from './address.js';
import { requestHeadersForApp, responseHeadersFromApp } from './headers.js';

/** The limits of the preview proxy (README, docs/preview.md). */
export const PREVIEW_LIMITS = {
  /** Largest request body passed to an app; a longer one is answered 413 (by Content-Length) or cut off. */
  bodyBytes: 64 << 20,
  /** A connection to an app with no byte either way for this long is closed. */
  idleMs: 5 * 60_000,
  /** Connections to apps one person may have open at once (a browser opens 6 per host, plus websockets). */
  tunnelsPerPerson: 32,
  /** How long a workspace's pod, once read, is used without reading it again. */
  targetCacheMs: 5_000,
} as const;

export interface PreviewDeps extends Pick<AuthDeps, 'sessions' | 'tokens' | 'directory' | 'minter' | 'serverClient' | 'now'> {
  /** `--base-url`: the only Origin a preview websocket or a changing request may come from. */
  baseUrl: string;
  assets: AssetStore;
  log: Log;
  ready: () => boolean;
  limits?: Partial<typeof PREVIEW_LIMITS>;
}

/** Who asked, as what, and the pod the preview goes to. */
interface Admitted {
  caller: Caller;
  viewer?: Viewer;
  kube: KubeClient;
  target: SessionTarget;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function statusOfRefusal(refused: TerminalRefused): number {
  switch (refused.code) {
    case CLOSE.forbidden:
      return 403;
    case CLOSE.notFound:
      return 404;
    case CLOSE.notRunning:
      return 409;
    default:
      return 502;
  }
}

/** A failure to reach the app, as the status and the words the person reads. */
export function previewFailure(err: unknown, what: string): { status: number; message: string } {
  if (err instanceof HttpError || err instanceof PreviewAddressError) return { status: err instanceof HttpError ? err.status : 404, message: err.message };
  if (err instanceof KubeApiError && err.status === 403) return { status: 403, message: `the cluster refused ${what}: ${err.message}` };
  const refused = refusalOf(err, what);
  return { status: statusOfRefusal(refused), message: refused.message };
}

function viewerOf(credential: Credential, caller: Caller): Viewer {
  return { email: caller.email, role: caller.role, csrf: credential.kind === 'cookie' ? credential.session.csrfToken : '' };
}

/** Closes whatever `streams` are still open once none of them has moved a byte for `ms`. */
function closeWhenIdle(ms: number, streams: Duplex[], onIdle: () => void): () => void {
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

export class PreviewProxy {
  private readonly origin: string;
  private readonly https: boolean;
  private readonly limits: typeof PREVIEW_LIMITS;
  private readonly openByPerson = new Map<string, number>();
  private readonly targets = new Map<string, { target: SessionTarget; until: number }>();
  /** Tunnels open now, to close them when the server stops. */
  private readonly tunnels = new Set<PortTunnel>();

  constructor(private readonly deps: PreviewDeps) {
    const base = new URL(deps.baseUrl);
    this.origin = base.origin;
    this.https = base.protocol === 'https:';
    this.limits = { ...PREVIEW_LIMITS, ...deps.limits };
  }

  /** Tunnels open now, per person, for tests and figures. */
  openTunnels(email: string): number {
    return this.openByPerson.get(email) ?? 0;
  }

  /** Serves one HTTP request for a preview path; every failure is a page saying what went wrong. */
  async serveHttp(req: http.IncomingMessage, res: http.ServerResponse, clientAddress: string): Promise<void> {
    let viewer: Viewer | undefined;
    try {
      const address = previewAddress(req.url ?? '/');
      if (!address.slashed) {
        const query = (req.url ?? '').includes('?') ? (req.url ?? '').slice((req.url ?? '').indexOf('?')) : '';
        res.writeHead(308, { Location: `${address.prefix}/${query}`, 'Cache-Control': 'no-store' }).end();
        return;
      }
      if (!this.deps.ready()) throw new HttpError(503, 'the server is starting; retry shortly', { 'Retry-After': '2' });
      const method = req.method ?? 'GET';
      const origin = req.headers.origin;
      if (!SAFE_METHODS.has(method) && origin !== undefined && origin !== this.origin) {
        throw new HttpError(403, `a ${method} to a preview may only come from a page of ${this.origin}, not ${origin.slice(0, 200)}`);
      }
      const length = Number(req.headers['content-length'] ?? 0);
      if (length > this.limits.bodyBytes) throw new HttpError(413, `the request body is larger than the preview's limit of ${this.limits.bodyBytes} bytes`);
      const admitted = await this.admit(req, address).catch((err: unknown) => {
        if (err instanceof CredentialRefused && (method === 'GET' || method === 'HEAD')) return 'sign-in' as const;
        throw err;
      });
      if (admitted === 'sign-in') {
        res.writeHead(302, { Location: `/login?next=${encodeURIComponent(sameOriginPath(req.url))}`, 'Cache-Control': 'no-store' }).end();
        return;
      }
      viewer = admitted.viewer;
      await this.relayHttp(req, res, address, admitted, clientAddress);
    } catch (err) {
      await this.answerPage(res, err, viewer);
    }
  }

  /** Serves a websocket (any upgrade) for a preview path; a refusal is a plain HTTP answer with {error}. */
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, clientAddress: string): void {
    socket.on('error', (err) => this.deps.log('preview socket error', { error: err.message }));
    const refuse = (err: unknown) => {
      const { status, message } = err instanceof CredentialRefused ? { status: 401, message: err.message } : previewFailure(err, 'the port forward');
      if (status >= 500) this.deps.log('preview upgrade failed', { error: message });
      if (!socket.destroyed) answerHttp(socket, status, message);
    };
    try {
      const address = previewAddress(req.url ?? '/');
      if (!address.slashed) throw new HttpError(404, `no websocket is served at ${address.prefix}; add a path after the port`);
      if (!this.deps.ready()) throw new HttpError(503, 'the server is starting; retry shortly');
      this.admit(req, address, { websocket: true }).then(
        (admitted) => (socket.destroyed ? undefined : this.relayUpgrade(req, socket, head, address, admitted, clientAddress).catch(refuse)),
        refuse,
      );
    } catch (err) {
      refuse(err);
    }
  }

  /** Closes every open tunnel (the server is stopping). */
  close(): void {
    for (const t of this.tunnels) t.close();
  }

  /** Who is asking (cookie or Den API token) and the pod of their workspace, read with their token. */
  private async admit(req: http.IncomingMessage, address: PreviewAddress, opts: { websocket?: boolean } = {}): Promise<Admitted> {
    const get = (name: string) => {
      const v = req.headers[name.toLowerCase()];
      return (Array.isArray(v) ? v[0] : v) ?? '';
    };
    const credential = await credentialOf({ get }, this.deps);
    if (opts.websocket && credential.kind === 'cookie' && req.headers.origin !== this.origin) {
      throw new HttpError(403, `a preview websocket may only be opened from a page of ${this.origin}`);
    }
    const { caller, kube } = await actAs(credential, this.deps);
    const target = await this.targetOf(kube, caller.namespace, address.workspace);
    return { caller, kube, target, viewer: viewerOf(credential, caller) };
  }

  private async targetOf(kube: KubeClient, namespace: string, workspace: string): Promise<SessionTarget> {
    const key = `${namespace}/${workspace}`;
    const now = this.deps.now();
    const hit = this.targets.get(key);
    if (hit && hit.until > now) return hit.target;
    const target = await resolveTerminalTarget(kube, namespace, workspace);
    for (const [k, v] of this.targets) if (v.until <= now) this.targets.delete(k);
    this.targets.set(key, { target, until: now + this.limits.targetCacheMs });
    return target;
  }

  /** Opens a tunnel counted against the person's limit; released when it ends. */
  private async openTunnel(admitted: Admitted, port: number): Promise<ReturnType<typeof tunnelSocket>> {
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

  private forwardedFor(req: http.IncomingMessage, address: PreviewAddress, clientAddress: string) {
    return { prefix: address.prefix, host: req.headers.host ?? new URL(this.origin).host, proto: this.https ? ('https' as const) : ('http' as const), clientAddress };
  }

  private async relayHttp(req: http.IncomingMessage, res: http.ServerResponse, address: PreviewAddress, admitted: Admitted, clientAddress: string): Promise<void> {
    const what = `port ${address.port} of workspace ${address.workspace}`;
    const { socket, ended } = await this.openTunnel(admitted, address.port).catch((err: unknown) => {
      const failure = previewFailure(err, `the port forward to ${what}`);
      throw new HttpError(failure.status, failure.message, err instanceof HttpError ? err.headers : {});
    });
    const upstream = http.request({
      createConnection: () => socket,
      method: req.method,
      path: address.upstreamPath,
      headers: requestHeadersForApp(req.headers, this.forwardedFor(req, address, clientAddress), { upgrade: false }),
    });
    const stopIdle = closeWhenIdle(this.limits.idleMs, [socket, req.socket], () => {
      upstream.destroy(new Error(`no byte moved for ${this.limits.idleMs / 1000} s`));
    });
    let sent = 0;
    req.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      if (sent > this.limits.bodyBytes) {
        upstream.destroy(new Error(`the request body is larger than the preview's limit of ${this.limits.bodyBytes} bytes`));
        req.socket.destroy();
      }
    });
    req.pipe(upstream);
    try {
      const answer = await new Promise<http.IncomingMessage>((resolve, reject) => {
        upstream.once('response', resolve);
        upstream.once('error', reject);
      });
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, responseHeadersFromApp(answer.headers, address.prefix, { upgrade: false }));
      answer.pipe(res);
      await new Promise<void>((resolve) => {
        res.once('close', resolve);
        answer.once('error', () => res.destroy());
      });
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      socket.destroy();
      const end = await ended;
      const why = end.error ?? (err as Error).message;
      throw new HttpError(502, `nothing answered on ${what}: ${why}. Is a server listening on port ${address.port} inside the workspace?`);
    } finally {
      stopIdle();
      socket.destroy();
    }
  }

  private async relayUpgrade(req: http.IncomingMessage, client: Duplex, head: Buffer, address: PreviewAddress, admitted: Admitted, clientAddress: string): Promise<void> {
    const what = `port ${address.port} of workspace ${address.workspace}`;
    const { socket, ended } = await this.openTunnel(admitted, address.port);
    const upstream = http.request({
      createConnection: () => socket,
      method: 'GET',
      path: address.upstreamPath,
      headers: requestHeadersForApp(req.headers, this.forwardedFor(req, address, clientAddress), { upgrade: true }),
    });
    client.once('close', () => socket.destroy());
    upstream.once('upgrade', (answer, appSocket, appHead) => {
      const headers = responseHeadersFromApp(answer.headers, address.prefix, { upgrade: true });
      const lines = [`HTTP/1.1 ${answer.statusCode ?? 101} ${answer.statusMessage ?? 'Switching Protocols'}`];
      for (const [name, value] of Object.entries(headers)) for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${String(v)}`);
      client.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (appHead.length) client.write(appHead);
      if (head.length) appSocket.write(head);
      const stopIdle = closeWhenIdle(this.limits.idleMs, [appSocket, client], () => {
        client.destroy();
        appSocket.destroy();
      });
      appSocket.pipe(client);
      client.pipe(appSocket);
      const done = () => {
        stopIdle();
        client.destroy();
        appSocket.destroy();
      };
      appSocket.once('close', done);
      client.once('close', done);
      appSocket.on('error', done);
    });
    upstream.once('response', (answer) => {
      // The app refused the upgrade: its answer goes back as it is (cookies confined).
      const headers = responseHeadersFromApp(answer.headers, address.prefix, { upgrade: false });
      const lines = [`HTTP/1.1 ${answer.statusCode ?? 502} ${answer.statusMessage ?? ''}`, 'Connection: close'];
      for (const [name, value] of Object.entries(headers)) for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${String(v)}`);
      client.write(`${lines.join('\r\n')}\r\n\r\n`);
      answer.pipe(client);
    });
    upstream.once('error', (err) => {
      void ended.then((end) => {
        if (!client.destroyed) answerHttp(client, 502, `nothing answered on ${what}: ${end.error ?? err.message}`);
      });
      socket.destroy();
    });
    upstream.end();
  }

  private async answerPage(res: http.ServerResponse, err: unknown, viewer: Viewer | undefined): Promise<void> {
    const { status, message } = previewFailure(err, 'opening the preview');
    const headers = err instanceof HttpError ? err.headers : {};
    if (status >= 500) this.deps.log('preview failed', { status, error: message });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body = errorPage(await this.deps.assets.load(), status, message, viewer);
    res.writeHead(status, { ...headers, 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'DENY' });
    res.end(body);
  }
}
