import { expect } from 'chai';
import { RESOURCES } from '../../kube/resources.js';
import { CLUSTER_CPU_PROFILE, CLUSTER_PROFILE, FakeApiServer, INSTANT_PROFILE, type LatencyProfile } from './fake-apiserver.js';
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

  describe('the API server\'s CPU as seats', () => {
    const cpu = (seats: number): LatencyProfile => ({ name: 'cpu', meanMs: { APPLY: 100, GET: 100 }, spread: 'fixed', maxInFlight: { readOnly: 100, mutating: 100 }, queueLength: 100, capacity: { seats, serviceShare: 0.5 } });
    const write = { verb: 'APPLY', resource: 'roles' } as const;
    /** Milliseconds until `requests` requests sent by `streams` streams, one after another in each, are all answered. */
    async function timed(model: LatencyModel, requests: number, streams: number): Promise<number> {
      const started = performance.now();
      let left = requests;
      await Promise.all(Array.from({ length: streams }, async () => {
        while (left-- > 0) await model.serve(write, async () => undefined);
      }));
      return performance.now() - started;
    }

    it('serves a lone request in its share of the mean', async () => {
      const model = new LatencyModel(cpu(2));
      expect(model.draw(write)).to.equal(50);
      // Timers fire late on a busy machine, never early (162 ms was seen at load 8): the share is
      // the drawn time above, the wait is bounded from below, and nothing else held a seat.
      const ms = await timed(model, 1, 1);
      expect(ms).to.be.at.least(48);
      expect(model.figures().cpuPeak, 'seats held at once').to.equal(1);
      expect(model.figures().peak, 'requests in flight at once').to.equal(1);
    });

    it('saturates at seats ÷ service time: streams beyond the seats only wait longer', async () => {
      // 24 requests of 50 ms on 2 seats: 12 rounds, at least 600 ms however many streams send
      // them past 2. Timers fire late on a busy machine, never early: so the rounds are counted
      // by the seats held at once, and the time is bounded from below only.
      const twoStreams = new LatencyModel(cpu(2));
      const eightStreams = new LatencyModel(cpu(2));
      expect(await timed(twoStreams, 24, 2)).to.be.at.least(595);
      expect(await timed(eightStreams, 24, 8)).to.be.at.least(595);
      expect(eightStreams.figures().cpuPeak, 'requests on the CPU at once, 8 streams on 2 seats').to.equal(2);
      expect(eightStreams.figures().peak, 'requests in flight, queued included').to.equal(8);
      // Twice the seats, twice the throughput: 6 rounds, at least 300 ms.
      const fourSeats = new LatencyModel(cpu(4));
      expect(await timed(fourSeats, 24, 8)).to.be.at.least(295);
      expect(fourSeats.figures().cpuPeak, 'requests on the CPU at once, 8 streams on 4 seats').to.equal(4);
    });

    it('makes reads wait behind writes for the same CPU', async () => {
      const model = new LatencyModel(cpu(1));
      const writes = Promise.all([1, 2].map(() => model.serve(write, async () => undefined)));
      const started = performance.now();
      await model.serve({ verb: 'GET', resource: 'roles' }, async () => undefined);
      expect(performance.now() - started).to.be.at.least(145);
      await writes;
    });

    it('is calibrated on the cluster\'s kubectl floor: 14 applies of a UserSpace at about 192 per second on 2 seats', () => {
      const children = ['namespaces', 'serviceaccounts', 'serviceaccounts', 'serviceaccounts', 'roles', 'roles', 'rolebindings', 'rolebindings', 'rolebindings', 'networkpolicies', 'resourcequotas', 'limitranges', 'clusterroles', 'clusterrolebindings'];
      const model = new LatencyModel({ ...CLUSTER_CPU_PROFILE, spread: 'fixed' });
      const service = children.map((resource) => model.draw({ verb: 'APPLY', resource })).reduce((a, b) => a + b, 0) / children.length;
      const perSecond = (CLUSTER_CPU_PROFILE.capacity!.seats * 1000) / service;
      // kubectl apply --server-side, 8 streams: 4,200 applies in 21.9 s.
      expect(perSecond).to.be.within((4200 / 21.9) * 0.98, (4200 / 21.9) * 1.02);
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
