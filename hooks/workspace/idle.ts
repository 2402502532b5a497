// Idle auto-stop (opt-in, `den manager --idle-stop`): a running Workspace whose last activity
// is older than its spec.idleTimeout is stopped. Activity is status.lastActivityTime, which
// the gateway (and the browser terminal) write on session open and close and refresh every
// ACTIVITY_REFRESH_MS while a session stays open (shell/activity.ts); so every replica's
// sessions count, and a workspace with a session open is never idle. Pure functions: the
// hook turns the verdict into a parent change and a timer, the loop does the writes.
import { ACTIVITY_REFRESH_MS, ANNOTATIONS } from '../../kube/group.js';
import { humanDuration } from '../../kube/den-events.js';
import { isRunning } from '../../infra/crds/workspace-rules.js';
import type { Workspace } from './types.js';

export const IDLE_STOPPED_BY = 'idle';
export const IDLE_STOPPED_REASON = 'IdleStopped';
/** A session refreshes its activity this often, so a shorter timeout could stop a workspace in use. */
export const MIN_IDLE_TIMEOUT_MS = 2 * ACTIVITY_REFRESH_MS;

const MAX_WAIT_MS = 6 * 3_600_000;

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration as the CRD admits it (`4h`, `1h30m`, `90s`, `0.5h`) in milliseconds; undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  if (!/^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(amount) * UNIT_MS[unit!]!;
  return total;
}

export type IdleVerdict =
  /** Idle stop does not apply: off, stopped, not ready yet, or no timeout. */
  | { action: 'none' }
  /** Not idle long enough: look again after this long. */
  | { action: 'wait'; afterMs: number }
  | { action: 'stop'; idleForMs: number; timeoutMs: number };

const time = (text: string | undefined): number => (text ? Date.parse(text) || 0 : 0);

/**
 * The decision for one Workspace at `now`. Idle time counts from the latest of: the last
 * activity, the moment it last became ready (a workspace just started is not idle), and its
 * creation. A timeout of zero never stops; one below MIN_IDLE_TIMEOUT_MS counts as that.
 */
export function idleVerdict(workspace: Workspace, now: Date, enabled: boolean): IdleVerdict {
  if (!enabled || !isRunning(workspace)) return { action: 'none' };
  const ready = workspace.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return { action: 'none' };
  const timeoutMs = durationMs(workspace.spec?.idleTimeout ?? '4h');
  if (!timeoutMs) return { action: 'none' };
  const since = Math.max(time(workspace.status?.lastActivityTime), time(ready.lastTransitionTime), time(workspace.metadata?.creationTimestamp));
  const effective = Math.max(timeoutMs, MIN_IDLE_TIMEOUT_MS);
  const idleForMs = now.getTime() - since;
  if (idleForMs >= effective) return { action: 'stop', idleForMs, timeoutMs: effective };
  // A second past the deadline, so the next look is never a moment early; capped so a long
  // timeout stays within what a timer can hold (24.8 days) and a moved clock is noticed.
  return { action: 'wait', afterMs: Math.min(effective - idleForMs + 1000, MAX_WAIT_MS) };
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
