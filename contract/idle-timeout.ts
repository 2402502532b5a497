// When a running Workspace counts as idle (spec.idleTimeout): the manager's idle auto-stop
// (hooks/workspace/idle.ts) decides with these, and the workspace page says when it would stop.
import { ACTIVITY_REFRESH_MS } from '../kube/group.js';
import type { Workspace } from './workspace.js';
import { durationMs } from './duration.js';

/** A session refreshes its activity this often, so a shorter timeout could stop a workspace in use. */
export const MIN_IDLE_TIMEOUT_MS = 2 * ACTIVITY_REFRESH_MS;
export const DEFAULT_IDLE_TIMEOUT = '4h';

export { durationMs } from './duration.js';

/** A Kubernetes timestamp in milliseconds; 0 for none or one that does not parse. */
export const timeOf = (text: string | undefined): number => (text ? Date.parse(text) || 0 : 0);

/**
 * Since when nobody used the workspace: the latest of its last SSH session or browser terminal
 * (status.lastActivityTime, written by the gateway), the moment it last became ready (starting
 * it counts as using it), and its creation. Idle auto-stop and dormancy both count from it.
 */
export function unusedSince(workspace: Pick<Workspace, 'status' | 'metadata'>): number {
  const ready = workspace.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
  return Math.max(timeOf(workspace.status?.lastActivityTime), timeOf(ready?.lastTransitionTime), timeOf(workspace.metadata?.creationTimestamp));
}

/**
 * Since when a ready Workspace has been idle, and after how long that stops it: idle time
 * counts from the latest of the last activity, the moment it last became ready (a workspace
 * just started is not idle) and its creation; a timeout below MIN_IDLE_TIMEOUT_MS counts as
 * that. Undefined when nothing stops it: not ready, or a timeout of zero (or unreadable).
 */
export function idleClock(workspace: Pick<Workspace, 'spec' | 'status' | 'metadata'>): { since: number; timeoutMs: number } | undefined {
  const ready = workspace.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return undefined;
  const timeoutMs = durationMs(workspace.spec?.idleTimeout ?? DEFAULT_IDLE_TIMEOUT);
  if (!timeoutMs) return undefined;
  return { since: unusedSince(workspace), timeoutMs: Math.max(timeoutMs, MIN_IDLE_TIMEOUT_MS) };
}
