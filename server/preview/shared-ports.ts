// A port its owner shared (contract/port-share.ts, docs/preview.md "Sharing a port"), on an app
// host only: the Workspace's `spec.sharedPorts`, read with the owner's own minted token, says
// whether a viewer who is not the owner (signed in, or for a public port nobody) may open it.
// If so, the port forward is opened as the owner's `session` ServiceAccount, as the owner's own
// preview is: the owner allowed it by writing the share, and the cluster lets only those who may
// update the Workspace write it. Anyone else is left to the cluster with their own token.
import { sessionClient } from '../../kube/forwarding.js';
import { userNamespace } from '../../kube/group.js';
import { isNotFound } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import type { KubeClient } from '../../kube/client.js';
import { portShareOf, shareAdmits, type PortViewer } from '../../contract/port-share.js';
import type { Workspace } from '../../contract/workspace.js';
import type { Membership } from '../auth/directory.js';
import type { Caller } from '../http/context.js';
import type { SessionTarget } from '../../shell/target.js';
import type { Admitted, PREVIEW_LIMITS, PreviewDeps, Route } from './types.js';

/** Who a request by nobody signed in is counted as, for the connection limit: the visitors of one person's public ports together. */
function visitorOf(owner: Membership): Caller {
  return { email: `anonymous visitors of ${owner.userspace}`, userspace: '', namespace: '', role: 'user', kind: 'cookie', scope: 'read', localLogin: false };
}

export class SharedPorts {
  private readonly shares = new Map<string, { sharedPorts: unknown; until: number }>();

  constructor(
    private readonly deps: PreviewDeps,
    private readonly limits: typeof PREVIEW_LIMITS,
    /** The pod of a workspace as `kube` reads it (admission.ts caches it per reader). */
    private readonly targetOf: PreviewAdmissionTargets,
  ) {}

  /**
   * The request admitted as the owner of the app host's workspace, for `viewer` (a signed-in
   * person other than the owner, or undefined for nobody signed in), when the port's share lets
   * them; undefined when it does not (or the owner or the workspace is not there).
   */
  async admit(route: Route, viewer: Caller | undefined): Promise<Admitted | undefined> {
    const app = route.app;
    if (!app) return undefined;
    // Nobody signed in can be admitted only to a public port: where there are none, nothing is read for them.
    if (!viewer && !this.deps.allowPublicPorts) return undefined;
    const owner = await this.deps.directory.byName(app.person, { cachedOnly: !viewer }).catch(() => undefined);
    if (!owner || owner.namespace !== userNamespace(app.person)) return undefined;
    const kube = sessionClient(this.deps.serverClient, this.deps.minter, owner.uid, owner.namespace);
    const sharedPorts = await this.sharedPortsOf(kube, owner.namespace, app.workspace);
    if (sharedPorts === undefined) return undefined;
    const asked: PortViewer = viewer && { userspace: viewer.userspace };
    if (!shareAdmits(portShareOf(sharedPorts, app.port), asked, this.deps.allowPublicPorts ?? false)) return undefined;
    const target = await this.targetOf(kube, `share:${owner.owner}`, owner.namespace, app.workspace);
    return { caller: viewer ?? visitorOf(owner), kube, target, sharedBy: owner.owner };
  }

  /** `spec.sharedPorts` of the workspace as its owner reads it, kept for the target cache's life (and so is its absence); undefined when there is no such workspace. */
  private async sharedPortsOf(kube: KubeClient, namespace: string, workspace: string): Promise<unknown> {
    const key = `${namespace}/${workspace}`;
    const now = this.deps.now();
    const hit = this.shares.get(key);
    if (hit && hit.until > now) return hit.sharedPorts;
    let sharedPorts: unknown;
    try {
      sharedPorts = (await kube.get<Workspace>(RESOURCES.workspace, workspace, namespace)).spec?.sharedPorts ?? [];
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // Kept too, so addresses of workspaces that do not exist cost one read per 5 s each.
      sharedPorts = undefined;
    }
    for (const [k, v] of this.shares) if (v.until <= now) this.shares.delete(k);
    this.shares.set(key, { sharedPorts, until: now + this.limits.targetCacheMs });
    return sharedPorts;
  }
}

export type PreviewAdmissionTargets = (kube: KubeClient, reader: string, namespace: string, workspace: string) => Promise<SessionTarget>;
