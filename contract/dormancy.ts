// Dormancy (issue 35): an installation may stop workspaces nobody used for N days and delete
// them M days later, their home volume kept or not (den manager --dormant-stop-days,
// --dormant-delete-days, --dormant-delete-home). The manager's hook acts on these dates, and
// the workspace page and the dashboard tell the person beforehand from the same ones.
import { unusedSince } from './idle-timeout.js';
import { isRunning } from './workspace-rules.js';
import type { Workspace } from './workspace.js';

export type { DormancyPolicy } from './schedule-crd.js';
import type { DormancyPolicy } from './schedule-crd.js';

export const DAY_MS = 86_400_000;

/** The page warns this long before a dormant workspace is stopped or deleted. */
export const DORMANCY_NOTICE_MS = 7 * DAY_MS;


export interface DormancyDates {
  unusedSince: number;
  /** When the policy stops it (running workspaces only). */
  stopAt?: number;
  /** When the policy deletes it. */
  deleteAt?: number;
}

export function dormancyDates(workspace: Pick<Workspace, 'status' | 'metadata' | 'spec'>, policy: DormancyPolicy | undefined): DormancyDates {
  const since = unusedSince(workspace);
  const stopDays = policy?.stopAfterDays;
  const dates: DormancyDates = { unusedSince: since };
  if (!stopDays || stopDays <= 0) return dates;
  if (isRunning(workspace)) dates.stopAt = since + stopDays * DAY_MS;
  if (policy?.deleteAfterDays && policy.deleteAfterDays > 0) dates.deleteAt = since + (stopDays + policy.deleteAfterDays) * DAY_MS;
  return dates;
}

/** A date as the page and the Events write it: 3 Dec 2026 (UTC). */
export function dayText(ms: number): string {
  return `${new Date(ms).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })} (UTC)`;
}

/**
 * What the page tells the person about a workspace close to being stopped or deleted for
 * dormancy (within DORMANCY_NOTICE_MS), or undefined when nothing is near.
 */
export function dormancyNotice(workspace: Pick<Workspace, 'status' | 'metadata' | 'spec'>, now: number): string | undefined {
  const policy = workspace.status?.dormancy;
  const dates = dormancyDates(workspace, policy);
  const days = Math.floor((now - dates.unusedSince) / DAY_MS);
  const unused = `Unused for ${days} day${days === 1 ? '' : 's'}`;
  if (dates.stopAt !== undefined && dates.stopAt - now <= DORMANCY_NOTICE_MS) {
    return `${unused}; will be stopped on ${dayText(Math.max(dates.stopAt, now))} unless used (open an SSH session or the browser terminal).`;
  }
  if (dates.stopAt === undefined && dates.deleteAt !== undefined && dates.deleteAt - now <= DORMANCY_NOTICE_MS) {
    const home = policy?.home === 'Delete' ? 'its home volume with it' : 'its home volume is kept';
    return `${unused}; will be deleted on ${dayText(Math.max(dates.deleteAt, now))} (${home}) unless started before then.`;
  }
  return undefined;
}
