import { expect } from 'chai';
import { scheduleStep } from '../../../hooks/workspace/schedule.js';
import type { Workspace } from '../../../hooks/workspace/types.js';
import type { ParentChange } from '../../../hooks/loop/types.js';
import { workspace } from './inputs.js';

const WEEKDAYS_0830 = { timeZone: 'Europe/Berlin', autostart: { days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], time: '08:30' }, autostop: { time: '19:00' } };
// Monday 2026-11-30, 08:30 in Berlin is 07:30 UTC.
const MONDAY_0830 = '2026-11-30T07:30:00Z';
const at = (iso: string) => new Date(iso);
// The Sunday 19:00 autostop before it, handled.
const HANDLED_SUNDAY = { 'den.dev/schedule-autostop': '2026-11-29T18:00:00Z' };

function scheduled(opts: { running: boolean; annotations?: Record<string, string>; schedule?: Record<string, unknown>; readySince?: string }): Workspace {
  const base = workspace({ running: opts.running, schedule: opts.schedule ?? WEEKDAYS_0830 });
  return {
    ...base,
    metadata: { ...base.metadata, creationTimestamp: '2026-01-01T00:00:00Z', annotations: { ...(opts.annotations ?? HANDLED_SUNDAY) } },
    status: opts.readySince ? { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', reason: 'PodReady', message: '', lastTransitionTime: opts.readySince }] } : { phase: opts.running ? 'Starting' : 'Suspended' },
  } as Workspace;
}

/** The Workspace as the API server stores it after the loop's merge patch of `change`. */
function applied(ws: Workspace, change: ParentChange | undefined): Workspace {
  if (!change) return ws;
  const annotations = { ...(ws.metadata?.annotations ?? {}) };
  for (const [k, v] of Object.entries(change.annotations ?? {})) {
    if (v === null) delete annotations[k];
    else annotations[k] = v;
  }
  return { ...ws, metadata: { ...ws.metadata, annotations }, spec: { ...ws.spec, ...(change.spec ?? {}) } } as Workspace;
}

describe('schedule: the manager starts and stops by the clock', () => {
  it('starts a stopped workspace at its autostart, records the occurrence, and names the schedule in the Event', () => {
    const step = scheduleStep(scheduled({ running: false }), undefined, at('2026-11-30T07:30:01Z'));
    expect(step.parentChange?.spec).to.deep.equal({ running: true });
    expect(step.parentChange?.annotations).to.deep.include({ 'den.dev/schedule-autostart': MONDAY_0830 });
    expect(step.parentChange?.events?.map((e) => [e.reason, e.message])).to.deep.equal([['Started', 'Started by its schedule weekdays 08:30 Europe/Berlin.']]);
  });

  it('acts on an occurrence once: after its record is written, the next run waits for the next occurrence', () => {
    const before = scheduled({ running: false });
    const first = scheduleStep(before, undefined, at('2026-11-30T07:30:01Z'));
    const after = applied(before, first.parentChange);
    const second = scheduleStep(after, undefined, at('2026-11-30T07:30:02Z'));
    expect(second.parentChange).to.equal(undefined);
    // Next: the 19:00 autostop (18:00 UTC), ten hours ahead: look again within 6 hours, so a moved clock is noticed.
    expect(second.resyncAfterMs).to.equal(6 * 3_600_000);
    // Within 6 hours of it, a second past it.
    expect(scheduleStep(after, undefined, at('2026-11-30T15:00:00Z')).resyncAfterMs).to.equal(3 * 3_600_000 + 1000);
  });

  it('a start due while no manager led happens once when one leads, minutes late', () => {
    const before = scheduled({ running: false });
    const late = scheduleStep(before, undefined, at('2026-11-30T07:41:00Z'));
    expect(late.parentChange?.spec).to.deep.equal({ running: true });
    expect(scheduleStep(applied(before, late.parentChange), undefined, at('2026-11-30T07:41:30Z')).parentChange).to.equal(undefined);
  });

  it('does not start again a workspace its person stopped by hand after the autostart, until the next occurrence', () => {
    const stoppedByHand = scheduled({ running: false, annotations: { ...HANDLED_SUNDAY, 'den.dev/schedule-autostart': MONDAY_0830 } });
    expect(scheduleStep(stoppedByHand, undefined, at('2026-11-30T10:00:00Z')).parentChange).to.equal(undefined);
    // Tuesday 08:30 is a new occurrence.
    expect(scheduleStep(stoppedByHand, undefined, at('2026-12-01T07:30:05Z')).parentChange?.spec).to.deep.equal({ running: true });
  });

  it('records without acting an occurrence that found the workspace running, so a later stop by hand holds', () => {
    const step = scheduleStep(scheduled({ running: true }), undefined, at('2026-11-30T07:30:01Z'));
    expect(step.parentChange).to.deep.equal({ annotations: { 'den.dev/schedule-autostart': MONDAY_0830 } });
  });

  it('skips (and records) an occurrence more than an hour late: a schedule set in the afternoon does not start the workspace at once', () => {
    const step = scheduleStep(scheduled({ running: false }), undefined, at('2026-11-30T13:00:00Z'));
    expect(step.parentChange).to.deep.equal({ annotations: { 'den.dev/schedule-autostart': MONDAY_0830 } });
  });

  it('stops a running workspace at its autostop, in the person\'s time zone', () => {
    const ws = scheduled({ running: true, annotations: { 'den.dev/schedule-autostart': MONDAY_0830 } });
    const step = scheduleStep(ws, undefined, at('2026-11-30T18:00:03Z'));
    expect(step.parentChange?.spec).to.deep.equal({ running: false });
    expect(step.parentChange?.annotations).to.deep.include({ 'den.dev/schedule-autostop': '2026-11-30T18:00:00Z', 'den.dev/stopped-by': 'schedule' });
    expect(step.parentChange?.events?.[0]?.message).to.equal('Stopped by its schedule daily 19:00 Europe/Berlin. The home volume is kept; start the workspace to use it again.');
  });

  it('keeps the wall-clock time across the change to summer time', () => {
    // Monday 2026-03-30, the first weekday of summer time: 08:30 is 06:30 UTC.
    const ws = scheduled({ running: false, annotations: { 'den.dev/schedule-autostart': '2026-03-27T07:30:00Z', 'den.dev/schedule-autostop': '2026-03-29T17:00:00Z' } });
    expect(scheduleStep(ws, undefined, at('2026-03-30T06:29:59Z')).parentChange).to.equal(undefined);
    expect(scheduleStep(ws, undefined, at('2026-03-30T06:30:00Z')).parentChange?.annotations).to.deep.include({ 'den.dev/schedule-autostart': '2026-03-30T06:30:00Z' });
  });

  it('stops a workspace that ran longer than its maxRunning', () => {
    const ws = scheduled({ running: true, schedule: { maxRunning: '8h' }, readySince: '2026-11-30T01:00:00Z' });
    expect(scheduleStep(ws, undefined, at('2026-11-30T08:59:00Z')).resyncAfterMs).to.equal(61_000);
    const step = scheduleStep(ws, undefined, at('2026-11-30T09:00:30Z'));
    expect(step.parentChange?.spec).to.deep.equal({ running: false });
    expect(step.parentChange?.events?.[0]?.message).to.equal('Stopped after running 8h (spec.schedule.maxRunning 8h). The home volume is kept; start the workspace to use it again.');
  });

  it('applies the UserSpace\'s default autostop and its maxRunning limit to a workspace that sets none, saying so', () => {
    const ws = scheduled({ running: true, schedule: {}, readySince: '2026-11-30T08:00:00Z' });
    const policy = { maxRunningLimit: '12h', defaultAutostop: { time: '20:00', timeZone: 'UTC' } };
    const stop = scheduleStep({ ...ws, metadata: { ...ws.metadata, annotations: {} } } as Workspace, policy, at('2026-11-30T20:00:01Z'));
    expect(stop.parentChange?.events?.[0]?.message).to.equal("Stopped by its schedule daily 20:00 UTC (the space's default autostop, UserSpace spec.schedules.defaultAutostop). The home volume is kept; start the workspace to use it again.");
    const limit = scheduleStep(scheduled({ running: true, schedule: {}, readySince: '2026-11-30T08:00:00Z', annotations: { 'den.dev/schedule-autostop': '2026-11-30T20:00:00Z' } }), { maxRunningLimit: '12h' }, at('2026-11-30T20:00:01Z'));
    expect(limit.parentChange?.events?.[0]?.message).to.match(/^Stopped after running 12h \(the space's limit, UserSpace spec.schedules.maxRunningLimit 12h\)/);
  });

  it('does nothing for a workspace without a schedule', () => {
    const ws = workspace({ running: true }) as Workspace;
    expect(scheduleStep(ws, undefined, at('2026-11-30T07:30:00Z'))).to.deep.equal({});
  });
});
