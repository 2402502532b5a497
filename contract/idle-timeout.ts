// When a running Workspace counts as idle (spec.idleTimeout): the manager's idle auto-stop
// (hooks/workspace/idle.ts) decides with these, and the workspace page says when it would stop.
import { ACTIVITY_REFRESH_MS } from '../kube/group.js';
import type { Workspace } from './workspace.js';
import { durationMs } from './duration.js';

/** A session refreshes its activity this often, so a shorter timeout could stop a workspace in use. */
export const MIN_IDLE_TIMEOUT_MS = 2 * ACTIVITY_REFRESH_MS;
export const DEFAULT_IDLE_TIMEOUT = '4h';

export { durationMs } from './duration.js';

const time = (text: string | undefined): number => (text ? Date.parse(text) || 0 : 0);

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
  const since = Math.max(time(workspace.status?.lastActivityTime), time(ready.lastTransitionTime), time(workspace.metadata?.creationTimestamp));
  return { since, timeoutMs: Math.max(timeoutMs, MIN_IDLE_TIMEOUT_MS) };
}
