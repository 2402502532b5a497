// The informer caches the webhooks read, so a review never lists the API server: the
// catalog, the UserSpaces, and per namespace the Workspaces and PVCs.
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { Informer, stripManagedFields, type CacheEvent } from '../../kube/informer.js';
import { RESOURCES } from '../../kube/resources.js';
import type { PersistentVolumeClaim, UserSpace, Workspace, WorkspaceImage } from './objects.js';
import type { ClusterView } from './webhooks.js';

/** Objects of one namespaced kind grouped by namespace, kept current from informer events. */
export class NamespaceIndex<T extends KubeObject> {
  private readonly byNamespace = new Map<string, Map<string, T>>();

  constructor(private readonly accepts: (namespace: string) => boolean = () => true) {}

  apply(event: CacheEvent<T>): void {
    const ns = event.object.metadata?.namespace;
    const name = event.object.metadata?.name;
    if (!ns || !name || !this.accepts(ns)) return;
    let objects = this.byNamespace.get(ns);
    if (event.type === 'DELETED') {
      objects?.delete(name);
      if (objects?.size === 0) this.byNamespace.delete(ns);
      return;
    }
    if (!objects) this.byNamespace.set(ns, (objects = new Map()));
    objects.set(name, event.object);
  }

  list(namespace: string): T[] {
    return [...(this.byNamespace.get(namespace)?.values() ?? [])];
  }
}

/** Only user namespaces hold quota-relevant PVCs; other namespaces' claims are not kept. */
function isUserNamespace(ns: string): boolean {
  return ns.startsWith('svc-');
}

/** A cached object without managedFields and status, for readers of metadata and spec only. */
function withoutStatus<T extends KubeObject>(obj: T): T {
  const { status: _status, ...rest } = stripManagedFields(obj);
  return rest as T;
}

/** What the quota rules read of a claim: its metadata, requested and provisioned storage. */
function claimAsRead(claim: PersistentVolumeClaim): PersistentVolumeClaim {
  const { metadata } = stripManagedFields(claim);
  return { apiVersion: claim.apiVersion, kind: claim.kind, metadata, spec: { resources: { requests: claim.spec?.resources?.requests } }, status: { capacity: claim.status?.capacity } };
}

export interface AdmissionCaches {
  view: ClusterView;
  /** Settles when every cache holds its first full list. */
  synced: Promise<void>;
  /** Runs the watches of the caches of its own until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
}

/**
 * Caches another part of the process runs and keeps current: `den manager`'s reconcile loop
 * holds every UserSpace and Workspace already, so the webhooks read its caches instead of
 * holding a second copy of each (they read only metadata and spec, which the loop keeps).
 */
export interface SharedCaches {
  userSpaces?: Informer<KubeObject>;
  workspaces?: Informer<KubeObject>;
}

export interface AdmissionCacheOptions {
  onError: (err: unknown) => void;
  relistIntervalMs?: number;
  shared?: SharedCaches;
}

export function admissionCaches(client: KubeClient, { onError, relistIntervalMs, shared = {} }: AdmissionCacheOptions): AdmissionCaches {
  const opts = { onError, relistIntervalMs };
  const images = new Informer<WorkspaceImage>(client, RESOURCES.workspaceImage, opts);
  // The rules read a UserSpace's and a Workspace's metadata and spec (quota, keys, quota use, names); their status is the manager's and the gateway's.
  const userSpaces = (shared.userSpaces as Informer<UserSpace> | undefined) ?? new Informer<UserSpace>(client, RESOURCES.userSpace, { ...opts, transform: withoutStatus });
  const workspaces = (shared.workspaces as Informer<Workspace> | undefined) ?? new Informer<Workspace>(client, RESOURCES.workspace, { ...opts, transform: withoutStatus });
  const claims = new Informer<PersistentVolumeClaim>(client, RESOURCES.persistentVolumeClaim, { ...opts, transform: claimAsRead });
  const workspaceIndex = new NamespaceIndex<Workspace>();
  const claimIndex = new NamespaceIndex<PersistentVolumeClaim>(isUserNamespace);
  // A shared cache may hold objects already: they are indexed as if just added.
  for (const workspace of workspaces.list()) workspaceIndex.apply({ type: 'ADDED', object: workspace });
  workspaces.on((e) => workspaceIndex.apply(e));
  claims.on((e) => claimIndex.apply(e));
  const informers = [images, userSpaces, workspaces, claims];
  const own = informers.filter((i) => i !== shared.userSpaces && i !== shared.workspaces);
  return {
    view: {
      workspaceImage: (name) => images.get(name),
      userSpace: (name) => userSpaces.get(name),
      workspaces: (ns) => workspaceIndex.list(ns),
      claims: (ns) => claimIndex.list(ns),
    },
    synced: Promise.all(informers.map((i) => i.synced)).then(() => undefined),
    run: async (signal) => {
      await Promise.all(own.map((i) => i.run(signal)));
    },
  };
}
