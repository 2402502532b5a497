import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import { KubeClient } from '../../kube/client.js';
import { staticConnection } from '../../kube/connection.js';
import { KubeApiError, KubeUnavailableError, isAlreadyExists, isNotFound } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { fixture } from '../support/fixtures.js';

describe('KubeClient', () => {
  let api: FakeApiServer;
  let admin: KubeClient;

  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    admin = api.client();
  });
  afterEach(() => api.close());

  const configMap = (name: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'svc-system' }, data });

  it('creates, reads, lists and deletes an object', async () => {
    await admin.create(RESOURCES.configMap, configMap('cm1', { a: '1' }), 'svc-system');
    const got = await admin.get<any>(RESOURCES.configMap, 'cm1', 'svc-system');
    expect(got.data).to.deep.equal({ a: '1' });
    const list = await admin.list(RESOURCES.configMap, { namespace: 'svc-system' });
    expect(list.items.map((i) => i.metadata?.name)).to.deep.equal(['cm1']);
    await admin.delete(RESOURCES.configMap, 'cm1', 'svc-system');
    const err = await admin.get(RESOURCES.configMap, 'cm1', 'svc-system').catch((e) => e);
    expect(isNotFound(err)).to.equal(true);
  });

  it('reads an object that may not exist as undefined when it does not, and still fails on any other refusal', async () => {
    await admin.create(RESOURCES.configMap, configMap('cm1', { a: '1' }), 'svc-system');
    expect((await admin.getIfExists<any>(RESOURCES.configMap, 'cm1', 'svc-system'))?.data).to.deep.equal({ a: '1' });
    expect(await admin.getIfExists(RESOURCES.configMap, 'absent', 'svc-system')).to.equal(undefined);
    api.addUser('alice-token', { username: 'alice@example.com' });
    const err = await api.client('alice-token').getIfExists(RESOURCES.configMap, 'cm1', 'svc-system').catch((e) => e);
    expect(err).to.be.instanceOf(KubeApiError);
    expect(err.status).to.equal(403);
  });

  it('keeps the API server Status of an AlreadyExists answer as recorded', async () => {
    await admin.create(RESOURCES.configMap, configMap('cm1'), 'svc-system');
    const err = await admin.create(RESOURCES.configMap, configMap('cm1'), 'svc-system').catch((e) => e);
    expect(err).to.be.instanceOf(KubeApiError);
    expect(isAlreadyExists(err)).to.equal(true);
    const recorded = fixture('alreadyexists-configmap.json').body;
    expect(err.body).to.deep.equal(recorded);
    expect(err.message).to.equal('configmaps "cm1" already exists');
  });

  it('reports an RBAC denial with the cluster message verbatim', async () => {
    api.addUser('alice-token', { username: 'alice@example.com' });
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-demo' } });
    const err = await api.client('alice-token').list(RESOURCES.pod, { namespace: 'svc-demo' }).catch((e) => e);
    expect(err.status).to.equal(403);
    expect(err.body).to.deep.equal(fixture('forbidden-list-pods.json').body);
  });

  it('answers 401 with the recorded Status for an unknown token', async () => {
    const err = await api.client('nope').list(RESOURCES.namespace).catch((e) => e);
    expect(err.status).to.equal(401);
    expect(err.body).to.deep.equal(fixture('unauthorized-bad-token.json').body);
  });

  it('server-side applies, removing fields the manager no longer sets', async () => {
    await admin.apply(RESOURCES.configMap, configMap('cm2', { a: '1', b: '2' }), 'den-manager');
    await admin.patch(RESOURCES.configMap, 'cm2', { data: { other: 'x' } }, { namespace: 'svc-system' });
    await admin.apply(RESOURCES.configMap, configMap('cm2', { a: '1' }), 'den-manager');
    const got = await admin.get<any>(RESOURCES.configMap, 'cm2', 'svc-system');
    expect(got.data).to.deep.equal({ a: '1', other: 'x' });
  });

  it('starts no more requests than its rate limit allows after the burst (client-go QPS and Burst)', async () => {
    const limited = new KubeClient(api.connection(), undefined, { rateLimit: { perSecond: 10, burst: 2 } });
    const before = api.requests.length;
    await Promise.all(['r1', 'r2', 'r3', 'r4'].map((name) => limited.create(RESOURCES.configMap, configMap(name), 'svc-system')));
    const arrivals = api.requests.slice(before).map((r) => r.at!);
    expect(arrivals).to.have.length(4);
    // Two at once (the burst), then one every 100 ms: the fourth is due 200 ms after the first (margin for the first's own way).
    expect(arrivals[3]! - arrivals[0]!).to.be.at.least(150);
    expect(api.objects(RESOURCES.configMap, 'svc-system').map((c) => c.metadata!.name)).to.include.members(['r1', 'r2', 'r3', 'r4']);
  });

  it('tries a request again after the Retry-After of a 429, as client-go does, and succeeds', async () => {
    const busy = new FakeApiServer({ latency: { name: 'busy', meanMs: { POST: 300 }, spread: 'fixed', maxInFlight: { readOnly: 10, mutating: 1 }, queueLength: 0 } });
    await busy.start();
    try {
      const client = busy.client();
      const [first, second] = await Promise.all([
        client.create(RESOURCES.configMap, configMap('first'), 'svc-system'),
        new Promise((r) => setTimeout(r, 50)).then(() => client.create(RESOURCES.configMap, configMap('second'), 'svc-system')),
      ]);
      expect([first, second].map((c) => c.metadata?.name)).to.deep.equal(['first', 'second']);
      expect(busy.requests.filter((r) => r.method === 'POST').length).to.equal(3);
      expect(busy.latency.figures().refused).to.equal(1);
    } finally {
      await busy.close();
    }
  });

  it('streams watch events and reports 410 Gone for a compacted resourceVersion', async () => {
    const list = await admin.list(RESOURCES.configMap, { namespace: 'svc-system' });
    const seen: string[] = [];
    const abort = new AbortController();
    const watching = admin.watch('/api/v1/namespaces/svc-system/configmaps', { resourceVersion: list.metadata.resourceVersion }, (e) => {
      seen.push(`${e.type} ${e.object.metadata?.name}`);
      if (seen.length === 2) abort.abort();
    }, abort.signal);
    await admin.create(RESOURCES.configMap, configMap('w1'), 'svc-system');
    await admin.delete(RESOURCES.configMap, 'w1', 'svc-system');
    await watching;
    expect(seen).to.deep.equal(['ADDED w1', 'DELETED w1']);

    api.compact();
    const err = await admin.watch('/api/v1/namespaces/svc-system/configmaps', { resourceVersion: list.metadata.resourceVersion }, () => undefined).catch((e) => e);
    expect(err.status).to.equal(410);
  });

  it('forwards a minted token as the only identity', async () => {
    api.seed({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'session', namespace: 'svc-system' } });
    const tr = await admin.request<any>({ method: 'POST', path: '/api/v1/namespaces/svc-system/serviceaccounts/session/token', body: { spec: { expirationSeconds: 600 } } });
    expect(tr.kind).to.equal('TokenRequest');
    const err = await admin.withToken(tr.status.token).list(RESOURCES.secret, { namespace: 'svc-system' }).catch((e) => e);
    expect(err.message).to.equal('secrets is forbidden: User "system:serviceaccount:svc-system:session" cannot list resource "secrets" in API group "" in the namespace "svc-system"');
  });

  describe('when the API server closes a kept-alive connection as a request goes out on it', () => {
    let server: http.Server;
    const seen: string[] = [];
    before(async () => {
      // Like an API server whose idle timeout ends the connection just as the client reuses it:
      // the second request on any connection finds it closed without an answer.
      server = http.createServer((req, res) => {
        const socket = req.socket as net.Socket & { served?: number };
        socket.served = (socket.served ?? 0) + 1;
        seen.push(`${req.method} ${socket.served}`);
        if (socket.served > 1) return socket.destroy();
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ kind: 'Namespace', metadata: { name: 'svc-alice' } }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    after(() => new Promise((resolve) => server.close(resolve)));
    beforeEach(() => {
      seen.length = 0;
      server.closeAllConnections();
    });
    const client = () => new KubeClient(staticConnection(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, 't'));

    it('sends a GET again on a new connection and answers it', async () => {
      const kube = client();
      await kube.get(RESOURCES.namespace, 'svc-alice');
      const again = await kube.get(RESOURCES.namespace, 'svc-alice');
      expect(again.metadata?.name).to.equal('svc-alice');
      expect(seen).to.deep.equal(['GET 1', 'GET 2', 'GET 1']);
    });

    it('sends a PUT, a DELETE, a server-side apply and a merge patch again: repeating them changes nothing', async () => {
      const kube = client();
      const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-alice' } };
      await kube.get(RESOURCES.namespace, 'svc-alice');
      await kube.replace(RESOURCES.namespace, ns);
      await kube.delete(RESOURCES.namespace, 'svc-alice');
      const applied = await kube.apply(RESOURCES.namespace, ns, 'den-manager');
      expect(applied.metadata?.name).to.equal('svc-alice');
      await kube.patch(RESOURCES.namespace, 'svc-alice', { metadata: { finalizers: ['den.dev/cleanup'] } }, { type: 'merge' });
      // Each found the connection the previous answer came on closed, and went again on a new one.
      expect(seen).to.deep.equal(['GET 1', 'PUT 2', 'PUT 1', 'DELETE 2', 'DELETE 1', 'PATCH 2', 'PATCH 1', 'PATCH 2', 'PATCH 1']);
    });

    it('does not send a JSON Patch twice: adding to a list twice is not the same as once', async () => {
      const kube = client();
      await kube.get(RESOURCES.namespace, 'svc-alice');
      const err = await kube.patch(RESOURCES.namespace, 'svc-alice', [{ op: 'add', path: '/metadata/finalizers/-', value: 'den.dev/cleanup' }], { type: 'json' }).catch((e) => e);
      expect(err).to.be.instanceOf(KubeUnavailableError);
      expect(seen).to.deep.equal(['GET 1', 'PATCH 2']);
    });

    it('does not send a POST twice: it may have been acted on, so the caller hears the API server was unreachable', async () => {
      const kube = client();
      await kube.get(RESOURCES.namespace, 'svc-alice');
      const err = await kube.create(RESOURCES.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-bob' } }).catch((e) => e);
      expect(err).to.be.instanceOf(KubeUnavailableError);
      expect(seen).to.deep.equal(['GET 1', 'POST 2']);
    });
  });

  it('says the API server is unreachable instead of failing with a socket error', async () => {
    const client = new KubeClient(staticConnection('http://127.0.0.1:1', 't'));
    const err = await client.list(RESOURCES.namespace).catch((e) => e);
    expect(err).to.be.instanceOf(KubeUnavailableError);
    expect(err.message).to.match(/API server unreachable/);
  });
});
