import { expect } from 'chai';
import { decideLease, leaseRecord, LeaderElector, microTime, type Lease } from '../../../hooks/loop/leader.js';
import { FakeApiServer } from '../../support/fake-apiserver.js';
import { RESOURCES } from '../../../kube/resources.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

function lease(spec: Lease['spec']): Lease {
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'den-manager', namespace: 'svc-system', resourceVersion: '5' }, spec };
}

describe('leader election', () => {
  describe('decideLease', () => {
    const held = lease({ holderIdentity: 'other', leaseDurationSeconds: 15, renewTime: microTime(T0), leaseTransitions: 2 });
    const cases: { it: string; input: Parameters<typeof decideLease>[0]; action: string; holder?: string; transitions?: number }[] = [
      { it: 'creates the Lease when there is none', input: { lease: undefined, observed: undefined, now: T0, identity: 'me', durationSeconds: 15 }, action: 'create', holder: 'me', transitions: 0 },
      { it: 'renews its own hold', input: { lease: lease({ holderIdentity: 'me', leaseTransitions: 4 }), observed: undefined, now: T0, identity: 'me', durationSeconds: 15 }, action: 'renew', holder: 'me', transitions: 4 },
      { it: 'takes a released Lease at once', input: { lease: lease({ holderIdentity: null, leaseTransitions: 2 }), observed: undefined, now: T0, identity: 'me', durationSeconds: 15 }, action: 'acquire', holder: 'me', transitions: 3 },
      { it: 'waits while the record it first saw is younger than the lease duration', input: { lease: held, observed: { record: leaseRecord(held), at: T0 }, now: T0 + 14_999, identity: 'me', durationSeconds: 15 }, action: 'wait' },
      { it: 'takes over once the record stayed unchanged for the lease duration', input: { lease: held, observed: { record: leaseRecord(held), at: T0 }, now: T0 + 15_000, identity: 'me', durationSeconds: 15 }, action: 'acquire', holder: 'me', transitions: 3 },
      { it: 'starts counting again when the holder renewed', input: { lease: held, observed: { record: 'older', at: T0 - 60_000 }, now: T0 + 20_000, identity: 'me', durationSeconds: 15 }, action: 'wait' },
      { it: "trusts its own clock over the holder's renewTime", input: { lease: lease({ holderIdentity: 'other', leaseDurationSeconds: 15, renewTime: microTime(T0 - 3_600_000) }), observed: undefined, now: T0, identity: 'me', durationSeconds: 15 }, action: 'wait' },
    ];
    for (const c of cases) {
      it(c.it, () => {
        const d = decideLease(c.input);
        expect(d.action).to.equal(c.action);
        if (d.action !== 'wait') {
          expect(d.spec.holderIdentity).to.equal(c.holder);
          expect(d.spec.leaseTransitions).to.equal(c.transitions);
          expect(d.spec.renewTime).to.equal(microTime(c.input.now));
        }
      });
    }

    it('writes MicroTime with microseconds', () => {
      expect(microTime(T0 + 1)).to.equal('2026-01-01T00:00:00.001000Z');
    });
  });

  describe('against the API server', () => {
    let api: FakeApiServer;
    beforeEach(async () => {
      api = new FakeApiServer();
      await api.start();
    });
    afterEach(() => api.close());

    const fast = { namespace: 'svc-system', name: 'den-manager', leaseDurationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 50 };

    function until(cond: () => boolean, ms = 10_000): Promise<void> {
      const start = Date.now();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (cond()) return resolve();
          if (Date.now() - start > ms) return reject(new Error('timed out'));
          setTimeout(check, 10);
        };
        check();
      });
    }

    it('lets exactly one of two replicas lead, and hands over on release', async () => {
      // A lease far longer than the wait below: b can only lead that soon because a released it.
      const long = { ...fast, leaseDurationMs: 60_000, renewDeadlineMs: 40_000 };
      const a = new LeaderElector(api.client(), { ...long, identity: 'a' });
      const clientB = api.client();
      const readLease = clientB.get.bind(clientB);
      let readsByB = 0;
      clientB.get = ((...args: Parameters<typeof readLease>) => {
        readsByB++;
        return readLease(...args);
      }) as typeof clientB.get;
      const b = new LeaderElector(clientB, { ...long, identity: 'b' });
      const stopA = new AbortController();
      const stopB = new AbortController();
      let both = false;
      const leaders: string[] = [];
      const work = (id: string) => async (signal: AbortSignal) => {
        leaders.push(id);
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      };
      const runA = a.run(stopA.signal, work('a'));
      await until(() => a.isLeader);
      const runB = b.run(stopB.signal, work('b'));
      const watch = setInterval(() => (both ||= a.isLeader && b.isLeader), 5);
      await until(() => readsByB >= 3);
      expect(b.isLeader, 'b leads after three looks at a Lease a holds').to.equal(false);
      stopA.abort();
      await runA;
      await until(() => b.isLeader);
      clearInterval(watch);
      expect(both).to.equal(false);
      expect(leaders).to.deep.equal(['a', 'b']);
      const stored = api.object<Lease>(RESOURCES.lease, 'den-manager', 'svc-system');
      expect(stored?.spec?.holderIdentity).to.equal('b');
      expect(stored?.spec?.leaseTransitions).to.equal(1);
      stopB.abort();
      await runB;
      expect(api.object<Lease>(RESOURCES.lease, 'den-manager', 'svc-system')?.spec?.holderIdentity).to.equal(null);
    });

    it('releases the Lease on stop even when a renewal it gave up has written it meanwhile', async () => {
      const long = { ...fast, leaseDurationMs: 60_000, renewDeadlineMs: 40_000 };
      const clientA = api.client();
      const replace = clientA.replace.bind(clientA);
      let holdAnswer: Promise<void> | undefined;
      let answerHeld: () => void = () => undefined;
      // The next renewal reaches the API server, but its answer is held back until after the stop.
      clientA.replace = (async (...args: Parameters<typeof replace>) => {
        const written = await replace(...args);
        if (holdAnswer) await holdAnswer;
        return written;
      }) as typeof clientA.replace;
      const a = new LeaderElector(clientA, { ...long, identity: 'a' });
      const stopA = new AbortController();
      const runA = a.run(stopA.signal, (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })));
      await until(() => a.isLeader);
      const renewedBefore = api.requests.filter((r) => r.method === 'PUT').length;
      holdAnswer = new Promise((resolve) => (answerHeld = resolve));
      await until(() => api.requests.filter((r) => r.method === 'PUT').length > renewedBefore);
      stopA.abort();
      setTimeout(() => {
        holdAnswer = undefined;
        answerHeld();
      }, 100);
      await runA;
      const stored = api.object<Lease>(RESOURCES.lease, 'den-manager', 'svc-system');
      expect(stored?.spec?.holderIdentity, 'released, not left to lapse for 60 s').to.equal(null);
    });

    it('stops within two retry periods when the API server does not answer the release, leaving the Lease to lapse', async () => {
      const patient = { ...fast, leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 200 };
      const a = new LeaderElector(api.client(), { ...patient, identity: 'a' });
      const stopA = new AbortController();
      const runA = a.run(stopA.signal, (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })));
      await until(() => a.isLeader);
      api.slowDown('PUT', /leases/, 60_000); // longer than a request's own 30 s timeout
      const started = Date.now();
      stopA.abort();
      await runA;
      // One retry period for a renewal in flight, one for the release; not the 30 s request timeout.
      expect(Date.now() - started, 'ms from stop to return').to.be.below(3_000);
      expect(api.object<Lease>(RESOURCES.lease, 'den-manager', 'svc-system')?.spec?.holderIdentity, 'left to lapse').to.equal('a');
    });

    it('takes over a Lease whose holder stopped renewing, only after the lease duration', async () => {
      api.seed(lease({ holderIdentity: 'crashed', leaseDurationSeconds: 1, renewTime: microTime(Date.now()), leaseTransitions: 0 }));
      const b = new LeaderElector(api.client(), { ...fast, identity: 'b' });
      const stop = new AbortController();
      const started = Date.now();
      const run = b.run(stop.signal, (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })));
      await until(() => b.isLeader);
      expect(Date.now() - started).to.be.at.least(1000);
      stop.abort();
      await run;
    });

    it('stops leading when another replica holds the Lease', async () => {
      const a = new LeaderElector(api.client(), { ...fast, identity: 'a' });
      const stop = new AbortController();
      let leadEnded = false;
      const run = a.run(stop.signal, (signal) => new Promise((resolve) => signal.addEventListener('abort', () => {
        leadEnded = true;
        resolve();
      }, { once: true })));
      await until(() => a.isLeader);
      const current = api.object<Lease>(RESOURCES.lease, 'den-manager', 'svc-system')!;
      api.seed({ ...current, spec: { ...current.spec, holderIdentity: 'usurper', renewTime: microTime(Date.now()) } });
      await until(() => leadEnded);
      expect(a.isLeader).to.equal(false);
      stop.abort();
      await run;
      expect(api.object<Lease>(RESOURCES.lease, 'den-manager', 'svc-system')?.spec?.holderIdentity).to.equal('usurper');
    });

    it('stops leading by the renew deadline when the API server stops answering its renewals', async () => {
      const client = api.client();
      // The renew deadline well inside the lease duration, so a busy machine's late timers still fit between.
      const timing = { ...fast, leaseDurationMs: 10_000, renewDeadlineMs: 2_000 };
      const a = new LeaderElector(client, { ...timing, identity: 'a' });
      const stop = new AbortController();
      let leadEndedAt = 0;
      const run = a.run(stop.signal, (signal) => new Promise((resolve) => signal.addEventListener('abort', () => {
        leadEndedAt = Date.now();
        resolve();
      }, { once: true })));
      await until(() => a.isLeader);
      // From now on every read of the Lease hangs, as over a dead connection (no answer, no error).
      const hungAt = Date.now();
      client.get = () => new Promise<never>(() => undefined);
      await until(() => leadEndedAt > 0, timing.leaseDurationMs + 5_000);
      // Another replica may take over one lease duration after the last renewal: this one must be gone by then.
      expect(leadEndedAt - hungAt).to.be.below(timing.leaseDurationMs);
      stop.abort();
      await run;
    });

    it('is in touch with the API server while it answers about the Lease, leader or follower, and out of touch one lease duration after it stops', async () => {
      const client = api.client();
      const a = new LeaderElector(client, { ...fast, identity: 'a' });
      const b = new LeaderElector(api.client(), { ...fast, identity: 'b' });
      expect(a.inTouch, 'before its first round').to.equal(false);
      const stop = new AbortController();
      const runs = [a, b].map((e) => e.run(stop.signal, (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))));
      await until(() => a.inTouch && b.inTouch && (a.isLeader || b.isLeader));
      // Every read of the Lease hangs from now on, as when the API server is gone.
      const hungAt = Date.now();
      client.get = () => new Promise<never>(() => undefined);
      await until(() => !a.inTouch, fast.leaseDurationMs + 5_000);
      expect(Date.now() - hungAt).to.be.at.least(fast.leaseDurationMs - 100);
      expect(b.inTouch, 'b still hears from its own client').to.equal(true);
      stop.abort();
      await Promise.all(runs);
    });

    it('ends the lead and says the process was busy when no renewal could be sent before the deadline', async () => {
      const logs: string[] = [];
      let skew = 0;
      const a = new LeaderElector(api.client(), { ...fast, identity: 'a', clock: () => Date.now() + skew, log: (msg) => logs.push(msg) });
      const stop = new AbortController();
      let ended = false;
      const run = a.run(stop.signal, (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(void (ended = true)), { once: true })));
      await until(() => a.isLeader);
      // As if the process's own work held its event loop past the renew deadline.
      skew = fast.renewDeadlineMs + 100;
      await until(() => ended);
      expect(logs).to.include('leader election: the renew deadline passed before a renewal could be sent (the process was busy)');
      expect(logs).to.include('leader election: lost the lead');
      stop.abort();
      await run;
    });

    it('loses the race when the Lease changed between read and write', async () => {
      const logs: string[] = [];
      const a = new LeaderElector(api.client(), { ...fast, identity: 'a', log: (msg) => logs.push(msg) });
      api.seed(lease({ holderIdentity: null, leaseTransitions: 0 }));
      api.failNext('PUT', /\/leases\/den-manager$/, 409);
      expect(await a.tryAcquireOrRenew()).to.equal('failed');
      expect(logs).to.deep.equal(['leader election: the Lease changed between its read and this write; trying again']);
      expect(await a.tryAcquireOrRenew()).to.equal('leading');
    });
  });
});
