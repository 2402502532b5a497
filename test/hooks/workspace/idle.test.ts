import { expect } from 'chai';
import { durationMs, idleVerdict, MIN_IDLE_TIMEOUT_MS } from '../../../hooks/workspace/idle.js';
import { humanDuration } from '../../../kube/den-events.js';
import { syncWorkspace } from '../../../hooks/workspace/sync.js';
import type { Workspace } from '../../../hooks/workspace/types.js';
import { input, NOW, observedService, observedStatefulSet, pod, POD_STATUS, workspace } from './inputs.js';

const HOUR = 3_600_000;
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A running, ready Workspace that became ready `readyAgo` and was last active `activeAgo`. */
function ready(opts: { readyAgo: number; activeAgo?: number; spec?: Record<string, unknown>; annotations?: Record<string, string> }): Workspace {
  // Created long before: only readiness and activity decide.
  return workspace(opts.spec ?? {}, {
    metadata: { ...workspace().metadata, creationTimestamp: ago(100 * HOUR), ...(opts.annotations ? { annotations: opts.annotations } : {}) },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', reason: 'PodReady', message: '', lastTransitionTime: ago(opts.readyAgo) }],
      ...(opts.activeAgo === undefined ? {} : { lastActivityTime: ago(opts.activeAgo) }),
    },
  }) as Workspace;
}

describe('idle auto-stop', () => {
  describe('idleVerdict', () => {
    const table: [string, Workspace, boolean, ReturnType<typeof idleVerdict>][] = [
      ['off: never stops', ready({ readyAgo: 48 * HOUR }), false, { action: 'none' }],
      ['stopped already: nothing to do', ready({ readyAgo: 48 * HOUR, spec: { running: false } }), true, { action: 'none' }],
      ['not ready (starting): not idle', workspace({}, { status: { phase: 'Starting', conditions: [{ type: 'Ready', status: 'False', reason: 'PodNotCreated', message: '', lastTransitionTime: ago(48 * HOUR) }] } }) as Workspace, true, { action: 'none' }],
      ['idleTimeout 0: never', ready({ readyAgo: 48 * HOUR, spec: { idleTimeout: '0s' } }), true, { action: 'none' }],
      ['ready 5h ago, no session since, 4h timeout: stop', ready({ readyAgo: 5 * HOUR }), true, { action: 'stop', idleForMs: 5 * HOUR, timeoutMs: 4 * HOUR }],
      ['session ended 1h ago: wait 3h and a second', ready({ readyAgo: 9 * HOUR, activeAgo: HOUR }), true, { action: 'wait', afterMs: 3 * HOUR + 1000 }],
      ['started 30m ago after an old session: wait from the start', ready({ readyAgo: HOUR / 2, activeAgo: 30 * HOUR }), true, { action: 'wait', afterMs: 3.5 * HOUR + 1000 }],
      ['1h30m timeout, 2h idle: stop', ready({ readyAgo: 2 * HOUR, spec: { idleTimeout: '1h30m' } }), true, { action: 'stop', idleForMs: 2 * HOUR, timeoutMs: 1.5 * HOUR }],
      ['a 1000h timeout looks again within 6h, never past what a timer holds', ready({ readyAgo: HOUR, spec: { idleTimeout: '1000h' } }), true, { action: 'wait', afterMs: 6 * HOUR }],
      ['1m timeout counts as the activity refresh floor', ready({ readyAgo: 5 * 60_000, spec: { idleTimeout: '1m' } }), true, { action: 'wait', afterMs: MIN_IDLE_TIMEOUT_MS - 5 * 60_000 + 1000 }],
    ];
    for (const [name, ws, enabled, verdict] of table) {
      it(name, () => expect(idleVerdict(ws, NOW, enabled)).to.deep.equal(verdict));
    }

    it('a session kept open refreshes lastActivityTime, so the workspace never reaches its timeout', () => {
      // The gateway refreshes every 5 minutes; the freshest refresh is at most that old.
      for (const activeAgo of [0, 60_000, 5 * 60_000]) {
        expect(idleVerdict(ready({ readyAgo: 48 * HOUR, activeAgo, spec: { idleTimeout: '10m' } }), NOW, true).action).to.equal('wait');
      }
    });
  });

  it('reads Go durations as the CRD admits them', () => {
    expect(durationMs('4h')).to.equal(4 * HOUR);
    expect(durationMs('1h30m')).to.equal(1.5 * HOUR);
    expect(durationMs('0.5h')).to.equal(HOUR / 2);
    expect(durationMs('90s')).to.equal(90_000);
    expect(durationMs('4 hours')).to.equal(undefined);
    expect(humanDuration(5 * HOUR + 12 * 60_000)).to.equal('5h12m');
    expect(humanDuration(45 * 60_000)).to.equal('45m');
  });

  describe('the Workspace hook', () => {
    const running = { service: observedService(), statefulSet: observedStatefulSet(1, 1), pods: [pod(POD_STATUS.ready())] };

    it('stops an idle workspace: spec.running false, den.dev/stopped-by idle, and a Stopped event of kind lifecycle saying idle auto-stop did it', () => {
      const out = syncWorkspace(input({ ...running, parent: ready({ readyAgo: 5 * HOUR }), idleStop: true }));
      expect(out.parentChange).to.deep.equal({
        annotations: { 'den.dev/stopped-by': 'idle' },
        spec: { running: false },
        events: [{
          type: 'Normal',
          reason: 'Stopped',
          message: 'Stopped by idle auto-stop after 5h with no SSH session or browser terminal open (spec.idleTimeout 4h). The home volume is kept; start the workspace to use it again.',
          annotations: { 'den.dev/kind': 'lifecycle' },
        }],
      });
    });

    it('with idle stop off, changes nothing and sets no timer', () => {
      const out = syncWorkspace(input({ ...running, parent: ready({ readyAgo: 5 * HOUR }) }));
      expect(out).to.not.have.property('parentChange');
      expect(out).to.not.have.property('resyncAfterMs');
    });

    it('asks to look again when the timeout will have passed', () => {
      const out = syncWorkspace(input({ ...running, parent: ready({ readyAgo: HOUR }), idleStop: true }));
      expect(out).to.not.have.property('parentChange');
      expect(out.resyncAfterMs).to.equal(3 * HOUR + 1000);
    });

    it('says on the Ready condition that idle auto-stop stopped it, and never deletes a child', () => {
      const parent = workspace({ running: false }, { metadata: { ...workspace().metadata, annotations: { 'den.dev/stopped-by': 'idle' } } });
      const out = syncWorkspace(input({ service: observedService(), statefulSet: observedStatefulSet(0, 0), parent, idleStop: true }));
      const readyCondition = (out.status.conditions as { type: string; reason: string; message: string }[]).find((c) => c.type === 'Ready');
      expect(readyCondition?.reason).to.equal('IdleStopped');
      expect(readyCondition?.message).to.include('no SSH session or browser terminal for longer than spec.idleTimeout (4h)');
      expect(out.status.phase).to.equal('Suspended');
      expect(out.children.map((c) => c.kind)).to.deep.equal(['Service', 'StatefulSet']);
      expect(out).to.not.have.property('parentChange');
    });

    it('drops den.dev/stopped-by once the person starts the workspace again', () => {
      const parent = workspace({ running: true }, { metadata: { ...workspace().metadata, annotations: { 'den.dev/stopped-by': 'idle' } } });
      expect(syncWorkspace(input({ ...running, parent, idleStop: true })).parentChange).to.deep.equal({ annotations: { 'den.dev/stopped-by': null } });
    });
  });
});
