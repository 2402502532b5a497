// Wall-clock times in an IANA time zone, with nothing but Intl: which instant is "08:30 on
// 2026-03-30 in Europe/Berlin", and which local day and weekday an instant falls on. The
// schedule maths (contract/schedule.ts) is built on these two.

export const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface LocalDate {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when Intl knows the zone by this name (`Europe/Berlin`, `UTC`); an offset or an abbreviation such as CET is refused by the schedule rule. */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

interface LocalParts extends LocalDate {
  hour: number;
  minute: number;
  second: number;
}

/** The wall clock of `timeZone` at `instant` (ms since the epoch). */
export function localParts(instant: number, timeZone: string): LocalParts {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(instant))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute!, second: parts.second! };
}

/** How far the zone's wall clock is ahead of UTC at `instant`, in ms. */
function offsetAt(instant: number, timeZone: string): number {
  const p = localParts(instant, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant the zone's clock shows `hour:minute` on `date`. A time the clock skips (02:30 on
 * the day summer time begins) is the moment after the jump: as late as the skipped hour
 * (03:30). A time the clock shows twice (02:30 on the day summer time ends) is the first.
 */
export function zonedInstant(date: LocalDate, hour: number, minute: number, timeZone: string): number {
  // The same few schedules are asked about for every Workspace on every reconcile: remembered.
  const key = `${timeZone}|${date.year}-${date.month}-${date.day}|${hour}:${minute}`;
  const known = instants.get(key);
  if (known !== undefined) return known;
  const at = computeInstant(date, hour, minute, timeZone);
  remember(instants, key, at);
  return at;
}

/** What the wall clock of a zone showed, by zone and minute (a local date changes only on a minute). */
const dates = new Map<string, LocalDate>();
const instants = new Map<string, number>();
const REMEMBERED = 20_000;

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= REMEMBERED) map.clear();
  map.set(key, value);
}

/** The local date of `instant` in the zone. */
export function localDate(instant: number, timeZone: string): LocalDate {
  const key = `${timeZone}|${Math.floor(instant / 60_000)}`;
  let date = dates.get(key);
  if (!date) {
    const { year, month, day } = localParts(instant, timeZone);
    date = { year, month, day };
    remember(dates, key, date);
  }
  return date;
}

function computeInstant(date: LocalDate, hour: number, minute: number, timeZone: string): number {
  const wall = Date.UTC(date.year, date.month - 1, date.day, hour, minute);
  const day = 86_400_000;
  const before = offsetAt(wall - day, timeZone);
  const after = offsetAt(wall + day, timeZone);
  const shows = (t: number) => {
    const p = localParts(t, timeZone);
    return p.hour === hour && p.minute === minute && p.day === date.day;
  };
  const candidates = [wall - before, wall - after].filter(shows).sort((a, b) => a - b);
  // Neither offset gives that wall time: it is in the gap; the offset before the jump lands after it.
  return candidates[0] ?? wall - before;
}

/** The local date `days` after `date` (negative: before). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

export function weekdayOf(date: LocalDate): Weekday {
  return WEEKDAYS[new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay()]!;
}
