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
// This file routes a request: which address, which credential check, which page answers;
// admission.ts says who asks, upstream.ts and websocket.ts carry the bytes, answers.ts refuses.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { HttpError } from '../../koa/errors.js';
import type { Viewer } from '../../web/templates/layout.js';
import { CredentialRefused, READ_METHODS } from '../auth/authenticate.js';
import { sameOriginPath } from '../pages/middleware.js';
import { answerHttp } from '../terminal/upgrade.js';
import { appOfHost, appUrlsOf, type AppHost, type AppUrl } from '../../contract/apps-domain.js';
import { previewAddress, PreviewAddressError } from './address.js';
import { PreviewAdmission } from './admission.js';
import { answerAppHostPage, answerPage, previewFailure } from './answers.js';
import { APP_AUTH_PATH, openAppPath, redeemTicket, sendToAppHost } from './app-host.js';
import { headerOf, PREVIEW_LIMITS, type CredentialCheck, type PreviewDeps, type Route } from './types.js';
import { PreviewUpstream } from './upstream.js';
import { relayUpgrade } from './websocket.js';

export { PREVIEW_LIMITS, type PreviewDeps } from './types.js';

export class PreviewProxy {
  private readonly origin: string;
  private readonly https: boolean;
  private readonly limits: typeof PREVIEW_LIMITS;
  private readonly admission: PreviewAdmission;
  private readonly upstream: PreviewUpstream;
  private readonly appsDomain: string;
  private readonly appUrls: AppUrl | undefined;

  constructor(private readonly deps: PreviewDeps) {
    const base = new URL(deps.baseUrl);
    this.origin = base.origin;
    this.appsDomain = deps.appsDomain ?? '';
    this.appUrls = appUrlsOf(this.appsDomain, deps.baseUrl);
    this.https = base.protocol === 'https:';
    this.limits = { ...PREVIEW_LIMITS, ...deps.limits };
    this.admission = new PreviewAdmission(deps, this.limits);
    this.upstream = new PreviewUpstream(this.limits, this.https);
  }

  /** Tunnels open now, per person, for tests and figures. */
  openTunnels(email: string): number {
    return this.upstream.openTunnels(email);
  }

  /** Tunnels waiting for a next request, for tests and figures. */
  idleTunnels(): number {
    return this.upstream.idleTunnels();
  }

  /** (person, identity, pod, port) keys that hold a tunnel now, for tests. */
  pooledKeys(): number {
    return this.upstream.pooledKeys();
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
      await answerPage(res, err, undefined, this.deps);
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
      this.admission.checkRequest(req, route);
      const served = await this.relayBesideCheck(req, res, route, clientAddress, this.admission.appCredentialCheck(req, route, host));
      if (served === 'sign-in') {
        if (!READ_METHODS.has(method)) throw new CredentialRefused(`open the app from Den first (${this.origin}), then retry`);
        res.writeHead(302, { Location: `${this.origin}${openAppPath(host, route.address.upstreamPath)}`, 'Cache-Control': 'no-store' }).end();
      }
    } catch (err) {
      answerAppHostPage(res, err, this.deps.log, this.origin);
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
      this.admission.checkRequest(req, route);
      const served = await this.relayBesideCheck(req, res, route, clientAddress, this.admission.denCredentialCheck(req, route, (admitted) => (viewer = admitted.viewer)));
      // Only a GET or HEAD is sent to sign in; any other request without a live credential was refused in its words.
      if (served === 'sign-in') {
        res.writeHead(302, { Location: `/login?next=${encodeURIComponent(sameOriginPath(req.url))}`, 'Cache-Control': 'no-store' }).end();
      }
    } catch (err) {
      await answerPage(res, err, viewer, this.deps);
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
  async relayBesideCheck(req: IncomingMessage, res: ServerResponse, route: Route, clientAddress: string, check: CredentialCheck): Promise<'sign-in' | void> {
    const hint = READ_METHODS.has(req.method ?? 'GET') ? check.hint() : undefined;
    if (!hint) {
      const admission = await check.admitConfirmed();
      if (!admission) return 'sign-in';
      check.admitted(admission);
      return this.upstream.relayHttp(req, res, route, admission, clientAddress);
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
      const admission = await check.admitHinted(hint.credential);
      check.admitted(admission);
      await this.upstream.relayHttp(req, res, route, admission, clientAddress, confirmed);
    } catch (err) {
      // Whatever went wrong, a credential that did not hold is answered as signed out.
      if ((await confirmation) instanceof CredentialRefused) return 'sign-in';
      throw err;
    }
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
        ? this.admission.admitAppHost(req, route, new URL(route.origin).hostname, { websocket: true }).then((admitted) => admitted ?? Promise.reject(new CredentialRefused(`open the app from Den first (${this.origin}), then reconnect`)))
        : this.admission.admit(req, route, { websocket: true });
      admitting.then(
        (admitted) => (socket.destroyed ? undefined : relayUpgrade(this.upstream, req, socket, head, route, admitted, clientAddress).catch(refuse)),
        refuse,
      );
    } catch (err) {
      refuse(err);
    }
  }

  /** Closes every open tunnel (the server is stopping). */
  close(): void {
    this.upstream.close();
  }

  /** The app host's route: the whole path goes to the app, nothing is stripped. */
  appRoute(req: IncomingMessage, app: AppHost): Route {
    const url = req.url?.startsWith('/') ? req.url : '/';
    const origin = this.appUrl(app);
    if (!origin) throw new PreviewAddressError(`${headerOf(req, 'host').slice(0, 200)} is not an app address`);
    return { address: { workspace: app.workspace, port: app.port, prefix: '', upstreamPath: url, slashed: true }, origin: new URL(origin).origin, app };
  }
}
