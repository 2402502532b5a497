// What the manager's own starts and stops write (idle stop, dormancy, schedules): pure pieces of
// a parent change, so each is said the same way and looked at again on the same terms.
import { ANNOTATIONS } from '../../kube/group.js';
import { DEN_EVENT_ANNOTATIONS, DEN_EVENT_REASONS } from '../../kube/den-events.js';
import type { ParentChange, ParentEvent } from '../loop/types.js';

/** The longest wait before a look again: within what a timer can hold (24.8 days), and a moved clock is noticed. */
const MAX_WAIT_MS = 6 * 3_600_000;

/** An Event on the Workspace of the activity kind `lifecycle` (Normal unless `type` says Warning). */
export function lifecycleEvent(reason: string, message: string, type: ParentEvent['type'] = 'Normal'): ParentEvent {
  return { type, reason, message, annotations: { [DEN_EVENT_ANNOTATIONS.kind]: 'lifecycle' } };
}

/** Stops the workspace: who stopped it in den.dev/stopped-by (beside `annotations`), and a Stopped Event saying why. */
export function stopChange(stoppedBy: string, message: string, annotations: Record<string, string | null> = {}): ParentChange {
  return { annotations: { ...annotations, [ANNOTATIONS.stoppedBy]: stoppedBy }, spec: { running: false }, events: [lifecycleEvent(DEN_EVENT_REASONS.stopped, message)] };
}

/** A second past `ms` from now, so the next look is never a moment early; capped at MAX_WAIT_MS. */
export function lookAgainAfter(ms: number): number {
  return Math.min(ms + 1000, MAX_WAIT_MS);
}
