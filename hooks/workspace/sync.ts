// The Workspace sync hook (SPEC 1.3, DESIGN.md hook contract): a pure function from the
// observed Workspace, its children, its WorkspaceImage and its pods to the desired children
// and the status. The loop owns every read and write.
import type { KubeObject } from '../../kube/client.js';
import { childKey, RESOURCES } from '../../kube/resources.js';
import { defaultPodName } from '../../kube/group.js';
import { renderWorkspaceChildren } from './children/chart.js';
import { withTransitionTimes } from '../loop/conditions.js';
import { isRunning } from '../../contract/workspace-rules.js';
import { decide } from './desired.js';
import { DEN_EVENT_REASONS } from '../../kube/den-events.js';
import type { ParentEvent } from '../loop/types.js';
import { resizeMessage, resourceChanges } from './resize.js';
import { idleStopMessage, idleVerdict, IDLE_STOPPED_BY, IDLE_STOPPED_REASON, stoppedForIdleness } from './idle.js';
import { lifecycleEvent, stopChange } from './lifecycle-change.js';
import { ANNOTATIONS } from '../../kube/group.js';
import { scheduleStep } from './schedule.js';
import { dormancyStep } from './dormancy.js';
import { schedulePolicyOf } from '../../contract/user-space.js';
import { byCodePoint } from '../../kube/names.js';
import { workspacePod } from './pod.js';
import { latestRefusal } from './refusal.js';
import { cloneCondition, cloneEvent, cloneReportOf, withClone } from './clone-status.js';
import { applyDevcontainer, type Applied } from './devcontainer.js';
import { withDevcontainer } from './lifecycle-status.js';
import { isDotfiles, isSummary, type DevcontainerSummary, type DotfilesReport } from '../../contract/devcontainer.js';
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
  Condition,
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
      .sort(([a], [b]) => byCodePoint(a, b))
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

  // What the clone step read (this pod's report, else what the last start's said).
  const previous = workspace.status ?? {};
  const report = cloneReportOf(pod);
  const devcontainer: DevcontainerSummary | undefined = workspace.spec?.source?.git?.url ? (report ? report.devcontainer : isSummary(previous.devcontainer) ? previous.devcontainer : undefined) : undefined;
  const dotfiles: DotfilesReport | undefined = report ? report.dotfiles : isDotfiles(previous.dotfiles) ? previous.dotfiles : undefined;
  let applied: Applied | undefined;

  // Decide, then render: a Workspace that cannot be rendered leaves its children alone.
  let assessment: Assessment;
  let children: KubeObject[];
  const events: ParentEvent[] = [];
  if (entry === '') {
    assessment = noImageRef();
    children = unchangedChildren(input);
  } else if (image === undefined || image.metadata?.name !== entry) {
    assessment = imageMissing(entry);
    children = unchangedChildren(input);
  } else {
    const decision = decide(workspace, image, input.config.clone);
    const facts: ImageFacts = {
      entry,
      image: image.spec?.image ?? '',
      pullSecret: image.spec?.imagePullSecretRef?.name || undefined,
    };
    if ('problem' in decision) {
      assessment = specProblem(decision.problem, facts);
      children = unchangedChildren(input);
    } else {
      applied = applyDevcontainer(decision.props, devcontainer, dotfiles, {
        workspace,
        entry,
        offering: (wanted) => (input.related.offering?.(wanted) ?? []) as WorkspaceImage[],
        now: input.now,
      });
      children = renderWorkspaceChildren(applied.props);
      const observedSet = observedChild(input, childKey(RESOURCES.statefulSet), name);
      const desiredSet = children.find((c) => c.kind === RESOURCES.statefulSet.kind);
      const changes = observedSet && desiredSet ? resourceChanges(observedSet, desiredSet) : [];
      if (changes.length > 0) events.push(lifecycleEvent(DEN_EVENT_REASONS.resized, resizeMessage(changes)));
      const rejected = (input.errors ?? []).filter((e) => e.child.startsWith('StatefulSet/') || e.child.startsWith('Service/'));
      assessment =
        rejected.length > 0
          ? childrenRejected(rejected, facts)
          : observed(
              {
                workspace: name,
                namespace,
                running: isRunning(workspace),
                statefulSetObserved: observedSet !== undefined,
                refusal: latestRefusal(input.related.refusals ?? [], { name, uid: observedSet?.metadata?.uid }),
                pod,
                podName,
                gatewayAddress: endpoint,
              },
              facts,
            );
    }
  }

  const git = workspace.spec?.source?.git;
  if (git?.url && assessment.conditions.some((c) => c.type === 'ImageResolved' && c.status === 'True')) {
    const cloned = cloneCondition(git, pod, report, previous.conditions as Condition[] | undefined);
    assessment = withClone(assessment, cloned);
    const event = cloneEvent(cloned, previous.conditions as Condition[] | undefined);
    if (event) events.push(event);
  }
  if (applied && assessment.conditions.some((c) => c.type === 'ImageResolved' && c.status === 'True')) {
    const said = withDevcontainer(assessment, applied, pod, previous.conditions as Condition[] | undefined, dotfiles);
    assessment = said.assessment;
    events.push(...said.events);
  }
  if (stoppedForIdleness(workspace)) assessment = saidIdle(assessment, workspace);
  const generation = workspace.metadata?.generation;
  const status: WorkspaceStatus = {
    phase: assessment.phase,
    endpoint,
    podName,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    conditions: withTransitionTimes(assessment.conditions, previous.conditions, input.now, generation),
    ...(typeof previous.lastActivityTime === 'string' ? { lastActivityTime: previous.lastActivityTime } : {}),
    ...(input.config.dormancy ? { dormancy: input.config.dormancy } : {}),
    ...(devcontainer ? { devcontainer } : {}),
    ...(dotfiles ? { dotfiles } : {}),
  };
  return { status, children, ...(events.length > 0 ? { events } : {}), ...lifecycleStep(workspace, input) };
}

type LifecycleStep = Pick<WorkspaceHookOutput, 'parentChange' | 'parentDeletion' | 'resyncAfterMs'>;

/**
 * Den's own starts, stops and deletions, one per run, in this order: forget who stopped a
 * workspace once it runs again, then its schedule, then dormancy, then idle stop; else the
 * earliest moment any of them must look again.
 */
function lifecycleStep(workspace: Workspace, input: WorkspaceHookInput): LifecycleStep {
  const annotated = workspace.metadata?.annotations?.[ANNOTATIONS.stoppedBy] !== undefined;
  if (annotated && isRunning(workspace)) return { parentChange: { annotations: { [ANNOTATIONS.stoppedBy]: null } } };
  const schedule = scheduleStep(workspace, schedulePolicyOf(input.related.userSpace), input.now);
  if (schedule.parentChange) return schedule;
  const dormancy = dormancyStep(workspace, input.config.dormancy, input.now);
  if (dormancy.parentChange || dormancy.parentDeletion) return dormancy;
  const idle = idleStep(workspace, input);
  if (idle.parentChange) return idle;
  const waits = [schedule.resyncAfterMs, dormancy.resyncAfterMs, idle.resyncAfterMs].filter((ms): ms is number => ms !== undefined);
  return waits.length > 0 ? { resyncAfterMs: Math.min(...waits) } : {};
}

/** Stop when idle (opt-in). */
function idleStep(workspace: Workspace, input: WorkspaceHookInput): Pick<WorkspaceHookOutput, 'parentChange' | 'resyncAfterMs'> {
  const verdict = idleVerdict(workspace, input.now, input.config.idleStop);
  if (verdict.action === 'wait') return { resyncAfterMs: verdict.afterMs };
  if (verdict.action === 'none') return {};
  return { parentChange: stopChange(IDLE_STOPPED_BY, idleStopMessage(workspace, verdict.idleForMs)) };
}

/** The Ready condition of a workspace stopped for idleness says so, for the UI and kubectl. */
function saidIdle(assessment: Assessment, workspace: Workspace): Assessment {
  const message = `Stopped by idle auto-stop: no SSH session or browser terminal for longer than spec.idleTimeout (${workspace.spec?.idleTimeout ?? '4h'}). The home volume is kept; start the workspace to use it again.`;
  return {
    ...assessment,
    conditions: assessment.conditions.map((c) => (c.type === 'Ready' && (c.reason === 'Suspended' || c.reason === 'Stopping') ? { ...c, reason: IDLE_STOPPED_REASON, message } : c)),
  };
}
