// Dormancy (issue 35, docs/schedules.md): pure. A workspace nobody used for the policy's
// stopAfterDays is stopped; one unused for deleteAfterDays more is deleted, its home volume
// with it when the policy says so. The dates are contract/dormancy.ts's, the same the page
// warns with. The loop writes the stop as a parent change and the deletion as a parent
// deletion guarded by the resourceVersion the hook saw: a session opened meanwhile (a new
// status.lastActivityTime) makes the deletion a 409, and the next run sees the use.
import { homeClaimName } from '../../kube/group.js';
import { DEN_EVENT_REASONS } from '../../kube/den-events.js';
import { DAY_MS, dayText, dormancyDates, type DormancyPolicy } from '../../contract/dormancy.js';
import { isRunning } from '../../contract/workspace-rules.js';
import type { ParentChange, ParentDeletion } from '../loop/types.js';
import { lifecycleEvent, lookAgainAfter, stopChange } from './lifecycle-change.js';
import type { Workspace } from './types.js';

export const DORMANCY_STOPPED_BY = 'dormancy';

export interface DormancyStep {
  parentChange?: ParentChange;
  parentDeletion?: ParentDeletion;
  resyncAfterMs?: number;
}

const days = (ms: number) => Math.floor(ms / DAY_MS);

/** The decision for one Workspace at `now` under the installation's dormancy policy. */
export function dormancyStep(workspace: Workspace, policy: DormancyPolicy | undefined, now: Date): DormancyStep {
  const dates = dormancyDates(workspace, policy);
  const t = now.getTime();
  const unused = `unused for ${days(t - dates.unusedSince)} days (no SSH session or browser terminal since ${dayText(dates.unusedSince)})`;
  const name = workspace.metadata?.name ?? '';
  if (dates.stopAt !== undefined && t >= dates.stopAt) {
    const message = `Stopped: ${unused}; this installation stops workspaces unused for ${policy!.stopAfterDays} days.${dates.deleteAt ? ` It will be deleted on ${dayText(dates.deleteAt)} unless started before then.` : ''} The home volume is kept.`;
    return { parentChange: stopChange(DORMANCY_STOPPED_BY, message) };
  }
  if (dates.deleteAt !== undefined && t >= dates.deleteAt && !isRunning(workspace)) {
    const deleteHome = policy?.home === 'Delete';
    return {
      parentDeletion: {
        claims: deleteHome ? [homeClaimName(name)] : [],
        events: [
          lifecycleEvent(
            DEN_EVENT_REASONS.deleted,
            `Deleted workspace ${name}: ${unused}; this installation deletes workspaces unused for ${policy!.stopAfterDays! + policy!.deleteAfterDays!} days. ${deleteHome ? `Its home volume ${homeClaimName(name)} was deleted with it.` : `Its home volume ${homeClaimName(name)} is kept: a new workspace named ${name} finds it.`}`,
          ),
        ],
      },
    };
  }
  const next = [dates.stopAt, dates.deleteAt].filter((at): at is number => at !== undefined && at > t);
  if (next.length === 0) return {};
  return { resyncAfterMs: lookAgainAfter(Math.min(...next) - t) };
}
