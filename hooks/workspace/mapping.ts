// Which Workspaces a change elsewhere concerns, so the manager can enqueue exactly those
// (issue 4 item 3). A pod's owner is the StatefulSet, not the Workspace, hence the label.
import type { KubeObject } from '../../kube/client.js';
import { LABELS } from '../../kube/group.js';
import { byCodePoint } from '../../kube/names.js';

export interface WorkspaceRef {
  namespace: string;
  name: string;
}

/** The Workspace a pod (or any namespaced object) belongs to, from its `den.dev/workspace` label. */
export function workspaceOfPod(pod: KubeObject): WorkspaceRef | undefined {
  const name = pod.metadata?.labels?.[LABELS.workspace];
  const namespace = pod.metadata?.namespace;
  if (typeof name !== 'string' || name === '' || typeof namespace !== 'string' || namespace === '') return undefined;
  return { namespace, name };
}

/** Every Workspace whose `spec.imageRef.name` is `imageName`, sorted by namespace then name. */
export function workspacesUsingImage(imageName: string, workspaces: Iterable<KubeObject>): WorkspaceRef[] {
  const refs: WorkspaceRef[] = [];
  for (const workspace of workspaces) {
    const spec = workspace.spec as { imageRef?: { name?: unknown } } | undefined;
    const { name, namespace } = workspace.metadata ?? {};
    if (spec?.imageRef?.name !== imageName || typeof name !== 'string' || typeof namespace !== 'string') continue;
    refs.push({ namespace, name });
  }
  return refs.sort((a, b) => byCodePoint(a.namespace, b.namespace) || byCodePoint(a.name, b.name));
}
