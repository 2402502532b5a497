// The Workspace controller: which caches its hook reads and how a change to a pod or a
// WorkspaceImage finds the Workspaces it concerns.
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../kube/client.js';
import { defaultPodName, LABELS, userNamespace, userSpaceOfNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { schedulePolicyOf } from '../../contract/user-space.js';
import type { ControllerSpec } from '../loop/spec.js';
import { keyOf } from '../loop/keys.js';
import { syncWorkspace, workspaceOfPod, workspacesUsingImage } from './sync.js';
import { podAsRead } from './pod.js';
import { REFUSAL_FIELD_SELECTOR, refusalAsRead, statefulSetOf } from './refusal.js';
import type { WorkspaceHookConfig, WorkspaceRelated } from './types.js';

/** What the Workspace controller reads of the manager's configuration. */
export interface WorkspaceControllerConfig {
  gatewayHost: string;
  idleStop: boolean;
  dormancy?: WorkspaceHookConfig['dormancy'];
  clone?: WorkspaceHookConfig['clone'];
}

/** Workspace: Service and StatefulSet; re-reconciled when its pod or its WorkspaceImage changes. */
export function workspaceSpec(config: WorkspaceControllerConfig): ControllerSpec<WorkspaceHookConfig, WorkspaceRelated, 'images' | 'pods' | 'refusals' | 'userSpaces'> {
  return {
    name: 'workspace',
    parent: RESOURCES.workspace,
    children: [RESOURCES.service, RESOURCES.statefulSet],
    parentLabel: LABELS.workspace,
    hook: syncWorkspace,
    config: { gatewayHost: config.gatewayHost, idleStop: config.idleStop, ...(config.dormancy ? { dormancy: config.dormancy } : {}), ...(config.clone ? { clone: config.clone } : {}) },
    relatedSources: [
      {
        name: 'images',
        resource: RESOURCES.workspaceImage,
        parentsOf: (image, parents) => workspacesUsingImage(image.metadata?.name ?? '', parents.list()).map((ref) => keyOf(RESOURCES.workspace, ref)),
      },
      {
        name: 'pods',
        resource: RESOURCES.pod,
        labelSelector: LABELS.workspace,
        transform: podAsRead,
        parentsOf: (pod) => {
          const ref = workspaceOfPod(pod);
          return ref ? [keyOf(RESOURCES.workspace, ref)] : [];
        },
      },
      {
        // spec.schedules: a change re-reconciles the Workspaces of the person's namespace (and no
        // other change does: the UserSpace controller's status writes among them). In den manager
        // this is the UserSpace controller's own cache (ControllerOptions.parentCacheOf).
        name: 'userSpaces',
        resource: RESOURCES.userSpace,
        changed: (userSpace, old) => !isDeepStrictEqual(schedulePolicyOf(userSpace), schedulePolicyOf(old)),
        parentsOf: (userSpace, parents) => {
          const namespace = userNamespace(userSpace.metadata?.name ?? '');
          return parents.list((ws) => ws.metadata?.namespace === namespace).map((ws) => keyOf(RESOURCES.workspace, { name: ws.metadata?.name ?? '', namespace }));
        },
      },
      {
        // The StatefulSet controller's refusals only (FailedCreate): none while all is well.
        name: 'refusals',
        resource: RESOURCES.event,
        fieldSelector: REFUSAL_FIELD_SELECTOR,
        transform: refusalAsRead,
        parentsOf: (event) => {
          const name = statefulSetOf(event);
          const namespace = event.metadata?.namespace;
          return name && namespace ? [keyOf(RESOURCES.workspace, { name, namespace })] : [];
        },
      },
    ],
    related: (parent, caches) => {
      const imageName = (parent.spec as { imageRef?: { name?: string } } | undefined)?.imageRef?.name;
      const namespace = parent.metadata?.namespace;
      const name = parent.metadata?.name;
      return {
        image: imageName ? caches.images.get(imageName) ?? null : null,
        offering: (wanted: string) => caches.images.list((entry) => (entry.spec as { image?: unknown } | undefined)?.image === wanted),
        // Only the StatefulSet's pod counts (hooks/workspace/pod.ts): one keyed lookup, not a scan of every cached pod.
        pods: [caches.pods.get(defaultPodName(name ?? ''), namespace)].filter((pod): pod is KubeObject => pod !== undefined),
        userSpace: (namespace && caches.userSpaces.get(userSpaceOfNamespace(namespace) ?? '')) || null,
        refusals: caches.refusals.list((event) => event.metadata?.namespace === namespace && statefulSetOf(event) === name),
      };
    },
    // The gateway records activity in status; the loop never overwrites it.
    foreignStatusFields: ['lastActivityTime'],
  };
}
