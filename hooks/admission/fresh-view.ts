// The webhooks decide from this replica's caches. Before a Workspace is refused, what the
// decision read is read again from the API server: a catalog entry, a UserSpace or a deleted
// Workspace written through another replica a moment ago may not have reached this replica's
// watches yet, and nobody is told no on a cache's word (issue 22). An admission stands as the
// cache gave it: the API server's own count in ResourceQuota svc-quota holds the other race.
import type { KubeClient } from '../../kube/client.js';
import { userSpaceOfNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import type { PersistentVolumeClaim, UserSpace, Workspace, WorkspaceImage } from './objects.js';
import type { ClusterView, FreshView } from './webhooks.js';

/** Reviews refused at the same time in one namespace share one read (a burst of refusals costs the API server one). */
export function freshViewFrom(client: KubeClient): FreshView {
  const reading = new Map<string, Promise<ClusterView>>();
  return (namespace, imageName) => {
    const key = `${namespace}\n${imageName ?? ''}`;
    let view = reading.get(key);
    if (!view) {
      view = readView(client, namespace, imageName).finally(() => reading.delete(key));
      reading.set(key, view);
    }
    return view;
  };
}

async function readView(client: KubeClient, namespace: string, imageName: string | undefined): Promise<ClusterView> {
  const owner = userSpaceOfNamespace(namespace);
  const [image, userSpace, workspaces, claims] = await Promise.all([
    imageName ? client.getIfExists<WorkspaceImage>(RESOURCES.workspaceImage, imageName) : undefined,
    owner ? client.getIfExists<UserSpace>(RESOURCES.userSpace, owner) : undefined,
    client.list<Workspace>(RESOURCES.workspace, { namespace }).then((list) => list.items),
    client.list<PersistentVolumeClaim>(RESOURCES.persistentVolumeClaim, { namespace }).then((list) => list.items),
  ]);
  return {
    workspaceImage: (name) => (name === imageName ? image : undefined),
    userSpace: (name) => (name === owner ? userSpace : undefined),
    workspaces: (ns) => (ns === namespace ? workspaces : []),
    claims: (ns) => (ns === namespace ? claims : []),
  };
}
