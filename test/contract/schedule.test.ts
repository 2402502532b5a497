import { expect } from 'chai';
import {
  dailyTimeText,
  effectiveSchedule,
  lastOccurrence,
  nextOccurrence,
  parseDailyTime,
  policyViolations,
  scheduleViolations,
  type ZonedRule,
} from '../../contract/schedule.js';
import { isTimeZone, zonedInstant } from '../../contract/zoned-time.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const berlin = (days: string[] | undefined, time: string): ZonedRule => ({ rule: { ...(days ? { days } : {}), time }, timeZone: 'Europe/Berlin' });
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'];

describe('schedule maths', () => {
  describe('a time of day in Europe/Berlin', () => {
    it('is UTC+1 in winter and UTC+2 in summer', () => {
      expect(iso(zonedInstant({ year: 2026, month: 1, day: 15 }, 8, 30, 'Europe/Berlin'))).to.equal('2026-01-15T07:30:00.000Z');
      expect(iso(zonedInstant({ year: 2026, month: 7, day: 15 }, 8, 30, 'Europe/Berlin'))).to.equal('2026-07-15T06:30:00.000Z');
    });

    it('on the day summer time begins, a skipped 02:30 happens as 03:30 summer time, after the jump', () => {
      // 2026-03-29: clocks go from 02:00 to 03:00 at 01:00 UTC.
      expect(iso(zonedInstant({ year: 2026, month: 3, day: 29 }, 2, 30, 'Europe/Berlin'))).to.equal('2026-03-29T01:30:00.000Z');
      expect(iso(zonedInstant({ year: 2026, month: 3, day: 29 }, 8, 30, 'Europe/Berlin'))).to.equal('2026-03-29T06:30:00.000Z');
    });

    it('on the day summer time ends, a 02:30 the clock shows twice is the first', () => {
      // 2026-10-25: clocks go from 03:00 back to 02:00 at 01:00 UTC.
      expect(iso(zonedInstant({ year: 2026, month: 10, day: 25 }, 2, 30, 'Europe/Berlin'))).to.equal('2026-10-25T00:30:00.000Z');
      expect(iso(zonedInstant({ year: 2026, month: 10, day: 25 }, 19, 0, 'Europe/Berlin'))).to.equal('2026-10-25T18:00:00.000Z');
    });
  });

  describe('occurrences', () => {
    it('weekdays 08:30: Friday\'s is the last one on Sunday, Monday\'s the next', () => {
      const sunday = at('2026-11-29T10:00:00Z');
      expect(iso(lastOccurrence(berlin(WEEKDAYS, '08:30'), sunday))).to.equal('2026-11-27T07:30:00.000Z');
      expect(iso(nextOccurrence(berlin(WEEKDAYS, '08:30'), sunday))).to.equal('2026-11-30T07:30:00.000Z');
    });

    it('at the very minute, the occurrence is due (last) and the next one is a day later', () => {
      const monday = at('2026-11-30T07:30:00Z');
      expect(iso(lastOccurrence(berlin(WEEKDAYS, '08:30'), monday))).to.equal('2026-11-30T07:30:00.000Z');
      expect(iso(nextOccurrence(berlin(WEEKDAYS, '08:30'), monday))).to.equal('2026-12-01T07:30:00.000Z');
    });

    it('keeps the local time across the spring change: the Monday after is one hour earlier in UTC', () => {
      // Friday 2026-03-27 is winter time, Monday 2026-03-30 summer time.
      expect(iso(nextOccurrence(berlin(WEEKDAYS, '08:30'), at('2026-03-27T12:00:00Z')))).to.equal('2026-03-30T06:30:00.000Z');
      expect(iso(lastOccurrence(berlin(WEEKDAYS, '08:30'), at('2026-03-30T06:00:00Z')))).to.equal('2026-03-27T07:30:00.000Z');
    });

    it('a daily 02:30 happens once on each change day: after the jump in spring, the first in autumn', () => {
      expect(iso(nextOccurrence(berlin(undefined, '02:30'), at('2026-03-28T12:00:00Z')))).to.equal('2026-03-29T01:30:00.000Z');
      const autumn = nextOccurrence(berlin(undefined, '02:30'), at('2026-10-24T12:00:00Z'))!;
      expect(iso(autumn)).to.equal('2026-10-25T00:30:00.000Z');
      // The second 02:30 of that night is not another occurrence.
      expect(iso(nextOccurrence(berlin(undefined, '02:30'), autumn))).to.equal('2026-10-26T01:30:00.000Z');
    });

    it('a rule on Saturdays only: on Sunday the last is Saturday\'s', () => {
      expect(lastOccurrence(berlin(['Sat'], '08:00'), at('2026-11-29T10:00:00Z'))).to.equal(at('2026-11-28T07:00:00Z'));
    });
  });

  describe('the text grammar', () => {
    it('reads weekdays, weekends, daily, day lists and a bare time', () => {
      expect(parseDailyTime('weekdays 08:30')).to.deep.equal({ days: WEEKDAYS, time: '08:30' });
      expect(parseDailyTime('daily 19:00')).to.deep.equal({ time: '19:00' });
      expect(parseDailyTime('19:00')).to.deep.equal({ time: '19:00' });
      expect(parseDailyTime('fri,mon 07:45')).to.deep.equal({ days: ['Mon', 'Fri'], time: '07:45' });
      expect(parseDailyTime('weekends 10:00')).to.deep.equal({ days: ['Sat', 'Sun'], time: '10:00' });
    });

    it('says what is wrong with a time or a day', () => {
      expect(parseDailyTime('weekdays 8.30')).to.match(/does not end with a time of day as HH:MM/);
      expect(parseDailyTime('someday 08:30')).to.match(/"someday" is not a day/);
      expect(parseDailyTime('Monxyz 08:30')).to.match(/"Monxyz" is not a day/);
      expect(parseDailyTime('Monday,friday 08:30')).to.deep.equal({ days: ['Mon', 'Fri'], time: '08:30' });
      expect(parseDailyTime('24:00')).to.match(/HH:MM/);
    });

    it('writes back what it reads', () => {
      expect(dailyTimeText({ days: WEEKDAYS, time: '08:30' })).to.equal('weekdays 08:30');
      expect(dailyTimeText({ days: ['Mon', 'Wed'], time: '08:30' })).to.equal('Mon,Wed 08:30');
      expect(dailyTimeText({ time: '19:00' })).to.equal('daily 19:00');
    });
  });

  describe('the checks', () => {
    it('knows IANA zones and refuses abbreviations and offsets', () => {
      expect(isTimeZone('Europe/Berlin')).to.equal(true);
      expect(isTimeZone('UTC')).to.equal(true);
      expect(isTimeZone('Mars/Olympus')).to.equal(false);
      expect(isTimeZone('+02:00')).to.equal(false);
    });

    it('refuses an unknown time zone, a missing one, and a bad time, naming the field', () => {
      expect(scheduleViolations({ autostart: { time: '08:30' }, timeZone: 'Europe/Berlln' }, undefined)).to.deep.include({
        field: 'spec.schedule.timeZone',
        message: '"Europe/Berlln" is not an IANA time zone (such as Europe/Berlin, America/New_York or UTC)',
        advice: '"Europe/Berlln" is not a time zone Den knows: use a name such as Europe/Berlin, America/New_York or UTC.',
      });
      expect(scheduleViolations({ autostop: { time: '19:00' } }, undefined).map((v) => v.field)).to.deep.equal(['spec.schedule.timeZone']);
      expect(scheduleViolations({ autostop: { time: '7pm' }, timeZone: 'UTC' }, undefined).map((v) => v.field)).to.deep.equal(['spec.schedule.autostop.time']);
    });

    it('refuses a maxRunning above the UserSpace limit, in words naming the limit', () => {
      const [violation] = scheduleViolations({ maxRunning: '12h' }, { maxRunningLimit: '8h' });
      expect(violation?.message).to.equal('12h is above the limit of 8h set by an administrator for this space (UserSpace spec.schedules.maxRunningLimit)');
      expect(scheduleViolations({ maxRunning: '8h' }, { maxRunningLimit: '8h' })).to.deep.equal([]);
    });

    it('refuses a policy whose default exceeds its limit or whose autostop has no zone', () => {
      expect(policyViolations({ maxRunningLimit: '8h', defaultMaxRunning: '9h' }).map((v) => v.field)).to.deep.equal(['spec.schedules.defaultMaxRunning']);
      expect(policyViolations({ defaultAutostop: { time: '19:00' } }).map((v) => v.field)).to.deep.equal(['spec.schedules.defaultAutostop.timeZone']);
    });
  });

  describe('the schedule that applies', () => {
    it('fills in the UserSpace default autostop and maxRunning, and caps at the limit', () => {
      const policy = { maxRunningLimit: '10h', defaultMaxRunning: '8h', defaultAutostop: { time: '20:00', timeZone: 'UTC' } };
      const effective = effectiveSchedule({ autostart: { time: '08:00' }, timeZone: 'Europe/Berlin' }, policy);
      expect(effective.autostop).to.deep.equal({ rule: policy.defaultAutostop, timeZone: 'UTC', fromPolicy: true });
      expect(effective.maxRunning).to.deep.equal({ ms: 8 * 3_600_000, text: '8h', source: 'defaultMaxRunning' });
      expect(effectiveSchedule({}, { maxRunningLimit: '10h' }).maxRunning).to.deep.equal({ ms: 10 * 3_600_000, text: '10h', source: 'maxRunningLimit' });
      expect(effectiveSchedule({ maxRunning: '2h' }, policy).maxRunning).to.deep.equal({ ms: 2 * 3_600_000, text: '2h', source: 'own' });
    });
  });
});
