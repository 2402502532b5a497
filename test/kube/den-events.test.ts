// Den's Event recorder against the fake API server with RBAC: each Event is written with the
// identity of the client it is given, carries Den's source, reporter and annotations, and a
// burst of the same act becomes one Event with a count, as Kubernetes' EventRecorder does.
import { expect } from 'chai';
import type { KubeObject } from '../../kube/client.js';
import { AGGREGATION_WINDOW_MS, DenEventRecorder, denEventObject, denEventSink, humanDuration, DEN_REPORTING_COMPONENTS } from '../../kube/den-events.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from '../support/fake-apiserver.js';

interface EventObject extends KubeObject {
  count: number;
  reason: string;
  message: string;
  firstTimestamp: string;
  lastTimestamp: string;
  involvedObject: Record<string, string>;
  source: { component: string };
  reportingComponent: string;
}

const WORKSPACE = { name: 'dev', namespace: 'svc-alice', uid: '0b6c1f2e-1111-4a4a-9c9c-000000000001' };
const OPENED = { reason: 'TerminalOpened', message: 'Browser terminal opened by alice in pod dev-0.', annotations: { 'den.dev/person': 'alice', 'den.dev/kind': 'terminal' } };

describe('Den Events (kube/den-events.ts)', () => {
  let api: FakeApiServer;
  let clock: Date;
  let recorder: DenEventRecorder;

  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-alice' } }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-bob' } });
    api.seed({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'events', namespace: 'svc-alice' },
      rules: [{ apiGroups: [''], resources: ['events'], verbs: ['get', 'list', 'create', 'patch'] }],
    } as KubeObject);
    api.seed({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'events', namespace: 'svc-alice' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'events' },
      subjects: [{ kind: 'ServiceAccount', name: 'session', namespace: 'svc-alice' }],
    } as KubeObject);
    api.addUser('alice-session', { username: 'system:serviceaccount:svc-alice:session' });
    clock = new Date('2026-11-26T10:00:00Z');
    recorder = new DenEventRecorder({ reportingComponent: DEN_REPORTING_COMPONENTS.server, now: () => clock });
  });
  afterEach(() => api.close());

  const events = () => api.objects<EventObject>(RESOURCES.event, 'svc-alice');

  it('writes a core/v1 Event on the Workspace with the identity of the client it is given', async () => {
    await recorder.record(api.client('alice-session'), WORKSPACE, OPENED);
    const [event, ...more] = events();
    expect(more).to.deep.equal([]);
    expect(event!.involvedObject).to.deep.include({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', name: 'dev', namespace: 'svc-alice', uid: WORKSPACE.uid });
    expect(event).to.deep.include({ type: 'Normal', reason: 'TerminalOpened', message: OPENED.message, count: 1, reportingComponent: 'den.dev/server', firstTimestamp: '2026-11-26T10:00:00Z', lastTimestamp: '2026-11-26T10:00:00Z' });
    expect(event!.source).to.deep.equal({ component: 'den' });
    expect(event!.metadata?.annotations).to.deep.equal(OPENED.annotations);
    expect(event!.metadata?.name).to.match(/^dev\.[0-9a-f]+$/);
    const calls = api.requests.filter((r) => r.path.startsWith('/api/v1/namespaces/svc-alice/events'));
    expect(calls.map((r) => [r.method, r.user])).to.deep.equal([['GET', 'system:serviceaccount:svc-alice:session'], ['POST', 'system:serviceaccount:svc-alice:session']]);
    expect(new URLSearchParams(calls[0]!.query).get('fieldSelector')).to.equal(`source=den,reason=TerminalOpened,involvedObject.kind=Workspace,involvedObject.name=dev,involvedObject.uid=${WORKSPACE.uid}`);
  });

  it('turns a burst of the same act, even sent all at once, into one Event with a count and the last time', async () => {
    const alice = api.client('alice-session');
    await Promise.all([1, 2, 3, 4, 5].map(() => recorder.record(alice, WORKSPACE, OPENED)));
    clock = new Date('2026-11-26T10:04:00Z');
    await recorder.record(alice, WORKSPACE, OPENED);
    const [event, ...more] = events();
    expect(more).to.deep.equal([]);
    expect(event).to.deep.include({ count: 6, firstTimestamp: '2026-11-26T10:00:00Z', lastTimestamp: '2026-11-26T10:04:00Z' });
    const writes = api.requests.filter((r) => r.path.startsWith('/api/v1/namespaces/svc-alice/events') && r.method !== 'GET').map((r) => r.method);
    expect(writes).to.deep.equal(['POST', 'PATCH', 'PATCH', 'PATCH', 'PATCH', 'PATCH']);
  });

  it('counts on the Event another replica wrote, as two replicas of one process behind a round-robin proxy do, even at the same moment', async () => {
    const other = new DenEventRecorder({ reportingComponent: DEN_REPORTING_COMPONENTS.server, now: () => clock });
    const alice = api.client('alice-session');
    for (let i = 0; i < 4; i++) {
      clock = new Date(clock.getTime() + 1000);
      await (i % 2 === 0 ? recorder : other).record(alice, WORKSPACE, OPENED);
    }
    expect(events().map((e) => [e.count, e.firstTimestamp, e.lastTimestamp])).to.deep.equal([[4, '2026-11-26T10:00:01Z', '2026-11-26T10:00:04Z']]);
    await Promise.all([recorder.record(alice, WORKSPACE, OPENED), other.record(alice, WORKSPACE, OPENED)]);
    expect(events().map((e) => e.count)).to.deep.equal([6]);
  });

  it('still records an act, uncounted, for an identity that may write Events but not read them', async () => {
    const role = api.object<KubeObject & { rules: unknown[] }>(RESOURCES.role, 'events', 'svc-alice')!;
    api.seed({ ...role, rules: [{ apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] }] });
    await recorder.record(api.client('alice-session'), WORKSPACE, OPENED);
    await recorder.record(api.client('alice-session'), WORKSPACE, OPENED);
    expect(events().map((e) => e.count)).to.deep.equal([1, 1]);
  });

  it('keeps different messages, reasons and workspaces apart', async () => {
    const alice = api.client('alice-session');
    await recorder.record(alice, WORKSPACE, OPENED);
    await recorder.record(alice, WORKSPACE, { ...OPENED, reason: 'TerminalClosed', message: 'Browser terminal of alice closed after 3m.' });
    await recorder.record(alice, { ...WORKSPACE, name: 'other', uid: 'u2' }, OPENED);
    await recorder.record(alice, WORKSPACE, { ...OPENED, message: 'Browser terminal opened by alice in pod dev-1.' });
    expect(events().map((e) => [e.involvedObject.name, e.reason, e.count]).sort()).to.deep.equal([
      ['dev', 'TerminalClosed', 1],
      ['dev', 'TerminalOpened', 1],
      ['dev', 'TerminalOpened', 1],
      ['other', 'TerminalOpened', 1],
    ]);
  });

  it('starts a new Event once the window has passed since the last repeat, or when the first was deleted', async () => {
    const alice = api.client('alice-session');
    await recorder.record(alice, WORKSPACE, OPENED);
    clock = new Date(clock.getTime() + AGGREGATION_WINDOW_MS);
    await recorder.record(alice, WORKSPACE, OPENED);
    expect(events().map((e) => e.count)).to.deep.equal([1, 1]);

    for (const e of events()) await api.client().delete(RESOURCES.event, e.metadata!.name!, 'svc-alice');
    clock = new Date(clock.getTime() + 1000);
    await recorder.record(alice, WORKSPACE, OPENED);
    expect(events().map((e) => [e.count, e.lastTimestamp])).to.deep.equal([[1, '2026-11-26T10:10:01Z']]);
  });

  it('fails with the cluster\'s refusal when the identity may not write Events there, writing nothing', async () => {
    const err = await recorder.record(api.client('alice-session'), { ...WORKSPACE, namespace: 'svc-bob' }, OPENED).then(() => undefined, (e: Error) => e);
    expect(err?.message).to.equal('events is forbidden: User "system:serviceaccount:svc-alice:session" cannot create resource "events" in API group "" in the namespace "svc-bob"');
    expect(api.objects(RESOURCES.event, 'svc-bob')).to.deep.equal([]);
  });

  it('writes through a sink with one fixed identity that never rejects: a refusal goes to its error handler', async () => {
    const failures: string[] = [];
    const sink = denEventSink(recorder, api.client('alice-session'), (err, about) => failures.push(`${about.namespace}/${about.workspace} ${about.reason}: ${err.message}`));
    await sink.record(WORKSPACE, OPENED);
    await sink.record({ ...WORKSPACE, namespace: 'svc-bob' }, OPENED);
    await sink.settled();
    expect(events().map((e) => e.reason)).to.deep.equal(['TerminalOpened']);
    expect(failures).to.deep.equal(['svc-bob/dev TerminalOpened: events is forbidden: User "system:serviceaccount:svc-alice:session" cannot create resource "events" in API group "" in the namespace "svc-bob"']);
  });

  it('cuts a message to the 1024 characters Kubernetes accepts, and says durations the way people do', () => {
    const event = denEventObject(WORKSPACE, { ...OPENED, message: 'x'.repeat(2000) }, DEN_REPORTING_COMPONENTS.manager, clock) as { message: string };
    expect(event.message).to.have.length(1024);
    expect(event.message.endsWith('…')).to.equal(true);
    expect([humanDuration(42_000), humanDuration(45 * 60_000), humanDuration(3 * 3_600_000), humanDuration(3 * 3_600_000 + 12 * 60_000)]).to.deep.equal(['42s', '45m', '3h', '3h12m']);
  });
});
