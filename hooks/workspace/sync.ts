// The Workspace sync hook (SPEC 1.3, DESIGN.md hook contract): a pure function from the
// observed Workspace, its children, its WorkspaceImage and its pods to the desired children
// and the status. The loop owns every read and write.
import type { KubeObject } from '../../kube/client.js';
import { childKey, RESOURCES } from '../../kube/resources.js';
import { defaultPodName } from '../../kube/group.js';
import { renderWorkspaceChildren } from '../../infra/children/workspace/chart.js';
import { withTransitionTimes } from '../loop/conditions.js';
import { isRunning } from '../../infra/crds/workspace-rules.js';
import { decide } from './desired.js';
import { workspacePod } from './pod.js';
import {
  childrenRejected,
  imageMissing,
  noImageRef,
  observed,
  specProblem,
  type Assessment,
  type ImageFacts,
} from './status.js';
import type {
  Workspace,
  WorkspaceHookInput,
  WorkspaceHookOutput,
  WorkspaceImage,
  WorkspaceStatus,
} from './types.js';

export { workspaceOfPod, workspacesUsingImage, type WorkspaceRef } from './mapping.js';

const CHILD_KINDS = [childKey(RESOURCES.service), childKey(RESOURCES.statefulSet)];

/** An observed child of the Workspace by kind and name (the loop keys them `namespace/name`). */
function observedChild(input: WorkspaceHookInput, key: string, name: string): KubeObject | undefined {
  return Object.values(input.children[key] ?? {}).find((child) => child.metadata?.name === name);
}

/**
 * The observed children exactly as they are, Service first: returned when the hook must not
 * change anything, so the loop prunes nothing.
 */
function unchangedChildren(input: WorkspaceHookInput): KubeObject[] {
  return CHILD_KINDS.flatMap((key) =>
    Object.entries(input.children[key] ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, child]) => child),
  );
}

export function syncWorkspace(input: WorkspaceHookInput): WorkspaceHookOutput {
  const workspace = input.parent as Workspace;
  const name = workspace.metadata?.name ?? '';
  const namespace = workspace.metadata?.namespace ?? '';
  const entry = workspace.spec?.imageRef?.name ?? '';
  const image = (input.related.image ?? undefined) as WorkspaceImage | undefined;
  const pod = workspacePod(name, namespace, input.related.pods);
  const podName = defaultPodName(name);
  const endpoint = `${name}@${input.config.gatewayHost}`;

  // Decide, then render: a Workspace that cannot be rendered leaves its children alone.
  let assessment: Assessment;
  let children: KubeObject[];
  if (entry === '') {
    assessment = noImageRef();
    children = unchangedChildren(input);
  } else if (image === undefined || image.metadata?.name !== entry) {
    assessment = imageMissing(entry);
    children = unchangedChildren(input);
  } else {
    const decision = decide(workspace, image);
    const facts: ImageFacts = {
      entry,
      image: image.spec?.image ?? '',
      pullSecret: image.spec?.imagePullSecretRef?.name || undefined,
    };
    if ('problem' in decision) {
      assessment = specProblem(decision.problem, facts);
      children = unchangedChildren(input);
    } else {
      children = renderWorkspaceChildren(decision.props);
      const rejected = (input.errors ?? []).filter((e) => e.child.startsWith('StatefulSet/') || e.child.startsWith('Service/'));
      assessment =
        rejected.length > 0
          ? childrenRejected(rejected, facts)
          : observed(
              {
                workspace: name,
                namespace,
                running: isRunning(workspace),
                statefulSetObserved: observedChild(input, childKey(RESOURCES.statefulSet), name) !== undefined,
                pod,
                podName,
                gatewayAddress: endpoint,
              },
              facts,
            );
    }
  }

  const generation = workspace.metadata?.generation;
  const previous = workspace.status ?? {};
  const status: WorkspaceStatus = {
    phase: assessment.phase,
    endpoint,
    podName,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    conditions: withTransitionTimes(assessment.conditions, previous.conditions, input.now, generation),
    ...(typeof previous.lastActivityTime === 'string' ? { lastActivityTime: previous.lastActivityTime } : {}),
  };
  return { status, children };
}
