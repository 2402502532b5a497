// Who asks a preview, as what, and for which pod (docs/preview.md): Den's session cookie or API
// token for a path-based preview, the app host's own cookie for a host-based one; the pod read
// with the person's own token, so the cluster's RBAC decides; the origin and body checks.
import type { IncomingMessage } from 'node:http';
import type { KubeClient } from '../../kube/client.js';
import { userNamespace } from '../../kube/group.js';
import type { SessionTarget } from '../../shell/target.js';
import { HttpError } from '../../koa/errors.js';
import type { Viewer } from '../../web/templates/layout.js';
import { actAs, cachedCredentialOf, credentialOf, CredentialRefused, READ_METHODS, type Credential } from '../auth/authenticate.js';
import type { Session } from '../auth/sessions.js';
import type { Caller } from '../http/context.js';
import { resolveTerminalTarget } from '../terminal/target.js';
import { appCookieValues } from './app-host.js';
import { SharedPorts } from './shared-ports.js';
import { headerOf, type Admitted, type CredentialCheck, type PREVIEW_LIMITS, type PreviewDeps, type Route } from './types.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function viewerOf(credential: Credential, caller: Caller): Viewer {
  return { email: caller.email, role: caller.role, csrf: credential.kind === 'cookie' ? credential.session.csrfToken : '' };
}


export class PreviewAdmission {
  private readonly targets = new Map<string, { target: SessionTarget; until: number }>();
  private readonly shared: SharedPorts;

  constructor(
    private readonly deps: PreviewDeps,
    private readonly limits: typeof PREVIEW_LIMITS,
  ) {
    this.shared = new SharedPorts(deps, limits, (kube, reader, namespace, workspace) => this.targetOf(kube, reader, namespace, workspace));
  }

  /** The path-based preview's credential: Den's session cookie or an API token, in the person's own namespace. */
  denCredentialCheck(req: IncomingMessage, route: Route, admitted: (a: Admitted) => void): CredentialCheck {
    const get = (name: string) => headerOf(req, name);
    return {
      hint: () => {
        const credential = cachedCredentialOf({ get }, this.deps);
        return credential && { credential };
      },
      confirm: () => credentialOf({ get }, this.deps).then(() => true, (err: unknown) => (err instanceof CredentialRefused ? false : Promise.reject(err))),
      // A GET or HEAD without a live credential goes to the sign-in page; anything else is refused in the refusal's words.
      admitConfirmed: () => this.admit(req, route).catch((err: unknown) => (err instanceof CredentialRefused && READ_METHODS.has(req.method ?? 'GET') ? undefined : Promise.reject(err))),
      admitHinted: (credential) => this.admitWith(credential, route),
      admitted,
    };
  }

  /** The app host's credential: an app cookie of this host, standing for a Den session, in the namespace of the person the host names. */
  appCredentialCheck(req: IncomingMessage, route: Route, host: string): CredentialCheck {
    const namespace = userNamespace(route.app!.person);
    return {
      hint: () => {
        const now = this.deps.now();
        for (const value of appCookieValues(headerOf(req, 'cookie'))) {
          const pass = this.deps.appPasses.cachedCookiePass(value, host, now);
          const session = pass && this.deps.sessions.cachedStored(pass.session, now);
          if (session) return { credential: { kind: 'cookie', session } };
        }
        return undefined;
      },
      admitHinted: (credential) => this.admitAppViewer(credential, route),
      confirm: async (hint) => (await this.appSessionOf(req, host))?.secretName === (hint.credential.kind === 'cookie' ? hint.credential.session.secretName : undefined),
      admitConfirmed: () => this.admitAppHost(req, route, host),
      admitted: () => undefined,
    };
  }

  /** Who is asking (cookie or Den API token) and the pod of their workspace, read with their token. */
  async admit(req: IncomingMessage, route: Route, opts: { websocket?: boolean } = {}): Promise<Admitted> {
    const credential = await credentialOf({ get: (name) => headerOf(req, name) }, this.deps);
    if (opts.websocket && credential.kind === 'cookie') this.checkWebsocketOrigin(req, route);
    return this.admitWith(credential, route);
  }

  /** The person a credential stands for, and the pod of the workspace in `namespace` (their own by default) read with their token. */
  async admitWith(credential: Credential, route: Route, namespace?: string): Promise<Admitted> {
    const { caller, kube } = await actAs(credential, this.deps);
    const target = await this.targetOf(kube, caller.email, namespace ?? caller.namespace, route.address.workspace);
    return { caller, kube, target, viewer: viewerOf(credential, caller) };
  }

  /**
   * The person behind the app cookie of this host, and the pod of the workspace the host names
   * in the namespace of the person it names, read with the viewer's token: another person's
   * workspace is refused by the cluster. Undefined when no cookie of this host is live.
   */
  async admitAppHost(req: IncomingMessage, route: Route, host: string, opts: { websocket?: boolean } = {}): Promise<Admitted | undefined> {
    if (opts.websocket) this.checkWebsocketOrigin(req, route);
    const session = await this.appSessionOf(req, host);
    // Nobody signed in: only a port shared publicly (where the install allows it) is served.
    if (!session) return this.shared.admit(route, undefined);
    return this.admitAppViewer({ kind: 'cookie', session }, route);
  }

  /**
   * A signed-in viewer on an app host: the owner as themselves; anyone else as the owner when
   * the port's share admits them, else with their own token, so the cluster decides (and refuses
   * in its words, or admits a person the whole workspace was shared with).
   */
  async admitAppViewer(credential: Credential, route: Route): Promise<Admitted> {
    const namespace = userNamespace(route.app!.person);
    const { caller, kube } = await actAs(credential, this.deps);
    if (caller.namespace !== namespace) {
      const shared = await this.shared.admit(route, caller);
      if (shared) return shared;
    }
    const target = await this.targetOf(kube, caller.email, namespace, route.address.workspace);
    return { caller, kube, target };
  }

  /** The live Den session behind the first live app cookie of this host the request carries, as the API server holds them now. */
  async appSessionOf(req: IncomingMessage, host: string): Promise<Session | undefined> {
    const now = this.deps.now();
    for (const value of appCookieValues(headerOf(req, 'cookie'))) {
      const pass = await this.deps.appPasses.cookiePass(value, host, now);
      const session = pass && (await this.deps.sessions.lookupStored(pass.session, now));
      if (session) return session;
    }
    return undefined;
  }

  /** A cookie-carried websocket must come from a page of the origin it is served on. */
  checkWebsocketOrigin(req: IncomingMessage, route: Route): void {
    if (req.headers.origin !== route.origin) throw new HttpError(403, `a preview websocket may only be opened from a page of ${route.origin}`);
  }

  /** A changing request must not come from another origin, and its body must fit. */
  checkRequest(req: IncomingMessage, route: Route): void {
    const method = req.method ?? 'GET';
    const origin = req.headers.origin;
    if (!SAFE_METHODS.has(method) && origin !== undefined && origin !== route.origin) {
      throw new HttpError(403, `a ${method} to a preview may only come from a page of ${route.origin}, not ${origin.slice(0, 200)}`);
    }
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > this.limits.bodyBytes) throw new HttpError(413, `the request body is larger than the preview's limit of ${this.limits.bodyBytes} bytes`);
  }

  /** The pod as `viewer` read it: what one person may read says nothing of what another may. */
  async targetOf(kube: KubeClient, viewer: string, namespace: string, workspace: string): Promise<SessionTarget> {
    const key = `${viewer} ${namespace}/${workspace}`;
    const now = this.deps.now();
    const hit = this.targets.get(key);
    if (hit && hit.until > now) return hit.target;
    const target = await resolveTerminalTarget(kube, namespace, workspace);
    for (const [k, v] of this.targets) if (v.until <= now) this.targets.delete(k);
    this.targets.set(key, { target, until: now + this.limits.targetCacheMs });
    return target;
  }
}
