// Idle auto-stop (opt-in, `den manager --idle-stop`): a running Workspace whose last activity
// is older than its spec.idleTimeout is stopped. Activity is status.lastActivityTime, which
// the gateway (and the browser terminal) write on session open and close and refresh every
// ACTIVITY_REFRESH_MS while a session stays open (shell/activity.ts); so every replica's
// sessions count, and a workspace with a session open is never idle. Pure functions: the
// hook turns the verdict into a parent change and a timer, the loop does the writes.
import { ACTIVITY_REFRESH_MS, ANNOTATIONS } from '../../kube/group.js';
import { humanDuration } from '../../kube/den-events.js';
import { idleClock } from '../../contract/idle-timeout.js';
import { isRunning } from '../../contract/workspace-rules.js';
import { lookAgainAfter } from './lifecycle-change.js';
import type { Workspace } from './types.js';

export { durationMs, MIN_IDLE_TIMEOUT_MS } from '../../contract/idle-timeout.js';

export const IDLE_STOPPED_BY = 'idle';
export const IDLE_STOPPED_REASON = 'IdleStopped';

export type IdleVerdict =
  /** Idle stop does not apply: off, stopped, not ready yet, or no timeout. */
  | { action: 'none' }
  /** Not idle long enough: look again after this long. */
  | { action: 'wait'; afterMs: number }
  | { action: 'stop'; idleForMs: number; timeoutMs: number };

/** The decision for one Workspace at `now` (when it counts as idle: contract/idle-timeout.ts). */
export function idleVerdict(workspace: Workspace, now: Date, enabled: boolean): IdleVerdict {
  if (!enabled || !isRunning(workspace)) return { action: 'none' };
  const clock = idleClock(workspace);
  if (!clock) return { action: 'none' };
  const effective = clock.timeoutMs;
  const idleForMs = now.getTime() - clock.since;
  if (idleForMs >= effective) return { action: 'stop', idleForMs, timeoutMs: effective };
  return { action: 'wait', afterMs: lookAgainAfter(effective - idleForMs) };
}

/** True when the manager stopped this Workspace for being idle and it is still stopped. */
export function stoppedForIdleness(workspace: Workspace): boolean {
  return !isRunning(workspace) && workspace.metadata?.annotations?.[ANNOTATIONS.stoppedBy] === IDLE_STOPPED_BY;
}

export function idleStopMessage(workspace: Workspace, idleForMs: number): string {
  return (
    `Stopped by idle auto-stop after ${humanDuration(idleForMs)} with no SSH session or browser terminal open ` +
    `(spec.idleTimeout ${workspace.spec?.idleTimeout ?? '4h'}). The home volume is kept; start the workspace to use it again.`
  );
}
