// Den's Events (kube/den-events.ts) against the fake API server: the object written, and
// bursts aggregated as Kubernetes' event recorder does.
import { expect } from 'chai';
import type { KubeObject } from '../../kube/client.js';
import { DEN_EVENT_REASONS, DenEventRecorder } from '../../kube/den-events.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from '../support/fake-apiserver.js';

interface CoreEvent extends KubeObject {
  reason: string;
  message: string;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
}

describe('Den Events', () => {
  let api: FakeApiServer;
  let clock: number;
  const errors: string[] = [];
  const ref = { namespace: 'svc-alice', name: 'dev', uid: 'uid-of-dev' };
  const opened = { reason: DEN_EVENT_REASONS.sshSessionOpened, message: 'SSH shell session opened by alice from 192.0.2.7:5000 with key SHA256:abc', annotations: { 'den.dev/kind': 'shell' } };

  const recorder = () =>
    new DenEventRecorder(api.client(), { component: 'den.dev/gateway', instance: 'gateway-1', now: () => clock, onError: (err) => errors.push(err.message) });
  const stored = () => api.objects<CoreEvent>(RESOURCES.event, 'svc-alice');

  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-alice' } });
    clock = Date.parse('2026-01-02T03:04:05Z');
    errors.length = 0;
  });
  afterEach(() => api.close());

  it('writes a Normal core/v1 Event on the Workspace, from den, with the reporting process and the annotations', async () => {
    await recorder().record(ref, opened);
    const [event] = stored();
    expect(event).to.deep.include({
      reason: 'SSHSessionOpened',
      message: opened.message,
      type: 'Normal',
      count: 1,
      source: { component: 'den' },
      reportingComponent: 'den.dev/gateway',
      reportingInstance: 'gateway-1',
      firstTimestamp: '2026-01-02T03:04:05Z',
      lastTimestamp: '2026-01-02T03:04:05Z',
      involvedObject: { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', name: 'dev', namespace: 'svc-alice', uid: 'uid-of-dev' },
    });
    expect(event!.metadata!.annotations).to.deep.equal({ 'den.dev/kind': 'shell' });
    expect(event!.metadata!.name).to.match(/^dev\.[0-9a-f]+$/);
  });

  it('counts a burst of the same Event, sent at once, on one object: one create, then patches in order', async () => {
    const events = recorder();
    await Promise.all(Array.from({ length: 5 }, () => events.record(ref, opened)));
    clock += 60_000;
    await events.record(ref, opened);
    expect(stored().map((e) => [e.count, e.firstTimestamp, e.lastTimestamp])).to.deep.equal([[6, '2026-01-02T03:04:05Z', '2026-01-02T03:05:05Z']]);
    expect(api.requests.filter((r) => r.path.includes('/events')).map((r) => r.method)).to.deep.equal(['POST', 'PATCH', 'PATCH', 'PATCH', 'PATCH', 'PATCH']);
  });

  it('starts a new Event for another message, another object, or once ten minutes passed', async () => {
    const events = recorder();
    await events.record(ref, opened);
    await events.record(ref, { ...opened, message: 'SSH shell session opened by alice from 192.0.2.7:5001 with key SHA256:abc' });
    await events.record({ ...ref, name: 'other' }, opened);
    clock += 10 * 60_000;
    await events.record(ref, opened);
    expect(stored().map((e) => e.count)).to.deep.equal([1, 1, 1, 1]);
  });

  it('creates the Event again when the one it counted on is gone, and reports a refusal without throwing', async () => {
    const events = recorder();
    await events.record(ref, opened);
    api.remove(RESOURCES.event, stored()[0]!.metadata!.name!, 'svc-alice');
    await events.record(ref, opened);
    expect(stored().map((e) => e.count)).to.deep.equal([1]);

    api.addUser('nobody', { username: 'nobody' });
    const refused = new DenEventRecorder(api.client('nobody'), { component: 'den.dev/gateway', instance: 'g', onError: (err) => errors.push(err.message) });
    await refused.record(ref, opened);
    expect(errors).to.deep.equal(['events is forbidden: User "nobody" cannot create resource "events" in API group "" in the namespace "svc-alice"']);
  });
});
