// The schema of a Workspace's spec.schedule, a UserSpace's spec.schedules and a Workspace's
// status.dormancy, as the CRDs carry them (contract/schedule.ts and contract/dormancy.ts read them).
import { DURATION_PATTERN, arrayOf, integer, object, string, type JsonSchema } from './schema.js';
import { SCHEDULE_DAYS, TIME_OF_DAY_PATTERN } from './schedule.js';

/** The dormancy policy as the manager applies it, written into every Workspace's status.dormancy (contract/dormancy.ts). */
export interface DormancyPolicy {
  stopAfterDays?: number;
  deleteAfterDays?: number;
  home?: 'Keep' | 'Delete';
}

function dailyTime(description: string, extra: Record<string, JsonSchema> = {}): JsonSchema {
  return object(
    description,
    {
      days: arrayOf('Days of the week it happens on; every day when absent.', string('A day: Mon, Tue, Wed, Thu, Fri, Sat or Sun.', { enum: [...SCHEDULE_DAYS] }), {
        maxItems: 7,
        'x-kubernetes-list-type': 'set',
      }),
      time: string('Time of day, HH:MM on a 24-hour clock, in the time zone.', { pattern: TIME_OF_DAY_PATTERN }),
      ...extra,
    },
    { required: ['time'] },
  );
}

const TIME_ZONE = 'IANA time zone name the times are read in, such as Europe/Berlin (checked by the admission webhook).';

export function workspaceScheduleSchema(): JsonSchema {
  return object(
    'Start and stop by the clock (docs/schedules.md). The manager acts on each occurrence once, records it in the annotations den.dev/schedule-autostart and den.dev/schedule-autostop, and a workspace stopped by hand after an autostart stays stopped until the next one.',
    {
      timeZone: string(TIME_ZONE, { maxLength: 64 }),
      autostart: dailyTime('Set spec.running to true at this time of day.'),
      autostop: dailyTime("Set spec.running to false at this time of day; the UserSpace's spec.schedules.defaultAutostop when absent."),
      maxRunning: string('A duration such as 8h: a workspace running this long is stopped. At most the UserSpace\'s spec.schedules.maxRunningLimit.', { pattern: DURATION_PATTERN }),
    },
  );
}

export function schedulePolicySchema(): JsonSchema {
  return object('Schedule defaults and limits for every Workspace of this space (administrators only).', {
    maxRunningLimit: string('Longest a workspace may run at a time: a Workspace asking for a longer spec.schedule.maxRunning is refused, and one asking for none is stopped after this long.', { pattern: DURATION_PATTERN }),
    defaultMaxRunning: string('The maxRunning of a Workspace that sets none (at most maxRunningLimit).', { pattern: DURATION_PATTERN }),
    defaultAutostop: dailyTime('The autostop of a Workspace that sets none.', { timeZone: string(TIME_ZONE, { maxLength: 64 }) }),
  });
}

export function dormancyStatusSchema(): JsonSchema {
  return object('The dormancy policy of this installation as the manager applies it (den manager --dormant-stop-days, --dormant-delete-days): the page tells the person from these and status.lastActivityTime when the workspace will be stopped or deleted.', {
    stopAfterDays: integer('A workspace unused this many days is stopped.', { format: 'int32', minimum: 1 }),
    deleteAfterDays: integer('A workspace unused this many more days after the stop is deleted.', { format: 'int32', minimum: 1 }),
    home: string('Whether the home volume is kept or deleted with a dormant workspace.', { enum: ['Keep', 'Delete'] }),
  });
}
