import { expect } from 'chai';
import { denCrds } from '../../infra/crds/index.js';
import { ActivityRecorder } from '../../shell/activity.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { sleep } from '../../process/timers.js';

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

  it('writes on open and close, and refreshes while any session to the workspace stays open', async () => {
    let clock = Date.parse('2026-11-22T10:00:00Z');
    const errors: string[] = [];
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
    await sleep(150);
    await recorder.settled();
    const whileOpen = statusPatches();
    // Two opens, then one refresh per period for the workspace (not one per session).
    expect(whileOpen).to.be.within(4, 6);
    closeFirst();
    closeFirst();
    await sleep(100);
    await recorder.settled();
    expect(statusPatches(), 'still refreshing for the second session').to.be.at.least(whileOpen + 2);
    closeSecond();
    await recorder.settled();
    const afterClose = statusPatches();
    await sleep(150);
    expect(statusPatches(), 'no refresh once every session closed').to.equal(afterClose);
    expect(recorder.openSessions).to.equal(0);
    const ws = api.object<{ status?: { lastActivityTime?: string } }>(RESOURCES.workspace, 'dev', 'svc-alice');
    expect(ws?.status?.lastActivityTime).to.match(/^2026-11-22T10:\d\d:\d\dZ$/);
    expect(errors).to.deep.equal([]);
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
