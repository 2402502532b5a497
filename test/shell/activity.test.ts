import { expect } from 'chai';
import { denCrds } from '../../contract/index.js';
import { ActivityRecorder } from '../../shell/activity.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { eventually } from '../hooks/support/eventually.js';

describe('activity recorder', () => {
  let api: FakeApiServer;
  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.installCrds(denCrds().map((crd) => ({ ...crd })));
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-alice' } });
    api.seed({ apiVersion: RESOURCES.workspace.apiVersion, kind: 'Workspace', metadata: { name: 'dev', namespace: 'svc-alice' }, spec: { imageRef: { name: 'ubuntu' }, storage: '1Gi' } });
  });
  afterEach(() => api.close());

  const statusPatches = () => api.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/workspaces/dev/status')).length;

  /** The recorder's refresh timers (those of `periodMs`), seen as setInterval and clearInterval are called. */
  function watchRefreshTimers(periodMs: number) {
    const started: NodeJS.Timeout[] = [];
    const stopped = new Set<unknown>();
    const realSet = globalThis.setInterval;
    const realClear = globalThis.clearInterval;
    globalThis.setInterval = Object.assign((callback: () => void, ms?: number) => {
      const timer = realSet(callback, ms);
      if (ms === periodMs) started.push(timer);
      return timer;
    }, realSet);
    globalThis.clearInterval = (timer) => {
      stopped.add(timer);
      realClear(timer);
    };
    return {
      started,
      running: () => started.filter((t) => !stopped.has(t)).length,
      restore() {
        globalThis.setInterval = realSet;
        globalThis.clearInterval = realClear;
      },
    };
  }

  it('writes on open and close, and refreshes while any session to the workspace stays open', async () => {
    let clock = Date.parse('2026-11-22T10:00:00Z');
    const errors: string[] = [];
    const timers = watchRefreshTimers(40);
    try {
      const recorder = new ActivityRecorder({
        client: api.client(),
        fieldManager: 'den-gateway',
        refreshMs: 40,
        now: () => new Date((clock += 1000)),
        onError: (err) => errors.push(err.message),
      });
      const closeFirst = recorder.open('svc-alice', 'dev');
      const closeSecond = recorder.open('svc-alice', 'dev');
      expect(recorder.openSessions).to.equal(2);
      expect(timers.started, 'one refresh timer for the workspace, not one per session').to.have.length(1);
      // Two opens, then refreshes.
      await eventually(() => statusPatches() >= 4, 'two refreshes while both sessions are open');
      closeFirst();
      closeFirst();
      expect(timers.running(), 'still refreshing for the second session').to.equal(1);
      const whileOpen = statusPatches();
      await eventually(() => statusPatches() >= whileOpen + 2, 'refreshes for the second session');
      closeSecond();
      expect(timers.running(), 'no refresh once every session closed').to.equal(0);
      await recorder.settled();
      expect(recorder.openSessions).to.equal(0);
      const ws = api.object<{ status?: { lastActivityTime?: string } }>(RESOURCES.workspace, 'dev', 'svc-alice');
      expect(ws?.status?.lastActivityTime).to.match(/^2026-11-22T10:\d\d:\d\dZ$/);
      expect(errors).to.deep.equal([]);
    } finally {
      timers.restore();
    }
  });

  it('reports a failed write with where it happened, and keeps going', async () => {
    const errors: { message: string; event: string }[] = [];
    const recorder = new ActivityRecorder({ client: api.client(), fieldManager: 'den-gateway', onError: (err, where) => errors.push({ message: err.message, event: where.event }) });
    const close = recorder.open('svc-alice', 'gone');
    close();
    await recorder.settled();
    expect(errors.map((e) => e.event)).to.deep.equal(['open', 'close']);
  });
});
