// Start and stop by the clock (issue 35, docs/schedules.md): pure. The hook turns the verdict
// into a parent change (spec.running and the record of the occurrence handled, one merge patch
// guarded by the resourceVersion the hook saw) and a timer for the next occurrence.
//
// Exactly once across restarts and fail-overs: each autostart or autostop occurrence the
// manager has handled is recorded in an annotation of the Workspace, in the same write that
// starts or stops it. A manager acts only on an occurrence newer than the recorded one, and its
// write carries the resourceVersion it read, so of two managers acting on the same occurrence
// one gets a 409 and, on its next run, sees the record. An occurrence that found the workspace
// as it should be is recorded too, so a person who stops a workspace by hand after its autostart
// is not started again until the next occurrence.
import { ANNOTATIONS } from '../../kube/group.js';
import { DEN_EVENT_REASONS, humanDuration } from '../../kube/den-events.js';
import { effectiveSchedule, lastOccurrence, nextOccurrence, occurrenceLabel, SCHEDULE_CATCH_UP_MS, type SchedulePolicy, type ZonedRule } from '../../contract/schedule.js';
import { timeOf } from '../../contract/idle-timeout.js';
import { isRunning } from '../../contract/workspace-rules.js';
import { kubeTime } from '../loop/conditions.js';
import type { ParentChange } from '../loop/types.js';
import { lifecycleEvent, lookAgainAfter, stopChange } from './lifecycle-change.js';
import type { Workspace } from './types.js';

export const SCHEDULE_STOPPED_BY = 'schedule';
/** The Warning Event of an autostart the cluster refused. */
export const SCHEDULE_REFUSED_REASON = 'ScheduleNotStarted';

export interface ScheduleStep {
  parentChange?: ParentChange;
  /** When to look again: a second after the next occurrence or the end of maxRunning. */
  resyncAfterMs?: number;
}

type Kind = 'autostart' | 'autostop';
const RECORD: Record<Kind, string> = { autostart: ANNOTATIONS.scheduleAutostart, autostop: ANNOTATIONS.scheduleAutostop };


interface Due {
  kind: Kind;
  at: number;
  zoned: ZonedRule;
}

/** The occurrences of autostart and autostop not yet handled, oldest first. */
function dueOccurrences(workspace: Workspace, rules: Partial<Record<Kind, ZonedRule>>, now: number): Due[] {
  const created = timeOf(workspace.metadata?.creationTimestamp);
  const due: Due[] = [];
  for (const kind of ['autostart', 'autostop'] as const) {
    const zoned = rules[kind];
    if (!zoned) continue;
    const at = lastOccurrence(zoned, now);
    const handled = timeOf(workspace.metadata?.annotations?.[RECORD[kind]]);
    if (at !== undefined && at > handled && at >= created) due.push({ kind, at, zoned });
  }
  return due.sort((a, b) => a.at - b.at);
}

function readySince(workspace: Workspace): number | undefined {
  const ready = workspace.status?.conditions?.find((c) => c.type === 'Ready');
  return ready?.status === 'True' ? timeOf(ready.lastTransitionTime) || undefined : undefined;
}

/** The decision for one Workspace at `now`, under its UserSpace's spec.schedules. */
export function scheduleStep(workspace: Workspace, policy: SchedulePolicy | undefined, now: Date): ScheduleStep {
  const effective = effectiveSchedule(workspace.spec?.schedule, policy);
  const t = now.getTime();
  const running = isRunning(workspace);
  const due = dueOccurrences(workspace, effective, t);
  if (due.length > 0) {
    const annotations: Record<string, string | null> = {};
    for (const d of due) annotations[RECORD[d.kind]] = kubeTime(new Date(d.at));
    // The latest occurrence decides: a stop at 19:00 handled at 08:31 the next day loses to the 08:30 start.
    const last = due[due.length - 1]!;
    const late = t - last.at > SCHEDULE_CATCH_UP_MS;
    const label = occurrenceLabel(last.zoned.rule, last.zoned.timeZone);
    if (!late && last.kind === 'autostart' && !running) {
      // Refused (no SSH key, the quota full): recorded and said, so it is not tried again until the next occurrence.
      const onRefusal: ParentChange = { annotations: { ...annotations }, events: [lifecycleEvent(SCHEDULE_REFUSED_REASON, `Not started by its schedule ${label}: the cluster refused the start; it is tried again at the next occurrence.`, 'Warning')] };
      annotations[ANNOTATIONS.stoppedBy] = null;
      return { parentChange: { annotations, spec: { running: true }, events: [lifecycleEvent(DEN_EVENT_REASONS.started, `Started by its schedule ${label}.`)], onRefusal } };
    }
    if (!late && last.kind === 'autostop' && running) {
      const source = effective.autostop?.fromPolicy ? " (the space's default autostop, UserSpace spec.schedules.defaultAutostop)" : '';
      return { parentChange: stopChange(SCHEDULE_STOPPED_BY, `Stopped by its schedule ${label}${source}. The home volume is kept; start the workspace to use it again.`, annotations) };
    }
    // Already as the schedule wants it, or too late to act: recorded, so it is not acted on later.
    return { parentChange: { annotations } };
  }
  const waits: number[] = [];
  for (const zoned of [effective.autostart, effective.autostop]) {
    const next = zoned ? nextOccurrence(zoned, t) : undefined;
    if (next !== undefined) waits.push(next - t);
  }
  const since = running ? readySince(workspace) : undefined;
  if (effective.maxRunning && since !== undefined) {
    const ranMs = t - since;
    if (ranMs >= effective.maxRunning.ms) {
      const { source: from, text } = effective.maxRunning;
      const source = from === 'own' ? `spec.schedule.maxRunning ${text}` : `the space's ${from === 'defaultMaxRunning' ? 'default' : 'limit'}, UserSpace spec.schedules.${from} ${text}`;
      return { parentChange: stopChange(SCHEDULE_STOPPED_BY, `Stopped after running ${humanDuration(ranMs)} (${source}). The home volume is kept; start the workspace to use it again.`) };
    }
    waits.push(effective.maxRunning.ms - ranMs);
  }
  if (waits.length === 0) return {};
  // A second past the moment, so the next look is never early; capped so a moved clock is noticed.
  return { resyncAfterMs: lookAgainAfter(Math.min(...waits)) };
}
