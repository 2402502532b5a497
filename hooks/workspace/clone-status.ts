// The `Cloned` condition of a workspace with spec.source (issue 34), read from the pod's `clone`
// init container: running is "Cloning", exit 0 is "Cloned", a non-zero exit (now, or the last
// run while the kubelet backs off) is "CloneFailed" with the clone step's own words, its
// termination message (source/clone-failure.ts).
import { CLONE_CONTAINER, cloneDirectory, type GitSource } from '../../contract/workspace-source.js';
import { parseCloneReport, type CloneReport } from '../../contract/devcontainer.js';
import { stuckKindOf } from '../../kube/pod-reasons.js';
import type { ParentEvent } from '../loop/types.js';
import { lifecycleEvent } from './lifecycle-change.js';
import type { Assessment } from './status.js';
import type { Condition, ConditionInput, ContainerStateJson, ObservedPod } from './types.js';

export const CLONE_REASONS = { pending: 'NotYetCloned', cloning: 'Cloning', cloned: 'Cloned', failed: 'CloneFailed' } as const;

/** Longest piece of the clone step's message kept in a condition (the kubelet keeps 4096 bytes). */
const MESSAGE_LIMIT = 1000;

/** The clone step's words on one line, cut to MESSAGE_LIMIT; undefined when it said nothing. */
function oneLine(message: string | undefined): string | undefined {
  const text = message?.replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  return text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT)}…` : text;
}

/** What a clone step that stopped said in its termination message. */
function said(state: ContainerStateJson['terminated']): string | undefined {
  return oneLine(state?.message === undefined ? undefined : parseCloneReport(state.message).message);
}

function failedWith(state: NonNullable<ContainerStateJson['terminated']>, where: string): ConditionInput {
  const message = said(state) ?? `The clone step into ${where} stopped (exit code ${state.exitCode}${state.reason ? `, ${state.reason}` : ''}) without saying why. Its log (den logs, or the pod's clone container) tells more.`;
  return { type: 'Cloned', status: 'False', reason: CLONE_REASONS.failed, message };
}

/**
 * The Cloned condition from the workspace's pod, or from the last status when no pod tells (a
 * stopped workspace keeps what its last start said; a pod not yet reported on keeps only "Cloned").
 * `report` is what cloneReportOf(pod) read, so a completed clone step's message is parsed once.
 */
export function cloneCondition(source: GitSource, pod: ObservedPod | undefined, report: CloneReport | undefined, previous: Condition[] | undefined): ConditionInput {
  const where = `~/${cloneDirectory(source) ?? ''}`;
  const status = pod?.status?.initContainerStatuses?.find((s) => s.name === CLONE_CONTAINER);
  const terminated = status?.state?.terminated;
  if (terminated && terminated.exitCode === 0) {
    return { type: 'Cloned', status: 'True', reason: CLONE_REASONS.cloned, message: oneLine(report?.message) ?? `${source.url} is cloned into ${where}.` };
  }
  if (terminated) return failedWith(terminated, where);
  const last = status?.lastState?.terminated;
  const waiting = status?.state?.waiting;
  if (waiting?.reason && stuckKindOf(waiting.reason) === 'image') {
    const kubelet = waiting.message ? ` The kubelet says: ${waiting.message.replace(/\s+/g, ' ').replace(/[.\s]+$/, '').slice(0, 300)}.` : '';
    return {
      type: 'Cloned',
      status: 'False',
      reason: CLONE_REASONS.failed,
      message: `Den's clone image ${status?.image ?? ''} cannot be pulled in this namespace (${waiting.reason}), so the repository cannot be cloned.${kubelet} Ask an administrator to check den manager --clone-image (DEN_CLONE_IMAGE) and that this namespace may pull it: a private image's pull Secret named in --clone-image-pull-secrets and labelled den.dev/pull-secret=true in Den's namespace is copied into every person's namespace.`,
    };
  }
  if (status?.state?.waiting && last && last.exitCode !== 0) return failedWith(last, where);
  const kept = previous?.find((c) => c.type === 'Cloned');
  // The clone landed on an earlier start: a later start's clone step only finds it there (a
  // moment, measured on a real node), so until that step ends the workspace keeps saying so.
  // A new pod the kubelet has not reported on yet keeps only a landed clone: an old failure is not this pod's.
  if (kept && (kept.reason === CLONE_REASONS.cloned || (!status && !pod))) {
    const { type, status: s, reason, message } = kept;
    return { type, status: s, reason, message };
  }
  if (status?.state?.running) {
    const again = last && last.exitCode !== 0 ? ` again; the last attempt said: ${said(last) ?? `exit code ${last.exitCode}`}` : '';
    return { type: 'Cloned', status: 'False', reason: CLONE_REASONS.cloning, message: `Cloning ${source.url} into ${where}${again || '; the workspace starts once it is in place.'}` };
  }
  return { type: 'Cloned', status: 'False', reason: CLONE_REASONS.pending, message: `${source.url} is cloned into ${where} when the workspace first starts.` };
}

/** The workspace's assessment with the clone's word: a failed clone fails the workspace, a running one is why it is Starting. */
export function withClone(assessment: Assessment, cloned: ConditionInput): Assessment {
  const conditions = [...assessment.conditions, cloned];
  if (cloned.reason === CLONE_REASONS.failed && (assessment.phase === 'Starting' || assessment.phase === 'Failed')) {
    return {
      phase: 'Failed',
      conditions: conditions.map((c) =>
        c.type === 'Ready' ? { ...c, status: 'False', reason: CLONE_REASONS.failed, message: cloned.message } : c.type === 'Degraded' ? { ...c, status: 'True', reason: CLONE_REASONS.failed, message: cloned.message } : c,
      ),
    };
  }
  if (cloned.reason === CLONE_REASONS.cloning && assessment.phase === 'Starting') {
    return { phase: 'Starting', conditions: conditions.map((c) => (c.type === 'Ready' ? { ...c, reason: CLONE_REASONS.cloning, message: cloned.message } : c)) };
  }
  return { ...assessment, conditions };
}

/** An Event when the clone starts, lands or fails (not on every later start, whose clone step only says it is done). */
export function cloneEvent(cloned: ConditionInput, previous: Condition[] | undefined): ParentEvent | undefined {
  const before = previous?.find((c) => c.type === 'Cloned');
  if (before?.reason === cloned.reason && before.message === cloned.message) return undefined;
  if (cloned.reason === CLONE_REASONS.failed) return lifecycleEvent(CLONE_REASONS.failed, cloned.message, 'Warning');
  if (cloned.reason === CLONE_REASONS.cloned && before?.reason !== CLONE_REASONS.cloned) return lifecycleEvent(CLONE_REASONS.cloned, cloned.message);
  if (cloned.reason === CLONE_REASONS.cloning && before?.reason !== CLONE_REASONS.cloning && before?.reason !== CLONE_REASONS.failed) return lifecycleEvent(CLONE_REASONS.cloning, cloned.message);
  return undefined;
}

/** What this pod's clone step reported, once it has completed (exit 0); undefined before, or without a clone step. */
export function cloneReportOf(pod: ObservedPod | undefined): CloneReport | undefined {
  const terminated = pod?.status?.initContainerStatuses?.find((s) => s.name === CLONE_CONTAINER)?.state?.terminated;
  if (!terminated || terminated.exitCode !== 0 || terminated.message === undefined) return undefined;
  return parseCloneReport(terminated.message);
}
