// The status step of the Workspace hook: phase and conditions from what was observed. Each
// function answers with the phase and the three conditions; sync.ts stamps the times.
import type { SpecProblem } from './desired.js';
import { refusalCondition, type CreateRefusal } from './refusal.js';
import { isPodReady, isTerminating, podProgress, podTrouble, type PodTrouble } from './pod.js';
import type { ChildError, ConditionInput, ObservedPod, WorkspacePhase } from './types.js';

export interface Assessment {
  phase: WorkspacePhase;
  conditions: ConditionInput[];
}

/** What the hook knows about the catalog entry when it assesses the pod. */
export interface ImageFacts {
  entry: string;
  image: string;
  pullSecret?: string;
}

const NOT_DEGRADED: ConditionInput = {
  type: 'Degraded',
  status: 'False',
  reason: 'AsExpected',
  message: 'Nothing needs attention.',
};

function resolved(facts: ImageFacts): ConditionInput {
  return {
    type: 'ImageResolved',
    status: 'True',
    reason: 'Resolved',
    message: `WorkspaceImage "${facts.entry}" resolves to ${facts.image}.`,
  };
}

function assessment(
  phase: WorkspacePhase,
  ready: Omit<ConditionInput, 'type'>,
  degraded: ConditionInput,
  image: ConditionInput,
): Assessment {
  return { phase, conditions: [{ type: 'Ready', ...ready }, degraded, image] };
}

function failed(reason: string, message: string, image: ConditionInput): Assessment {
  return assessment('Failed', { status: 'False', reason, message }, { type: 'Degraded', status: 'True', reason, message }, image);
}

/** `spec.imageRef.name` is empty: there is nothing to look up. */
export function noImageRef(): Assessment {
  const message = 'spec.imageRef.name is empty, so there is no catalog entry to run. Delete this workspace and create it again from a catalog entry.';
  return failed('InvalidSpec', message, { type: 'ImageResolved', status: 'False', reason: 'NoImageRef', message });
}

/** SPEC 1.3 step 2: the referenced WorkspaceImage does not exist. */
export function imageMissing(entry: string): Assessment {
  const message =
    `WorkspaceImage "${entry}" does not exist. Ask an administrator to add "${entry}" to the catalog; ` +
    'otherwise delete this workspace (keeping its home volume if you need it) and create it from an entry that is on offer.';
  return assessment(
    'Pending',
    { status: 'False', reason: 'ImageNotFound', message },
    { type: 'Degraded', status: 'True', reason: 'ImageNotFound', message },
    { type: 'ImageResolved', status: 'False', reason: 'ImageNotFound', message },
  );
}

/** The Workspace or its catalog entry cannot be rendered (SPEC 1.3 step 3 and friends). */
export function specProblem(problem: SpecProblem, facts: ImageFacts): Assessment {
  const image: ConditionInput = problem.image
    ? { type: 'ImageResolved', status: 'False', reason: problem.reason, message: problem.message }
    : resolved(facts);
  return failed(problem.reason, problem.message, image);
}

/** The API server refused a child the previous pass wrote. */
export function childrenRejected(errors: ChildError[], facts: ImageFacts): Assessment {
  const list = errors.map((e) => `${e.child}: ${e.message}`).join('; ');
  return failed(
    'ApplyFailed',
    `The cluster refused ${list}. Check the Workspace's env, volumes and resources and the WorkspaceImage "${facts.entry}"; Den retries on its own.`,
    resolved(facts),
  );
}

function troubleMessage(trouble: PodTrouble, podName: string, namespace: string, workspace: string, facts: ImageFacts): string {
  const said = trouble.detail ? ` The kubelet says: ${trouble.detail}` : '';
  switch (trouble.kind) {
    case 'image': {
      const image = trouble.image ?? facts.image;
      const problem =
        trouble.reason === 'InvalidImageName'
          ? `is not a valid image reference`
          : trouble.reason === 'ErrImageNeverPull'
            ? `is not on the node and the pull policy is Never`
            : `cannot be pulled`;
      const secret = facts.pullSecret ? ` and its pull Secret "${facts.pullSecret}"` : '';
      return `The image ${image} ${problem} (${trouble.reason}).${said} Ask an administrator to check spec.image of WorkspaceImage "${facts.entry}"${secret}.`;
    }
    case 'config':
      return (
        `The container of pod ${podName} cannot be configured (${trouble.reason}).${said} ` +
        `Check that every Secret and ConfigMap named in spec.env, spec.envFrom and spec.volumes exists in namespace ${namespace}.`
      );
    case 'runtime':
      return (
        `The container runtime cannot start pod ${podName} (${trouble.reason}).${said} ` +
        `Check spec.command of WorkspaceImage "${facts.entry}" and the workspace's volume mounts.`
      );
    case 'crash':
      return (
        `The container of pod ${podName} keeps exiting${trouble.lastExit ? ` (${trouble.lastExit})` : ''}.${said} ` +
        `spec.command of WorkspaceImage "${facts.entry}" must keep running (the default is sleep infinity); ` +
        `the workspace's logs (GET /workspaces/${workspace}/logs) show why it stops.`
      );
    case 'failed':
      return `Pod ${podName} failed${trouble.detail ? ` (${trouble.detail})` : ''}. The StatefulSet replaces it; if this repeats, ask an administrator to look at the node.`;
  }
}

export interface PodView {
  workspace: string;
  namespace: string;
  running: boolean;
  statefulSetObserved: boolean;
  pod?: ObservedPod;
  podName: string;
  gatewayAddress: string;
  /** The cluster's last refusal of the StatefulSet's pod or home volume, if any. */
  refusal?: CreateRefusal;
}

/**
 * Phase from the observed StatefulSet and pod once the children render. Stopping keeps the
 * Suspended phase while the pod shuts down: the person asked for it, and the gateway must
 * already refuse sessions (it only admits Running).
 */
export function observed(view: PodView, facts: ImageFacts): Assessment {
  const image = resolved(facts);
  if (!view.statefulSetObserved) {
    return assessment(
      'Pending',
      { status: 'False', reason: 'Creating', message: `Creating the StatefulSet ${view.workspace}.` },
      NOT_DEGRADED,
      image,
    );
  }
  const { pod } = view;
  if (!view.running) {
    const ready = pod
      ? { status: 'False' as const, reason: 'Stopping', message: `Pod ${view.podName} is shutting down. The home volume is kept.` }
      : { status: 'False' as const, reason: 'Suspended', message: 'Stopped on request; the home volume is kept. Start the workspace to use it again.' };
    return assessment('Suspended', ready, NOT_DEGRADED, image);
  }
  if (pod === undefined) {
    if (view.refusal) {
      const { reason, message } = refusalCondition(view.refusal, view.namespace);
      return failed(reason, message, image);
    }
    return assessment(
      'Starting',
      { status: 'False', reason: 'PodNotCreated', message: `Waiting for the StatefulSet to create pod ${view.podName}.` },
      NOT_DEGRADED,
      image,
    );
  }
  if (isTerminating(pod)) {
    return assessment(
      'Starting',
      { status: 'False', reason: 'PodRestarting', message: `Pod ${view.podName} is shutting down and will be replaced.` },
      NOT_DEGRADED,
      image,
    );
  }
  const trouble = podTrouble(pod);
  if (trouble) return failed(trouble.reason, troubleMessage(trouble, view.podName, view.namespace, view.workspace, facts), image);
  if (isPodReady(pod)) {
    return assessment(
      'Running',
      { status: 'True', reason: 'PodReady', message: `Pod ${view.podName} is ready; connect with ssh ${view.gatewayAddress}.` },
      NOT_DEGRADED,
      image,
    );
  }
  return assessment('Starting', { status: 'False', ...podProgress(pod) }, NOT_DEGRADED, image);
}
