import { expect } from 'chai';
import { RESOURCES } from '../../kube/resources.js';
import { CLUSTER_PROFILE, FakeApiServer, INSTANT_PROFILE, type LatencyProfile } from './fake-apiserver.js';
import { LatencyModel, meanOf, seededRandom } from './fake-apiserver/latency.js';

const role = (name: string) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: 'default' }, rules: [] });

describe('the fake API server latency model', () => {
  describe('the cluster profile', () => {
    it('takes the measured mean of each verb and resource, the most specific key first', () => {
      expect(meanOf(CLUSTER_PROFILE, { verb: 'APPLY', resource: 'roles' })).to.equal(84);
      expect(meanOf(CLUSTER_PROFILE, { verb: 'APPLY', resource: 'rolebindings' })).to.equal(75);
      expect(meanOf(CLUSTER_PROFILE, { verb: 'APPLY', resource: 'resourcequotas' })).to.equal(27);
      expect(meanOf(CLUSTER_PROFILE, { verb: 'PUT', resource: 'userspaces/status' })).to.equal(20);
      expect(meanOf(CLUSTER_PROFILE, { verb: 'PUT', resource: 'workspaces/status' })).to.equal(18);
      expect(meanOf(CLUSTER_PROFILE, { verb: 'PUT', resource: 'imageregistries/status' })).to.equal(20);
      expect(meanOf(CLUSTER_PROFILE, { verb: 'GET', resource: 'pods' })).to.equal(7);
      expect(meanOf(CLUSTER_PROFILE, { verb: 'APPLY', resource: 'statefulsets' })).to.equal(30);
      expect(meanOf(INSTANT_PROFILE, { verb: 'APPLY', resource: 'roles' })).to.equal(0);
    });

    it('draws times whose mean is the measured one, the same times for the same seed', () => {
      const draws = (seed: number) => {
        const model = new LatencyModel(CLUSTER_PROFILE, seededRandom(seed));
        return Array.from({ length: 20_000 }, () => model.draw({ verb: 'APPLY', resource: 'roles' }));
      };
      const first = draws(7);
      const mean = first.reduce((a, b) => a + b, 0) / first.length;
      expect(mean).to.be.within(84 * 0.95, 84 * 1.05);
      expect(Math.max(...first)).to.be.above(84 * 3); // a wave of parallel applies waits for its slowest
      expect(draws(7)).to.deep.equal(first);
      expect(draws(8)).to.not.deep.equal(first);
    });
  });

  describe('served over HTTP', () => {
    let api: FakeApiServer;
    const profile = (over: Partial<LatencyProfile>): LatencyProfile => ({ name: 'test', meanMs: { APPLY: 150, GET: 0 }, spread: 'fixed', maxInFlight: { readOnly: 1, mutating: 2 }, queueLength: 1, ...over });
    afterEach(() => api.close());

    it('answers a modelled request no sooner than its time', async () => {
      api = new FakeApiServer({ latency: profile({ maxInFlight: { readOnly: 10, mutating: 10 } }) });
      await api.start();
      const started = performance.now();
      await api.client().apply(RESOURCES.role, role('slow'), 'test');
      expect(performance.now() - started).to.be.at.least(145);
      expect(api.object(RESOURCES.role, 'slow', 'default')).to.not.equal(undefined);
    });

    it('queues writes beyond its seats and answers 429 with Retry-After beyond the queue, storing nothing of it', async () => {
      api = new FakeApiServer({ latency: profile({}) });
      await api.start();
      api.latency.resetFigures();
      const outcomes = await Promise.all(['a', 'b', 'c', 'd'].map((name) =>
        api.client().send({ method: 'PATCH', path: `/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/${name}`, query: { fieldManager: 'test', force: true }, body: role(name), contentType: 'application/apply-patch+yaml' })
          .then(async (res) => ({ name, status: res.statusCode, retryAfter: res.headers['retry-after'], body: JSON.parse(await new Response(res as unknown as ReadableStream).text()) as { reason?: string; message?: string; details?: { retryAfterSeconds?: number } } })),
      ));
      const refused = outcomes.filter((o) => o.status === 429);
      expect(refused).to.have.length(1);
      expect(refused[0]!.retryAfter).to.equal('1');
      expect(refused[0]!.body).to.include({ reason: 'TooManyRequests', message: 'Too many requests, please try again later.' });
      expect(refused[0]!.body.details).to.deep.equal({ retryAfterSeconds: 1 });
      expect(outcomes.filter((o) => o.status === 201)).to.have.length(3);
      expect(api.objects(RESOURCES.role, 'default').map((r) => r.metadata!.name).sort()).to.deep.equal(outcomes.filter((o) => o.status === 201).map((o) => o.name).sort());
      const figures = api.latency.figures();
      expect(figures).to.include({ now: 0, peak: 3, refused: 1 });
      expect(figures.mean).to.be.above(0);
    });

    it('serves reads on their own seats while every write seat is taken, and a watch takes no seat', async () => {
      // The two writes hold both seats for 1 s: long enough for the reads and the third write on a loaded machine.
      api = new FakeApiServer({ latency: profile({ meanMs: { APPLY: 1000, GET: 0 }, queueLength: 0 }) });
      await api.start();
      const client = api.client();
      const stop = new AbortController();
      const watching = client.watch('/api/v1/namespaces/default/configmaps', {}, () => undefined, stop.signal);
      const writes = Promise.all(['a', 'b'].map((name) => client.apply(RESOURCES.role, role(name), 'test')));
      while (api.latency.figures().now < 2) await new Promise((r) => setTimeout(r, 5));
      const list = await client.list(RESOURCES.role, { namespace: 'default' });
      expect(list.items).to.deep.equal([]);
      // Sent once (the client's apply would try a 429 again after its Retry-After).
      const third = await client.send({ method: 'PATCH', path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/c', query: { fieldManager: 'test', force: true }, body: role('c'), contentType: 'application/apply-patch+yaml' });
      third.resume();
      expect(third.statusCode).to.equal(429);
      await writes;
      stop.abort();
      await watching;
    });
  });
});
