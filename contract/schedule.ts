// A Workspace's schedule (issue 35): autostart and autostop at a time of day in the person's
// time zone, a longest running time, and the limits and defaults an administrator sets per
// UserSpace. One home for the rule, read by the webhook, REST, the CLI, the page and the
// manager's hook: the shapes, the text grammar (`weekdays 08:30`), the checks, and the maths
// of when an occurrence is due.
import { durationMs } from './duration.js';
import { addDays, isTimeZone, localDate, weekdayOf, zonedInstant, type LocalDate } from './zoned-time.js';

export { isTimeZone } from './zoned-time.js';

/** Days as the CRD spells them, Monday first. */
export const SCHEDULE_DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
export type ScheduleDay = (typeof SCHEDULE_DAYS)[number];
const WEEKDAYS: readonly ScheduleDay[] = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'];
const WEEKEND: readonly ScheduleDay[] = ['Sat', 'Sun'];

export const TIME_OF_DAY_PATTERN = '^([01][0-9]|2[0-3]):[0-5][0-9]$';

/** A time of day on some days of the week; no days (or none listed) means every day. */
export interface DailyTime {
  days?: string[];
  time?: string;
}

/** `spec.schedule` of a Workspace. */
export interface WorkspaceSchedule {
  /** IANA name (Europe/Berlin) the times are read in. */
  timeZone?: string;
  autostart?: DailyTime;
  autostop?: DailyTime;
  /** A duration (8h): a running workspace is stopped after running this long. */
  maxRunning?: string;
}

/** `spec.schedules` of a UserSpace: what an administrator sets for every workspace of the person. */
export interface SchedulePolicy {
  /** No workspace may ask for a longer maxRunning; one that asks for none runs at most this long. */
  maxRunningLimit?: string;
  /** The maxRunning of a workspace that sets none. */
  defaultMaxRunning?: string;
  /** The autostop of a workspace that sets none, in its own time zone. */
  defaultAutostop?: DailyTime & { timeZone?: string };
}

/**
 * An occurrence this late is still acted on, once: a manager outage or a fail-over (15 s) delays
 * a start or a stop, it does not lose it. One later than this is recorded as handled and
 * skipped, so a manager back after a day does not stop or start what the person has since changed.
 */
export const SCHEDULE_CATCH_UP_MS = 60 * 60_000;

/** The shortest maxRunning: a session refreshes its activity every 5 minutes, and a shorter one is a typo. */
export const MIN_MAX_RUNNING_MS = 10 * 60_000;

export interface ScheduleViolation {
  field: string;
  message: string;
  advice: string;
}

// The text grammar, for the CLI, the page and REST: `weekdays 08:30`, `daily 19:00`, `Mon,Wed 08:30`, `08:30`.

const DAY_NAMES: Record<ScheduleDay, string> = { Mon: 'monday', Tue: 'tuesday', Wed: 'wednesday', Thu: 'thursday', Fri: 'friday', Sat: 'saturday', Sun: 'sunday' };
const DAY_WORDS: Record<string, readonly ScheduleDay[]> = { weekdays: WEEKDAYS, weekends: WEEKEND, daily: SCHEDULE_DAYS, everyday: SCHEDULE_DAYS };

export const DAILY_TIME_EXAMPLES = '"weekdays 08:30", "daily 19:00", "Mon,Wed,Fri 07:45" or "18:00"';

/** `weekdays 08:30` as a DailyTime; a string saying what is wrong when it is not one. */
export function parseDailyTime(text: string): DailyTime | string {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const time = words.pop() ?? '';
  if (!new RegExp(TIME_OF_DAY_PATTERN).test(time)) return `"${text.trim()}" does not end with a time of day as HH:MM (24 hours), such as ${DAILY_TIME_EXAMPLES}`;
  if (words.length === 0) return { time };
  const days: ScheduleDay[] = [];
  for (const word of words.join(',').split(',').filter(Boolean)) {
    const named = DAY_WORDS[word.toLowerCase()];
    const day = SCHEDULE_DAYS.find((d) => [d.toLowerCase(), DAY_NAMES[d]].includes(word.toLowerCase()));
    if (named) days.push(...named);
    else if (day) days.push(day);
    else return `"${word}" is not a day: write weekdays, weekends, daily, or days such as Mon,Wed,Fri`;
  }
  const unique = SCHEDULE_DAYS.filter((d) => days.includes(d));
  return unique.length === SCHEDULE_DAYS.length ? { time } : { days: unique, time };
}

/** The days of a rule as a person reads them: weekdays, weekends, daily, or Mon,Wed. */
export function daysText(days: string[] | undefined): string {
  const set = SCHEDULE_DAYS.filter((d) => (days ?? []).includes(d));
  if (set.length === 0 || set.length === 7) return 'daily';
  if (set.join() === WEEKDAYS.join()) return 'weekdays';
  if (set.join() === WEEKEND.join()) return 'weekends';
  return set.join(',');
}

/** `weekdays 08:30`, the grammar parseDailyTime reads. */
export function dailyTimeText(rule: DailyTime): string {
  return `${daysText(rule.days)} ${rule.time ?? ''}`;
}

/** What an Event or the page names a schedule by: `weekdays 08:30 Europe/Berlin`. */
export function occurrenceLabel(rule: DailyTime, timeZone: string): string {
  return `${dailyTimeText(rule)} ${timeZone}`;
}

// The checks.

function dailyTimeViolations(rule: unknown, field: string): ScheduleViolation[] {
  if (rule === undefined || rule === null) return [];
  const r = rule as DailyTime;
  const violations: ScheduleViolation[] = [];
  if (typeof r.time !== 'string' || !new RegExp(TIME_OF_DAY_PATTERN).test(r.time)) {
    violations.push({ field: `${field}.time`, message: `must be a time of day as HH:MM, 00:00 to 23:59 (got ${JSON.stringify(r.time ?? null)})`, advice: `Write the time as HH:MM on a 24-hour clock, such as 08:30 or 19:00.` });
  }
  if (r.days !== undefined && (!Array.isArray(r.days) || r.days.some((d) => !(SCHEDULE_DAYS as readonly string[]).includes(d)))) {
    violations.push({ field: `${field}.days`, message: `must list days among ${SCHEDULE_DAYS.join(', ')} (got ${JSON.stringify(r.days)})`, advice: 'Name the days as Mon, Tue, Wed, Thu, Fri, Sat, Sun (or leave them out for every day).' });
  }
  return violations;
}

function zoneViolations(zone: unknown, field: string, needed: boolean): ScheduleViolation[] {
  if (zone === undefined || zone === null || zone === '') {
    return needed ? [{ field, message: 'is required with an autostart or autostop: the IANA time zone the times are read in, such as Europe/Berlin', advice: 'Say which time zone the times are in, such as Europe/Berlin or America/New_York.' }] : [];
  }
  if (typeof zone !== 'string' || !isTimeZone(zone)) {
    return [{ field, message: `"${String(zone)}" is not an IANA time zone (such as Europe/Berlin, America/New_York or UTC)`, advice: `"${String(zone)}" is not a time zone Den knows: use a name such as Europe/Berlin, America/New_York or UTC.` }];
  }
  return [];
}

function limitMs(policy: SchedulePolicy | undefined): number | undefined {
  return policy?.maxRunningLimit ? durationMs(policy.maxRunningLimit) : undefined;
}

/** What is wrong with `spec.schedule` under the UserSpace's `spec.schedules`; [] when nothing is. */
export function scheduleViolations(schedule: unknown, policy: SchedulePolicy | undefined): ScheduleViolation[] {
  if (schedule === undefined || schedule === null) return [];
  const s = schedule as WorkspaceSchedule;
  const field = 'spec.schedule';
  const violations = [
    ...dailyTimeViolations(s.autostart, `${field}.autostart`),
    ...dailyTimeViolations(s.autostop, `${field}.autostop`),
    ...zoneViolations(s.timeZone, `${field}.timeZone`, Boolean(s.autostart || s.autostop)),
  ];
  if (s.maxRunning !== undefined) {
    const ms = typeof s.maxRunning === 'string' ? durationMs(s.maxRunning) : undefined;
    const limit = limitMs(policy);
    if (ms === undefined || ms < MIN_MAX_RUNNING_MS) {
      violations.push({ field: `${field}.maxRunning`, message: `must be a duration of at least 10m, such as 8h or 90m (got ${JSON.stringify(s.maxRunning)})`, advice: 'Write the longest running time as a duration of at least 10m, such as 8h or 90m.' });
    } else if (limit !== undefined && ms > limit) {
      violations.push({
        field: `${field}.maxRunning`,
        message: `${s.maxRunning} is above the limit of ${policy!.maxRunningLimit} set by an administrator for this space (UserSpace spec.schedules.maxRunningLimit)`,
        advice: `Your administrator lets a workspace run at most ${policy!.maxRunningLimit} at a time: choose ${policy!.maxRunningLimit} or less.`,
      });
    }
  }
  return violations;
}

/** What is wrong with a UserSpace's `spec.schedules`. */
export function policyViolations(policy: unknown): ScheduleViolation[] {
  if (policy === undefined || policy === null) return [];
  const p = policy as SchedulePolicy;
  const field = 'spec.schedules';
  const violations: ScheduleViolation[] = [];
  for (const key of ['maxRunningLimit', 'defaultMaxRunning'] as const) {
    const text = p[key];
    if (text !== undefined && (typeof text !== 'string' || (durationMs(text) ?? 0) < MIN_MAX_RUNNING_MS)) {
      violations.push({ field: `${field}.${key}`, message: `must be a duration of at least 10m, such as 8h (got ${JSON.stringify(text)})`, advice: 'Write a duration of at least 10m, such as 8h.' });
    }
  }
  const limit = limitMs(p);
  const fallback = p.defaultMaxRunning ? durationMs(p.defaultMaxRunning) : undefined;
  if (limit !== undefined && fallback !== undefined && fallback > limit) {
    violations.push({ field: `${field}.defaultMaxRunning`, message: `${p.defaultMaxRunning} is above spec.schedules.maxRunningLimit ${p.maxRunningLimit}`, advice: 'The default cannot exceed the limit.' });
  }
  if (p.defaultAutostop) {
    violations.push(...dailyTimeViolations(p.defaultAutostop, `${field}.defaultAutostop`));
    violations.push(...zoneViolations(p.defaultAutostop.timeZone, `${field}.defaultAutostop.timeZone`, true));
  }
  return violations;
}

// The maths.

export interface ZonedRule {
  rule: DailyTime;
  timeZone: string;
}

function ruleDays(rule: DailyTime): readonly string[] {
  return rule.days && rule.days.length > 0 ? rule.days : SCHEDULE_DAYS;
}

function instantOn(date: LocalDate, { rule, timeZone }: ZonedRule): number | undefined {
  if (!ruleDays(rule).includes(weekdayOf(date))) return undefined;
  const [h, m] = (rule.time ?? '').split(':').map(Number);
  if (h === undefined || m === undefined || Number.isNaN(h) || Number.isNaN(m)) return undefined;
  return zonedInstant(date, h, m, timeZone);
}

function today(now: number, timeZone: string): LocalDate {
  return localDate(now, timeZone);
}

/** The nearest occurrence within 8 days of `now`'s local date, walking back (`-1`) or ahead (`1`), that `fits`. */
function nearestOccurrence(zoned: ZonedRule, now: number, step: 1 | -1, fits: (at: number) => boolean): number | undefined {
  const start = today(now, zoned.timeZone);
  for (let days = 0; days <= 8; days++) {
    const at = instantOn(addDays(start, step * days), zoned);
    if (at !== undefined && fits(at)) return at;
  }
  return undefined;
}

/** The latest occurrence at or before `now` (ms), within the last 8 days; undefined when the rule has none. */
export function lastOccurrence(zoned: ZonedRule, now: number): number | undefined {
  return nearestOccurrence(zoned, now, -1, (at) => at <= now);
}

/** The first occurrence after `now` (ms), within the next 8 days. */
export function nextOccurrence(zoned: ZonedRule, now: number): number | undefined {
  return nearestOccurrence(zoned, now, 1, (at) => at > now);
}

/** The schedule that applies to a workspace: its own, with the UserSpace's defaults and limit filled in. */
export interface EffectiveSchedule {
  autostart?: ZonedRule;
  autostop?: ZonedRule & { fromPolicy: boolean };
  /** Where it comes from: the Workspace's own, or the UserSpace's default or limit (`spec.schedules.<source>`). */
  maxRunning?: { ms: number; text: string; source: 'own' | 'defaultMaxRunning' | 'maxRunningLimit' };
}

export function effectiveSchedule(schedule: WorkspaceSchedule | undefined, policy: SchedulePolicy | undefined): EffectiveSchedule {
  const zone = schedule?.timeZone && isTimeZone(schedule.timeZone) ? schedule.timeZone : undefined;
  const effective: EffectiveSchedule = {};
  if (schedule?.autostart?.time && zone) effective.autostart = { rule: schedule.autostart, timeZone: zone };
  if (schedule?.autostop?.time && zone) effective.autostop = { rule: schedule.autostop, timeZone: zone, fromPolicy: false };
  else if (policy?.defaultAutostop?.time && policy.defaultAutostop.timeZone && isTimeZone(policy.defaultAutostop.timeZone)) {
    effective.autostop = { rule: policy.defaultAutostop, timeZone: policy.defaultAutostop.timeZone, fromPolicy: true };
  }
  const limit = limitMs(policy);
  const own = schedule?.maxRunning ? durationMs(schedule.maxRunning) : undefined;
  const fallback = policy?.defaultMaxRunning ? durationMs(policy.defaultMaxRunning) : undefined;
  if (own !== undefined && own >= MIN_MAX_RUNNING_MS && (limit === undefined || own <= limit)) effective.maxRunning = { ms: own, text: schedule!.maxRunning!, source: 'own' };
  else if (fallback !== undefined && fallback >= MIN_MAX_RUNNING_MS) effective.maxRunning = { ms: Math.min(fallback, limit ?? fallback), text: policy!.defaultMaxRunning!, source: 'defaultMaxRunning' };
  else if (limit !== undefined && limit >= MIN_MAX_RUNNING_MS) effective.maxRunning = { ms: limit, text: policy!.maxRunningLimit!, source: 'maxRunningLimit' };
  return effective;
}

/** The schedule of a workspace in words, for its page: what starts and stops it by itself. */
export function scheduleSummary(schedule: WorkspaceSchedule | undefined, policy?: SchedulePolicy): string {
  const effective = effectiveSchedule(schedule, policy);
  const parts: string[] = [];
  if (effective.autostart) parts.push(`starts ${occurrenceLabel(effective.autostart.rule, effective.autostart.timeZone)}`);
  if (effective.autostop) parts.push(`stops ${occurrenceLabel(effective.autostop.rule, effective.autostop.timeZone)}${effective.autostop.fromPolicy ? " (your space's default)" : ''}`);
  if (effective.maxRunning) parts.push(`stops after running ${effective.maxRunning.text}${{ own: '', defaultMaxRunning: " (your space's default)", maxRunningLimit: " (your space's limit)" }[effective.maxRunning.source]}`);
  return parts.length ? parts.join('; ') : 'none: it starts and stops only when you say';
}

/** The schedule as the forms show it: the words each field takes. */
export function scheduleFormValues(schedule: WorkspaceSchedule | undefined): { autostart: string; autostop: string; max_running: string; time_zone: string } {
  return {
    autostart: schedule?.autostart?.time ? dailyTimeText(schedule.autostart) : '',
    autostop: schedule?.autostop?.time ? dailyTimeText(schedule.autostop) : '',
    max_running: schedule?.maxRunning ?? '',
    time_zone: schedule?.timeZone ?? '',
  };
}

/** What an administrator set for every workspace of a space, in words; undefined when nothing. */
export function policySummary(policy: SchedulePolicy | undefined): string | undefined {
  const parts: string[] = [];
  if (policy?.maxRunningLimit) parts.push(`a workspace runs at most ${policy.maxRunningLimit} at a time`);
  if (policy?.defaultMaxRunning) parts.push(`one without a longest running time stops after ${policy.defaultMaxRunning}`);
  if (policy?.defaultAutostop?.time && policy.defaultAutostop.timeZone) parts.push(`one without a stop time stops ${occurrenceLabel(policy.defaultAutostop, policy.defaultAutostop.timeZone)}`);
  return parts.length ? `Set by an administrator for your space: ${parts.join('; ')}.` : undefined;
}
