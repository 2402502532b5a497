// The `Devcontainer` and `Lifecycle` conditions (issue 34 parts 2 and 3): what devcontainer.json
// changed, whether the pod already runs with it, and what the `lifecycle` init container said
// (hooks/workspace/children/lifecycle.ts writes `ok` or `failed`, then its words). A failed
// command is a condition and a Warning Event; the workspace runs anyway.
import { DEVCONTAINER_APPLIED_ANNOTATION, LIFECYCLE_CONTAINER, type DotfilesReport } from '../../contract/devcontainer.js';
import type { ParentEvent } from '../loop/types.js';
import { lifecycleEvent } from './lifecycle-change.js';
import type { Applied } from './devcontainer.js';
import type { Assessment } from './status.js';
import type { Condition, ConditionInput, ObservedPod } from './types.js';

export const LIFECYCLE_REASONS = { pending: 'NotYetRun', running: 'Running', done: 'Ran', failed: 'CommandFailed' } as const;
export const APPLYING_REASON = 'ApplyingDevcontainer';

/** The Lifecycle condition from the pod's `lifecycle` init container, or the last one when this pod has not run it. */
export function lifecycleCondition(pod: ObservedPod | undefined, previous: Condition[] | undefined): ConditionInput {
  const status = pod?.status?.initContainerStatuses?.find((s) => s.name === LIFECYCLE_CONTAINER);
  const terminated = status?.state?.terminated;
  if (terminated?.message !== undefined) {
    const [first, ...rest] = terminated.message.split('\n');
    const words = rest.join(' ').replace(/\s+/g, ' ').trim();
    if (first === 'failed') return { type: 'Lifecycle', status: 'False', reason: LIFECYCLE_REASONS.failed, message: words || 'A command failed; see the workspace log.' };
    return { type: 'Lifecycle', status: 'True', reason: LIFECYCLE_REASONS.done, message: words || 'Nothing was left to run.' };
  }
  if (terminated) {
    return { type: 'Lifecycle', status: 'False', reason: LIFECYCLE_REASONS.failed, message: `The lifecycle step stopped (exit code ${terminated.exitCode ?? '?'}${terminated.reason ? `, ${terminated.reason}` : ''}) without saying why; its log (the pod's lifecycle container) tells more.` };
  }
  if (status?.state?.running) {
    return { type: 'Lifecycle', status: 'False', reason: LIFECYCLE_REASONS.running, message: 'Running the repository\'s onCreateCommand/postCreateCommand and your dotfiles in the workspace image; the workspace starts once they are done (output in ~/.den/logs and the workspace log).' };
  }
  const kept = previous?.find((c) => c.type === 'Lifecycle');
  if (kept && kept.reason !== LIFECYCLE_REASONS.running) return { type: kept.type, status: kept.status, reason: kept.reason, message: kept.message };
  return { type: 'Lifecycle', status: 'False', reason: LIFECYCLE_REASONS.pending, message: 'The repository\'s commands and your dotfiles run when the workspace next starts.' };
}

/** Whether the pod was made from a template that lacks what devcontainer.json or the dotfiles changed (it is being replaced). */
export function podPredates(pod: ObservedPod | undefined, digest: string | undefined): boolean {
  if (!pod) return false;
  return (pod.metadata.annotations?.[DEVCONTAINER_APPLIED_ANNOTATION] ?? undefined) !== digest;
}

/** The Dotfiles condition: where the person's dotfiles are and what runs, or why they were not cloned. */
export function dotfilesCondition(dotfiles: DotfilesReport): ConditionInput {
  if (dotfiles.problem) return { type: 'Dotfiles', status: 'False', reason: 'CloneFailed', message: `Your dotfiles repository ${dotfiles.url} was not cloned: ${dotfiles.problem} The workspace runs without them; they are tried again on the next start.` };
  const how = dotfiles.script ? `~/.dotfiles/${dotfiles.script} runs once in the workspace image` : 'it has no install script, so its dot files are linked into the home once';
  return { type: 'Dotfiles', status: 'True', reason: 'Cloned', message: `Your dotfiles repository ${dotfiles.url} is in ~/.dotfiles; ${how} (see the Lifecycle condition).` };
}

/** The assessment with the Devcontainer, Dotfiles and Lifecycle words, and the Events they call for. */
export function withDevcontainer(assessment: Assessment, applied: Applied, pod: ObservedPod | undefined, previous: Condition[] | undefined, dotfiles?: DotfilesReport): { assessment: Assessment; events: ParentEvent[] } {
  const conditions = [...assessment.conditions];
  const events: ParentEvent[] = [];
  if (applied.condition) {
    conditions.push(applied.condition);
    const before = previous?.find((c) => c.type === 'Devcontainer');
    if (before?.message !== applied.condition.message) events.push(lifecycleEvent('DevcontainerRead', applied.condition.message));
  }
  if (dotfiles) {
    const said = dotfilesCondition(dotfiles);
    conditions.push(said);
    const before = previous?.find((c) => c.type === 'Dotfiles');
    if (said.reason === 'CloneFailed' && before?.message !== said.message) events.push(lifecycleEvent('DotfilesCloneFailed', said.message, 'Warning'));
  }
  let phase = assessment.phase;
  if (applied.props.lifecycle) {
    const lifecycle = lifecycleCondition(pod, previous);
    conditions.push(lifecycle);
    const before = previous?.find((c) => c.type === 'Lifecycle');
    if (lifecycle.reason === LIFECYCLE_REASONS.failed && (before?.reason !== lifecycle.reason || before.message !== lifecycle.message)) {
      events.push(lifecycleEvent('LifecycleCommandFailed', lifecycle.message, 'Warning'));
    }
    if (lifecycle.reason === LIFECYCLE_REASONS.running && phase === 'Starting') {
      return { assessment: { phase, conditions: conditions.map((c) => (c.type === 'Ready' ? { ...c, reason: 'RunningLifecycleCommands', message: lifecycle.message } : c)) }, events };
    }
  }
  if ((phase === 'Running' || phase === 'Starting') && podPredates(pod, applied.props.appliedDigest)) {
    phase = 'Starting';
    const message = 'Restarting the workspace with what the repository\'s devcontainer.json (and your dotfiles) ask for; it is Running again in a moment.';
    return { assessment: { phase, conditions: conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False', reason: APPLYING_REASON, message } : c)) }, events };
  }
  return { assessment: { phase, conditions }, events };
}
