// Den's Events for what people do through REST (started, stopped, deleted, by whom), written
// with the acting person's own minted token and aggregated; and the activity they make up:
// GET /admin/activity across the cluster (RBAC decides who may read it) and
// GET /workspaces/{name}/events, newest first, filtered by person, workspace and kind.
import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { ApiTestEnv } from './support.js';

interface EventObject extends KubeObject {
  reason: string;
  message: string;
  count: number;
  involvedObject: { kind: string; name: string; uid?: string };
  reportingComponent: string;
}

describe('REST activity: Den\'s Events about workspaces', () => {
  let env: ApiTestEnv;
  let alice: string;
  let bob: string;
  let carol: string;

  beforeEach(async () => {
    env = await new ApiTestEnv().start();
    alice = await env.person('alice');
    bob = await env.person('bob');
    carol = await env.person('carol', { role: 'admin' });
    env.workspace('dev', 'svc-alice');
    env.homeClaim('dev', 'svc-alice');
    env.workspace('web', 'svc-bob');
  });
  afterEach(() => env.close());

  const eventsIn = (namespace: string) => env.api.objects<EventObject>(RESOURCES.event, namespace);
  const eventWriters = (namespace: string) =>
    env.api.requests.filter((r) => r.path.startsWith(`/api/v1/namespaces/${namespace}/events`) && r.method !== 'GET').map((r) => `${r.method} ${r.user}`);

  describe('recording what people do', () => {
    it('records a stop and a start by the person, with their own token, on the Workspace', async () => {
      expect((await env.request('POST', '/workspaces/dev/stop', { token: alice })).status).to.equal(200);
      expect((await env.request('POST', '/workspaces/dev/start', { token: alice })).status).to.equal(200);
      const uid = env.api.object(RESOURCES.workspace, 'dev', 'svc-alice')?.metadata?.uid;
      const events = eventsIn('svc-alice');
      expect(events.map((e) => [e.reason, e.message, e.involvedObject.kind, e.involvedObject.name, e.involvedObject.uid, e.reportingComponent])).to.have.deep.members([
        ['Stopped', 'Stopped by alice; the home volume is kept.', 'Workspace', 'dev', uid, 'den.dev/server'],
        ['Started', 'Started by alice.', 'Workspace', 'dev', uid, 'den.dev/server'],
      ]);
      for (const e of events) expect(e.metadata?.annotations).to.deep.include({ 'den.dev/person': 'alice', 'den.dev/kind': 'lifecycle' });
      expect(eventWriters('svc-alice')).to.deep.equal(['POST system:serviceaccount:svc-alice:session', 'POST system:serviceaccount:svc-alice:session']);
    });

    it('counts repeated stops on one Event instead of writing one each', async () => {
      for (let i = 0; i < 3; i++) expect((await env.request('POST', '/workspaces/dev/stop', { token: alice })).status).to.equal(200);
      expect(eventsIn('svc-alice').map((e) => [e.reason, e.count])).to.deep.equal([['Stopped', 3]]);
      expect(eventWriters('svc-alice')).to.deep.equal([
        'POST system:serviceaccount:svc-alice:session',
        'PATCH system:serviceaccount:svc-alice:session',
        'PATCH system:serviceaccount:svc-alice:session',
      ]);
    });

    it('says when an administrator stopped someone\'s workspace, written with the administrator\'s token', async () => {
      expect((await env.request('POST', '/workspaces/dev/stop?namespace=svc-alice', { token: carol })).status).to.equal(200);
      const [event] = eventsIn('svc-alice');
      expect(event?.message).to.equal('Stopped by carol (administrator); the home volume is kept.');
      expect(event?.metadata?.annotations?.['den.dev/person']).to.equal('carol');
      expect(eventWriters('svc-alice')).to.deep.equal(['POST system:serviceaccount:svc-carol:session']);
    });

    it('says whether a deleted workspace took its home volume with it, on the Workspace that was (its uid from the API server\'s Status)', async () => {
      env.workspace('tmp', 'svc-alice');
      const uids = Object.fromEntries(['dev', 'tmp'].map((name) => [name, env.api.object(RESOURCES.workspace, name, 'svc-alice')?.metadata?.uid]));
      expect((await env.request('DELETE', '/workspaces/dev', { token: alice })).status).to.equal(204);
      expect((await env.request('DELETE', '/workspaces/tmp?delete_volume=false', { token: alice })).status).to.equal(204);
      expect(eventsIn('svc-alice').map((e) => [e.reason, e.involvedObject.name, e.involvedObject.uid, e.message]).sort()).to.deep.equal([
        ['Deleted', 'dev', uids.dev, 'Deleted by alice with its home volume home-dev-0.'],
        ['Deleted', 'tmp', uids.tmp, 'Deleted by alice; its home volume home-tmp-0 is kept.'],
      ]);
    });

    it('still stops the workspace when the Event cannot be written, and logs why', async () => {
      env.api.failNext('POST', /\/namespaces\/svc-alice\/events$/, 500, { message: 'etcdserver: request timed out' });
      const res = await env.request('POST', '/workspaces/dev/stop', { token: alice });
      expect(res.status).to.equal(200);
      expect(env.api.object<any>(RESOURCES.workspace, 'dev', 'svc-alice').spec.running).to.equal(false);
      expect(env.logs.find((l) => l.msg === 'cannot record event')?.fields).to.deep.include({ namespace: 'svc-alice', workspace: 'dev', reason: 'Stopped', error: 'etcdserver: request timed out' });
    });

    it('records nothing when the cluster refuses the act itself', async () => {
      expect((await env.request('POST', '/workspaces/dev/stop?namespace=svc-alice', { token: bob })).status).to.equal(403);
      expect(eventsIn('svc-alice')).to.deep.equal([]);
    });
  });

  describe('GET /admin/activity and GET /workspaces/{name}/events', () => {
    beforeEach(async () => {
      await env.request('POST', '/workspaces/dev/stop', { token: alice });
      await env.request('POST', '/workspaces/web/stop?namespace=svc-bob', { token: carol });
      await env.request('POST', '/workspaces/web/start', { token: bob });
      // What Kubernetes itself says about a workspace's pod is no activity of a person.
      env.api.seed({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'dev-0.1', namespace: 'svc-alice' }, involvedObject: { kind: 'Pod', name: 'dev-0' }, reason: 'Pulled', message: 'pulled', source: { component: 'kubelet' }, lastTimestamp: '2030-01-01T00:00:00Z' } as KubeObject);
      // An SSH session as the gateway records it: an older one, so the order shows.
      env.api.seed({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'dev.ssh', namespace: 'svc-alice', annotations: { 'den.dev/person': 'alice', 'den.dev/kind': 'shell', 'den.dev/fingerprint': 'SHA256:abc', 'den.dev/client-address': '192.0.2.7' } },
        involvedObject: { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', name: 'dev', namespace: 'svc-alice' },
        reason: 'SSHSessionOpened',
        message: 'SSH session opened by alice.',
        source: { component: 'den' },
        reportingComponent: 'den.dev/gateway',
        firstTimestamp: '2020-01-01T00:00:00Z',
        lastTimestamp: '2020-01-01T00:00:00Z',
        count: 1,
      } as KubeObject);
    });

    const summary = (items: any[]) => items.map((e) => `${e.namespace}/${e.workspace} ${e.reason} ${e.person} ${e.kind}`);

    it('gives an administrator every namespace\'s activity, newest first, read with their token', async () => {
      const res = await env.request('GET', '/admin/activity', { token: carol });
      expect(res.status).to.equal(200);
      expect(summary(res.body.items)).to.deep.equal([
        'svc-bob/web Started bob lifecycle',
        'svc-bob/web Stopped carol lifecycle',
        'svc-alice/dev Stopped alice lifecycle',
        'svc-alice/dev SSHSessionOpened alice shell',
      ]);
      expect(res.body.items[3]).to.deep.include({ fingerprint: 'SHA256:abc', client_address: '192.0.2.7', reporter: 'den.dev/gateway', count: 1 });
      const list = env.api.requests.find((r) => r.method === 'GET' && r.path === '/api/v1/events');
      expect(list?.user).to.equal('system:serviceaccount:svc-carol:session');
      expect(new URLSearchParams(list?.query).get('fieldSelector')).to.equal('source=den');
    });

    it('filters by person (what they did and what happened to their workspaces), workspace, kind and limit', async () => {
      const get = async (query: string) => summary((await env.request('GET', `/admin/activity?${query}`, { token: carol })).body.items);
      expect(await get('person=carol')).to.deep.equal(['svc-bob/web Stopped carol lifecycle']);
      expect(await get('person=bob')).to.deep.equal(['svc-bob/web Started bob lifecycle', 'svc-bob/web Stopped carol lifecycle']);
      expect(await get('workspace=dev')).to.deep.equal(['svc-alice/dev Stopped alice lifecycle', 'svc-alice/dev SSHSessionOpened alice shell']);
      expect(await get('kind=shell')).to.deep.equal(['svc-alice/dev SSHSessionOpened alice shell']);
      expect(await get('person=alice&kind=lifecycle')).to.deep.equal(['svc-alice/dev Stopped alice lifecycle']);
      expect(await get('limit=1')).to.deep.equal(['svc-bob/web Started bob lifecycle']);
    });

    it('refuses a person who may not list Events cluster-wide with the cluster\'s own words', async () => {
      const res = await env.request('GET', '/admin/activity', { token: alice });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.equal('events is forbidden: User "system:serviceaccount:svc-alice:session" cannot list resource "events" in API group "" at the cluster scope');
    });

    it('answers 400 naming the parameter for a bad filter', async () => {
      expect((await env.request('GET', '/admin/activity?kind=keystroke', { token: carol })).body).to.deep.equal({ error: 'kind must be one of shell, exec, sftp, forward, terminal, lifecycle, share' });
      expect((await env.request('GET', '/admin/activity?person=Not_A_Name', { token: carol })).body.error).to.match(/^person must be an RFC 1123 label/);
      expect((await env.request('GET', '/admin/activity?limit=0', { token: carol })).body).to.deep.equal({ error: 'limit must be an integer from 1 to 1000' });
      expect((await env.request('GET', '/admin/activity?limit=5000', { token: carol })).body).to.deep.equal({ error: 'limit must be an integer from 1 to 1000' });
      expect((await env.request('GET', '/admin/activity?namespace=svc-bob', { token: carol })).body).to.deep.equal({ error: 'unknown field namespace' });
    });

    it('gives a person their workspace\'s activity from their own namespace, with the same filters', async () => {
      const all = await env.request('GET', '/workspaces/dev/events', { token: alice });
      expect(all.status).to.equal(200);
      expect(summary(all.body.items)).to.deep.equal(['svc-alice/dev Stopped alice lifecycle', 'svc-alice/dev SSHSessionOpened alice shell']);
      expect(summary((await env.request('GET', '/workspaces/dev/events?kind=shell', { token: alice })).body.items)).to.deep.equal(['svc-alice/dev SSHSessionOpened alice shell']);
      expect((await env.request('GET', '/workspaces/dev/events?person=bob', { token: alice })).body).to.deep.equal({ items: [] });
      const list = env.api.requests.find((r) => r.method === 'GET' && r.path === '/api/v1/namespaces/svc-alice/events');
      expect(list?.user).to.equal('system:serviceaccount:svc-alice:session');
    });

    it('lets an administrator read another namespace\'s workspace activity and refuses another person', async () => {
      expect(summary((await env.request('GET', '/workspaces/web/events?namespace=svc-bob', { token: carol })).body.items)).to.deep.equal(['svc-bob/web Started bob lifecycle', 'svc-bob/web Stopped carol lifecycle']);
      const res = await env.request('GET', '/workspaces/dev/events?namespace=svc-alice', { token: bob });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.equal('events is forbidden: User "system:serviceaccount:svc-bob:session" cannot list resource "events" in API group "" in the namespace "svc-alice"');
    });
  });
});
