// The Workspace and WorkspaceImage shapes the gateway reads, and an index of the
// watch-backed Workspace cache (kube/informer.ts) by name, so matching an SSH username costs a map lookup
// instead of a LIST per connection (SPEC 1.5 step 2).
import type { KubeClient } from '../kube/client.js';
import type { CacheEvent } from '../kube/informer.js';
import { RESOURCES } from '../kube/resources.js';
import type { Workspace } from '../contract/workspace.js';

// One Workspace type for every reader, beside its CRD.
export type { Workspace } from '../contract/workspace.js';

export type { WorkspaceImage } from '../contract/workspace-image.js';

/** name -> namespace -> Workspace */
export type WorkspaceNameIndex = Map<string, Map<string, Workspace>>;

/** Applies one cache event to the index (exported so it can be tested without a cache). */
export function indexWorkspaceEvent(index: WorkspaceNameIndex, event: CacheEvent<Workspace>): void {
  const name = event.object.metadata?.name;
  const namespace = event.object.metadata?.namespace;
  if (!name || !namespace) return;
  let byNamespace = index.get(name);
  if (event.type === 'DELETED') {
    byNamespace?.delete(namespace);
    if (byNamespace && byNamespace.size === 0) index.delete(name);
    return;
  }
  if (!byNamespace) index.set(name, (byNamespace = new Map()));
  byNamespace.set(namespace, event.object);
}

/** Workspaces by name across all namespaces, kept current by the Workspace informer. */
export class WorkspaceDirectory {
  private readonly index: WorkspaceNameIndex = new Map();
  /** Lookups of the API server under way, by name: clients offering keys at once share one. */
  private readonly asking = new Map<string, Promise<Workspace[]>>();

  constructor(
    informer: { on(handler: (event: CacheEvent<Workspace>) => void): unknown; list(): Workspace[] },
    private readonly client?: KubeClient,
  ) {
    informer.on((event) => indexWorkspaceEvent(this.index, event));
    for (const object of informer.list()) indexWorkspaceEvent(this.index, { type: 'ADDED', object });
  }

  /** The Workspaces called `name` as the API server holds them now (none without a client). */
  current(name: string): Promise<Workspace[]> {
    if (!this.client) return Promise.resolve([]);
    let pending = this.asking.get(name);
    if (!pending) {
      pending = this.client
        .list<Workspace>(RESOURCES.workspace, { fieldSelector: `metadata.name=${name}` })
        .then((list) => [...list.items].sort((a, b) => (a.metadata?.namespace ?? '').localeCompare(b.metadata?.namespace ?? '')))
        .finally(() => this.asking.delete(name));
      this.asking.set(name, pending);
    }
    return pending;
  }

  /** Every cached Workspace called `name`, in namespace order so choices are stable. */
  named(name: string): Workspace[] {
    const byNamespace = this.index.get(name);
    if (!byNamespace) return [];
    return [...byNamespace.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, ws]) => ws);
  }
}
