// The UserSpace controller: which caches its hook reads, how a change to the API server's
// addresses or to a pull Secret finds the UserSpaces it concerns, and its finalizer.
import type { KubeObject } from '../../kube/client.js';
import { GROUP, LABELS, userNamespace } from '../../kube/group.js';
import type { Informer } from '../../kube/informer.js';
import { RESOURCES } from '../../kube/resources.js';
import { startDeletion, type ControllerSpec } from '../loop/spec.js';
import { isControlledBy } from '../loop/keys.js';
import { syncUserSpace } from './sync.js';
import type { UserSpace, UserSpaceHookConfig, UserSpaceRelated } from './types.js';
import { isPersonalSecret } from '../../contract/personal.js';

/** UserSpace finalizer: the namespace's deletion is started before the UserSpace goes (SPEC 3.4). */
export const NAMESPACE_FINALIZER = `${GROUP}/namespace`;

/** What the UserSpace controller reads of the manager's configuration. */
export interface UserSpaceControllerConfig {
  /** The platform's own namespace: the pull Secrets live there. */
  namespace: string;
  gpuResource: string;
}

function allParents(_obj: KubeObject, parents: Informer<KubeObject>): string[] {
  return parents.list().map((p) => p.metadata?.name ?? '');
}

/** UserSpace: SPEC 1.2 children; re-rendered when the API server's addresses or the pull Secrets change. */
export function userSpaceSpec(config: UserSpaceControllerConfig): ControllerSpec<UserSpaceHookConfig, UserSpaceRelated, 'apiService' | 'apiEndpoints' | 'pullSecrets', UserSpace> {
  return {
    name: 'userspace',
    parent: RESOURCES.userSpace,
    children: [
      RESOURCES.namespace, RESOURCES.resourceQuota, RESOURCES.limitRange, RESOURCES.networkPolicy, RESOURCES.serviceAccount,
      RESOURCES.role, RESOURCES.roleBinding, RESOURCES.clusterRole, RESOURCES.clusterRoleBinding, RESOURCES.secret,
    ],
    // Ready waits for the quota controller to count svc-quota (hooks/userspace/status.ts).
    childStatusKinds: [RESOURCES.resourceQuota.kind],
    // A person's own variables and tokens: the hook writes none of their data, so the manager holds none of it.
    childDataHeldBack: isPersonalSecret,
    parentLabel: LABELS.userSpace,
    hook: syncUserSpace,
    config: { gpuResource: config.gpuResource, managerNamespace: config.namespace },
    relatedSources: [
      { name: 'apiService', resource: RESOURCES.service, namespace: 'default', fieldSelector: 'metadata.name=kubernetes', parentsOf: allParents },
      { name: 'apiEndpoints', resource: RESOURCES.endpointSlice, namespace: 'default', labelSelector: 'kubernetes.io/service-name=kubernetes', parentsOf: allParents },
      { name: 'pullSecrets', resource: RESOURCES.secret, namespace: config.namespace, labelSelector: `${LABELS.pullSecret}=true`, parentsOf: allParents },
    ],
    related: (_parent, caches) => ({
      apiServer: { service: caches.apiService.get('kubernetes', 'default') ?? null, endpointSlices: caches.apiEndpoints.list() },
      pullSecrets: caches.pullSecrets.list(),
    }),
    finalizer: {
      name: NAMESPACE_FINALIZER,
      // Cluster-scoped children (the namespace, the ClusterRole and its binding) are deleted
      // here rather than left to garbage collection, so the person's cluster-wide rights end
      // with the UserSpace; everything namespaced goes with the namespace.
      async finalize(parent, { client, children, log }) {
        const uid = parent.metadata?.uid ?? '';
        const clusterScoped = children.filter((c) => c.kind === 'Namespace' || c.kind === 'ClusterRole' || c.kind === 'ClusterRoleBinding');
        if (!clusterScoped.some((c) => c.kind === 'Namespace')) {
          const namespace = await client.getIfExists(RESOURCES.namespace, userNamespace(parent.metadata?.name ?? ''));
          if (namespace && isControlledBy(namespace, uid)) clusterScoped.push(namespace);
        }
        await startDeletion(client, clusterScoped);
        log('userspace deleted: removal of its namespace started', { userspace: parent.metadata?.name, namespace: userNamespace(parent.metadata?.name ?? '') });
      },
    },
  };
}
