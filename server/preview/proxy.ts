// Port preview, HTTP and websockets, to localhost:<port> in a workspace's pod through
// pods/portforward opened with the person's own minted token, so the cluster's RBAC decides
// who reaches which pod. One tunnel per connection to the app (the portforward protocol
// carries one TCP stream per websocket). Two addresses:
// - path-based, `{base_url}/w/<workspace>/ports/<port>/…`, the viewer's own workspace, the
//   person recognised by Den's session cookie (or a Den API token);
// - host-based, `<port>--<workspace>--<person>.<apps domain>` at `/`, an origin per app,
//   the person recognised by an app cookie of that host only (app-host.ts mints it).
// Den's credentials never reach the app (headers.ts); a websocket from a browser must come
// from a page of the origin it is served on, and so must a cookie-carried request that changes something.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { http } from '../../process/node-http.js';
import type { Duplex } from 'node:stream';
import type { Log } from '../../process/role.js';
import type { KubeClient } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { openPortForward, tunnelSocket, type PortTunnel } from '../../kube/portforward.js';
import type { SessionTarget } from '../../shell/target.js';
import { HttpError } from '../../koa/errors.js';
import { errorPage, type Viewer } from '../../web/templates/layout.js';
import { actAs, cachedCredentialOf, credentialOf, CredentialRefused, READ_METHODS, serviceAccountOf, type AuthDeps, type Credential } from '../auth/authenticate.js';
import type { Caller } from '../http/context.js';
import type { Session } from '../auth/sessions.js';
import type { AssetStore } from '../pages/assets.js';
import { PAGE_CSP, sameOriginPath } from '../pages/middleware.js';
import { answerHttp } from '../terminal/upgrade.js';
import { CLOSE } from '../../web/terminal-protocol.js';
import { refusalOf, resolveTerminalTarget, TerminalRefused } from '../terminal/target.js';
import { previewAddress, PreviewAddressError, type PreviewAddress } from './address.js';
import { requestHeadersForApp, responseHeadersFromApp } from './headers.js';
import { TUNNEL_IDLE_MS, TunnelPool } from './tunnel-pool.js';
import { appOfHost, appUrlsOf, type AppHost, type AppUrl } from '../../contract/apps-domain.js';
import { userNamespace } from '../../kube/group.js';
import { appHostErrorPage } from '../../web/templates/layout.js';
import { APP_AUTH_PATH, appCookieValues, openAppPath, redeemTicket, sendToAppHost, type AppPassDeps } from './app-host.js';

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
  /** How long a tunnel an answer left open waits for the next request of the same person to the same port. */
  tunnelIdleMs: TUNNEL_IDLE_MS,
} as const;

export interface PreviewDeps extends Pick<AuthDeps, 'sessions' | 'tokens' | 'directory' | 'minter' | 'serverClient' | 'now'>, AppPassDeps {
  /** `--base-url`: the only Origin a path-based preview's websocket or changing request may come from. */
  baseUrl: string;
  /** `--apps-domain`: host-based previews under it; empty or absent: none. */
  appsDomain?: string;
  assets: AssetStore;
  log: Log;
  ready: () => boolean;
  limits?: Partial<typeof PREVIEW_LIMITS>;
}

/** Where a request is served: the app's address, and the one origin its pages have. */
interface Route {
  address: PreviewAddress;
  /** Den's origin (path-based) or the app host's own (host-based). */
  origin: string;
  /** Host-based only: the app the Host header names. */
  app?: AppHost;
}

/** Who asked, as what, and the pod the preview goes to. */
interface Admitted {
  caller: Caller;
  viewer?: Viewer;
  kube: KubeClient;
  target: SessionTarget;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** How a request's credential is found: a hint from this replica's informer, and the API server's word on it. */
interface CredentialCheck {
  /** The credential as the informer holds it (and the namespace of the workspace it asks for, when not the person's own). */
  hint(): { credential: Credential; namespace?: string } | undefined;
  /** Whether the hint still holds, as the API server says now. */
  confirm(hint: { credential: Credential }): Promise<boolean>;
  /** The request admitted on a confirmed credential; undefined when there is none live. */
  admitConfirmed(): Promise<Admitted | undefined>;
  /** Told of the admission (the page's viewer). */
  admitted(admission: Admitted): void;
}

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

/** Opening a port forward failed (refused by the cluster, or the person's limit), as opposed to the app failing on an open one. */
class TunnelRefused extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

function headerOf(req: IncomingMessage, name: string): string {
  const v = req.headers[name.toLowerCase()];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

export class PreviewProxy {
  private readonly origin: string;
  private readonly https: boolean;
  private readonly limits: typeof PREVIEW_LIMITS;
  private readonly openByPerson = new Map<string, number>();
  private readonly targets = new Map<string, { target: SessionTarget; until: number }>();
  /** Tunnels open now, to close them when the server stops. */
  private readonly tunnels = new Set<PortTunnel>();
  /** Tunnels left open by an answer, for the next request to the same port. */
  private readonly pool: TunnelPool;

  private readonly appsDomain: string;
  private readonly appUrls: AppUrl | undefined;

  constructor(private readonly deps: PreviewDeps) {
    const base = new URL(deps.baseUrl);
    this.origin = base.origin;
    this.appsDomain = deps.appsDomain ?? '';
    this.appUrls = appUrlsOf(this.appsDomain, deps.baseUrl);
    this.https = base.protocol === 'https:';
    this.limits = { ...PREVIEW_LIMITS, ...deps.limits };
    this.pool = new TunnelPool(this.limits.tunnelIdleMs);
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

  /** The app a request's Host header names, when host-based previews are on and it names one. */
  appOf(req: IncomingMessage): AppHost | undefined {
    return this.appsDomain ? appOfHost(req.headers.host, this.appsDomain) : undefined;
  }

  /** The address of `path` of an app host-based, or undefined when host-based previews are off or the names do not fit a host. */
  appUrl(app: AppHost, path = '/'): string | undefined {
    return this.appUrls?.(app, path);
  }

  /**
   * `GET /apps/open?host=<app host>&path=<path>` on Den's origin: the signed-in person gets a
   * one-use ticket for that app host and is sent there to trade it for the app's cookie.
   */
  async openApp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (!this.deps.ready()) throw new HttpError(503, 'the server is starting; retry shortly', { 'Retry-After': '2' });
      await sendToAppHost(req, res, { ...this.deps, origin: this.origin, appsDomain: this.appsDomain, appUrl: this.appUrls });
    } catch (err) {
      await this.answerPage(res, err, undefined);
    }
  }

  /** Serves one HTTP request on an app's own host; every failure is a bare page saying what went wrong. */
  async serveAppHost(req: IncomingMessage, res: ServerResponse, app: AppHost, clientAddress: string): Promise<void> {
    try {
      if (!this.deps.ready()) throw new HttpError(503, 'the server is starting; retry shortly', { 'Retry-After': '2' });
      const route = this.appRoute(req, app);
      const host = new URL(route.origin).hostname;
      const method = req.method ?? 'GET';
      if (route.address.upstreamPath.split('?')[0] === APP_AUTH_PATH) {
        await redeemTicket(req, res, new URL(route.address.upstreamPath, route.origin), { ...this.deps, https: this.https });
        return;
      }
      this.checkRequest(req, route);
      const served = await this.relayBesideCheck(req, res, route, clientAddress, this.appCredentialCheck(req, route, host));
      if (served === 'sign-in') {
        if (!READ_METHODS.has(method)) throw new CredentialRefused(`open the app from Den first (${this.origin}), then retry`);
        res.writeHead(302, { Location: `${this.origin}${openAppPath(host, route.address.upstreamPath)}`, 'Cache-Control': 'no-store' }).end();
      }
    } catch (err) {
      this.answerAppHostPage(res, err);
    }
  }

  /** Serves one HTTP request for a preview path; every failure is a page saying what went wrong. */
  async serveHttp(req: IncomingMessage, res: ServerResponse, clientAddress: string): Promise<void> {
    let viewer: Viewer | undefined;
    try {
      const address = previewAddress(req.url ?? '/');
      if (!address.slashed) {
        const query = (req.url ?? '').includes('?') ? (req.url ?? '').slice((req.url ?? '').indexOf('?')) : '';
        res.writeHead(308, { Location: `${address.prefix}/${query}`, 'Cache-Control': 'no-store' }).end();
        return;
      }
      if (!this.deps.ready()) throw new HttpError(503, 'the server is starting; retry shortly', { 'Retry-After': '2' });
      const route: Route = { address, origin: this.origin };
      this.checkRequest(req, route);
      const served = await this.relayBesideCheck(req, res, route, clientAddress, this.denCredentialCheck(req, route, (admitted) => (viewer = admitted.viewer)));
      // Only a GET or HEAD is sent to sign in; any other request without a live credential was refused in its words.
      if (served === 'sign-in') {
        res.writeHead(302, { Location: `/login?next=${encodeURIComponent(sameOriginPath(req.url))}`, 'Cache-Control': 'no-store' }).end();
      }
    } catch (err) {
      await this.answerPage(res, err, viewer);
    }
  }

  /**
   * Admits the request and relays it. A GET or HEAD whose credential this replica's informer
   * already holds (`hint`) is relayed beside the credential's confirmation with the API server
   * (as REST reads are, server/auth/authenticate.ts), and the app's answer is held until it
   * passes: if it does not (signed out through another replica a moment ago), the answer is
   * dropped and the request is answered as a signed-out one. Any other request is admitted
   * once confirmed (`admitConfirmed`). 'sign-in' when there is no live credential.
   */
  private async relayBesideCheck(req: IncomingMessage, res: ServerResponse, route: Route, clientAddress: string, check: CredentialCheck): Promise<'sign-in' | void> {
    const hint = READ_METHODS.has(req.method ?? 'GET') ? check.hint() : undefined;
    if (!hint) {
      const admission = await check.admitConfirmed();
      if (!admission) return 'sign-in';
      check.admitted(admission);
      return this.relayHttp(req, res, route, admission, clientAddress);
    }
    const confirmation = check.confirm(hint).then(
      (holds) => (holds ? undefined : new CredentialRefused('your session has ended; sign in again')),
      (err: unknown) => err,
    );
    const confirmed = async () => {
      const failed = await confirmation;
      if (failed) throw failed;
    };
    try {
      const admission = await this.admitWith(hint.credential, route, hint.namespace);
      check.admitted(admission);
      await this.relayHttp(req, res, route, admission, clientAddress, confirmed);
    } catch (err) {
      // Whatever went wrong, a credential that did not hold is answered as signed out.
      if ((await confirmation) instanceof CredentialRefused) return 'sign-in';
      throw err;
    }
  }

  /** The path-based preview's credential: Den's session cookie or an API token, in the person's own namespace. */
  private denCredentialCheck(req: IncomingMessage, route: Route, admitted: (a: Admitted) => void): CredentialCheck {
    const get = (name: string) => headerOf(req, name);
    return {
      hint: () => {
        const credential = cachedCredentialOf({ get }, this.deps);
        return credential && { credential };
      },
      confirm: () => credentialOf({ get }, this.deps).then(() => true, (err: unknown) => (err instanceof CredentialRefused ? false : Promise.reject(err))),
      // A GET or HEAD without a live credential goes to the sign-in page; anything else is refused in the refusal's words.
      admitConfirmed: () => this.admit(req, route).catch((err: unknown) => (err instanceof CredentialRefused && READ_METHODS.has(req.method ?? 'GET') ? undefined : Promise.reject(err))),
      admitted,
    };
  }

  /** The app host's credential: an app cookie of this host, standing for a Den session, in the namespace of the person the host names. */
  private appCredentialCheck(req: IncomingMessage, route: Route, host: string): CredentialCheck {
    const namespace = userNamespace(route.app!.person);
    return {
      hint: () => {
        const now = this.deps.now();
        for (const value of appCookieValues(headerOf(req, 'cookie'))) {
          const pass = this.deps.appPasses.cachedCookiePass(value, host, now);
          const session = pass && this.deps.sessions.cachedStored(pass.session, now);
          if (session) return { credential: { kind: 'cookie', session }, namespace };
        }
        return undefined;
      },
      confirm: async (hint) => (await this.appSessionOf(req, host))?.secretName === (hint.credential.kind === 'cookie' ? hint.credential.session.secretName : undefined),
      admitConfirmed: () => this.admitAppHost(req, route, host),
      admitted: () => undefined,
    };
  }

  /** Serves a websocket (any upgrade) for a preview path; a refusal is a plain HTTP answer with {error}. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, clientAddress: string): void {
    socket.on('error', (err) => this.deps.log('preview socket error', { error: err.message }));
    const refuse = (err: unknown) => {
      const { status, message } = err instanceof CredentialRefused ? { status: 401, message: err.message } : previewFailure(err, 'the port forward');
      if (status >= 500) this.deps.log('preview upgrade failed', { error: message });
      if (!socket.destroyed) answerHttp(socket, status, message);
    };
    try {
      const app = this.appOf(req);
      const route: Route = app ? this.appRoute(req, app) : { address: previewAddress(req.url ?? '/'), origin: this.origin };
      if (!route.address.slashed) throw new HttpError(404, `no websocket is served at ${route.address.prefix}; add a path after the port`);
      if (!this.deps.ready()) throw new HttpError(503, 'the server is starting; retry shortly');
      const admitting = app
        ? this.admitAppHost(req, route, new URL(route.origin).hostname, { websocket: true }).then((admitted) => admitted ?? Promise.reject(new CredentialRefused(`open the app from Den first (${this.origin}), then reconnect`)))
        : this.admit(req, route, { websocket: true });
      admitting.then(
        (admitted) => (socket.destroyed ? undefined : this.relayUpgrade(req, socket, head, route, admitted, clientAddress).catch(refuse)),
        refuse,
      );
    } catch (err) {
      refuse(err);
    }
  }

  /** Closes every open tunnel (the server is stopping). */
  close(): void {
    this.pool.close();
    for (const t of this.tunnels) t.close();
  }

  /** Who is asking (cookie or Den API token) and the pod of their workspace, read with their token. */
  private async admit(req: IncomingMessage, route: Route, opts: { websocket?: boolean } = {}): Promise<Admitted> {
    const credential = await credentialOf({ get: (name) => headerOf(req, name) }, this.deps);
    if (opts.websocket && credential.kind === 'cookie') this.checkWebsocketOrigin(req, route);
    return this.admitWith(credential, route);
  }

  /** The person a credential stands for, and the pod of the workspace in `namespace` (their own by default) read with their token. */
  private async admitWith(credential: Credential, route: Route, namespace?: string): Promise<Admitted> {
    const { caller, kube } = await actAs(credential, this.deps);
    const target = await this.targetOf(kube, caller.email, namespace ?? caller.namespace, route.address.workspace);
    return { caller, kube, target, viewer: viewerOf(credential, caller) };
  }

  /**
   * The person behind the app cookie of this host, and the pod of the workspace the host names
   * in the namespace of the person it names, read with the viewer's token: another person's
   * workspace is refused by the cluster. Undefined when no cookie of this host is live.
   */
  private async admitAppHost(req: IncomingMessage, route: Route, host: string, opts: { websocket?: boolean } = {}): Promise<Admitted | undefined> {
    if (opts.websocket) this.checkWebsocketOrigin(req, route);
    const session = await this.appSessionOf(req, host);
    if (!session) return undefined;
    const { caller, kube, target } = await this.admitWith({ kind: 'cookie', session }, route, userNamespace(route.app!.person));
    return { caller, kube, target };
  }

  /** The live Den session behind the first live app cookie of this host the request carries, as the API server holds them now. */
  private async appSessionOf(req: IncomingMessage, host: string): Promise<Session | undefined> {
    const now = this.deps.now();
    for (const value of appCookieValues(headerOf(req, 'cookie'))) {
      const pass = await this.deps.appPasses.cookiePass(value, host, now);
      const session = pass && (await this.deps.sessions.lookupStored(pass.session, now));
      if (session) return session;
    }
    return undefined;
  }

  /** The app host's route: the whole path goes to the app, nothing is stripped. */
  private appRoute(req: IncomingMessage, app: AppHost): Route {
    const url = req.url?.startsWith('/') ? req.url : '/';
    const origin = this.appUrl(app);
    if (!origin) throw new PreviewAddressError(`${headerOf(req, 'host').slice(0, 200)} is not an app address`);
    return { address: { workspace: app.workspace, port: app.port, prefix: '', upstreamPath: url, slashed: true }, origin: new URL(origin).origin, app };
  }

  /** A cookie-carried websocket must come from a page of the origin it is served on. */
  private checkWebsocketOrigin(req: IncomingMessage, route: Route): void {
    if (req.headers.origin !== route.origin) throw new HttpError(403, `a preview websocket may only be opened from a page of ${route.origin}`);
  }

  /** A changing request must not come from another origin, and its body must fit. */
  private checkRequest(req: IncomingMessage, route: Route): void {
    const method = req.method ?? 'GET';
    const origin = req.headers.origin;
    if (!SAFE_METHODS.has(method) && origin !== undefined && origin !== route.origin) {
      throw new HttpError(403, `a ${method} to a preview may only come from a page of ${route.origin}, not ${origin.slice(0, 200)}`);
    }
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > this.limits.bodyBytes) throw new HttpError(413, `the request body is larger than the preview's limit of ${this.limits.bodyBytes} bytes`);
  }

  /** The pod as `viewer` read it: what one person may read says nothing of what another may. */
  private async targetOf(kube: KubeClient, viewer: string, namespace: string, workspace: string): Promise<SessionTarget> {
    const key = `${viewer} ${namespace}/${workspace}`;
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

  private forwardedFor(req: IncomingMessage, route: Route, clientAddress: string) {
    return { prefix: route.address.prefix, host: req.headers.host ?? new URL(route.origin).host, proto: this.https ? ('https' as const) : ('http' as const), clientAddress };
  }

  /**
   * Sends the request to the app over a tunnel of the person's pool (an idle one when there is
   * one, else a new port forward). A GET or HEAD whose idle tunnel turns out closed is sent
   * once more on a new one; a body is sent once. Nothing of the answer is written before
   * `confirmed` resolves; when it rejects, the app's answer is dropped with its tunnel.
   */
  private async relayHttp(req: IncomingMessage, res: ServerResponse, route: Route, admitted: Admitted, clientAddress: string, confirmed?: () => Promise<void>): Promise<void> {
    const { address } = route;
    const what = `port ${address.port} of workspace ${address.workspace}`;
    const method = req.method ?? 'GET';
    const key = [admitted.caller.email, serviceAccountOf(admitted.caller), admitted.target.namespace, admitted.target.pod, address.port].join(' ');
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

  private async relayUpgrade(req: IncomingMessage, client: Duplex, head: Buffer, route: Route, admitted: Admitted, clientAddress: string): Promise<void> {
    const { address } = route;
    const what = `port ${address.port} of workspace ${address.workspace}`;
    const { socket, ended } = await this.openTunnel(admitted, address.port);
    const upstream = http.request({
      createConnection: () => socket,
      method: 'GET',
      path: address.upstreamPath,
      headers: requestHeadersForApp(req.headers, this.forwardedFor(req, route, clientAddress), { upgrade: true }),
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

  private answerAppHostPage(res: ServerResponse, err: unknown): void {
    const { status, message } = err instanceof CredentialRefused ? { status: 401, message: err.message } : previewFailure(err, 'opening the app');
    if (status >= 500) this.deps.log('preview failed', { status, error: message });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const headers = err instanceof HttpError ? err.headers : {};
    res.writeHead(status, { ...headers, 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'none'", 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'DENY' });
    res.end(appHostErrorPage(status, message, this.origin));
  }

  private async answerPage(res: ServerResponse, err: unknown, viewer: Viewer | undefined): Promise<void> {
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
