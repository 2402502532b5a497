import { expect } from 'chai';
import { backoffDelay, WorkQueue, QueueClosedError, type Worker } from '../../../hooks/loop/queue.js';

function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('work queue', () => {
  describe('backoffDelay', () => {
    const opts = { baseMs: 100, maxMs: 1000, jitter: 0 };
    const cases: [number, number][] = [[1, 100], [2, 200], [3, 400], [4, 800], [5, 1000], [60, 1000]];
    for (const [attempt, delay] of cases) {
      it(`waits ${delay} ms before retry ${attempt} without jitter`, () => expect(backoffDelay(attempt, opts, () => 0.5)).to.equal(delay));
    }

    it('spreads the delay by the jitter fraction either way', () => {
      const j = { ...opts, jitter: 0.2 };
      expect(backoffDelay(2, j, () => 0)).to.equal(160);
      expect(backoffDelay(2, j, () => 0.999999)).to.equal(240);
    });

    it('never exceeds the maximum, jitter included', () => {
      expect(backoffDelay(10, { ...opts, jitter: 0.5 }, () => 0.999)).to.equal(1000);
    });
  });

  it('settles the promise of an enqueue when its reconcile ends', async () => {
    const ran: string[] = [];
    const q = new WorkQueue(async (key) => void ran.push(key));
    expect(await q.enqueue('a')).to.deep.equal({ ok: true });
    expect(ran).to.deep.equal(['a']);
  });

  it('runs one reconcile per key at a time and coalesces enqueues made meanwhile into one more run', async () => {
    const gates = [deferred(), deferred()];
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const q = new WorkQueue(async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await gates[runs++]!.promise;
      running--;
    });
    const first = q.enqueue('a');
    await tick();
    const second = q.enqueue('a');
    const third = q.enqueue('a');
    gates[0]!.resolve();
    await first;
    gates[1]!.resolve();
    await Promise.all([second, third]);
    expect(runs).to.equal(2);
    expect(maxRunning).to.equal(1);
  });

  it('coalesces enqueues of a key that is waiting for a worker', async () => {
    const gate = deferred();
    const ran: string[] = [];
    const q = new WorkQueue(async (key) => {
      ran.push(key);
      if (key === 'busy') await gate.promise;
    }, { concurrency: 1 });
    const busy = q.enqueue('busy');
    const a = [q.enqueue('a'), q.enqueue('a'), q.enqueue('a')];
    gate.resolve();
    await Promise.all([busy, ...a]);
    expect(ran).to.deep.equal(['busy', 'a']);
  });

  it('runs at most `concurrency` keys at once', async () => {
    let running = 0;
    let maxRunning = 0;
    const q = new WorkQueue(async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    }, { concurrency: 3 });
    await Promise.all(Array.from({ length: 10 }, (_, i) => q.enqueue(`k${i}`)));
    expect(maxRunning).to.equal(3);
  });

  it('lets timers fire between reconciles that never wait for I/O, as the Lease renewal must', async () => {
    const ran: string[] = [];
    const busy = (ms: number) => {
      for (const end = Date.now() + ms; Date.now() < end; );
    };
    const q = new WorkQueue(async (key) => {
      busy(2);
      ran.push(key);
    }, { concurrency: 4 });
    let ranWhenTimerFired: number | undefined;
    const timer = new Promise<void>((resolve) => setTimeout(() => ((ranWhenTimerFired = ran.length), resolve()), 1));
    const all = Promise.all(Array.from({ length: 200 }, (_, i) => q.enqueue(`k${i}`)));
    await Promise.all([all, timer]);
    expect(ran).to.have.length(200);
    // 200 runs of 2 ms hold the event loop for 400 ms when run back to back; the timer is due after 1.
    expect(ranWhenTimerFired).to.be.below(20);
  });

  it('reports a failed run and retries it with backoff until it succeeds', async () => {
    let calls = 0;
    const failures: [number, number][] = [];
    const succeeded = deferred();
    const q = new WorkQueue(async () => {
      calls++;
      if (calls < 3) throw new Error(`boom ${calls}`);
      succeeded.resolve();
    }, { backoff: { baseMs: 5, maxMs: 50, jitter: 0 }, onFailure: (_k, _e, attempt, delay) => failures.push([attempt, delay]) });
    const outcome = await q.enqueue('a');
    expect(outcome.ok).to.equal(false);
    expect(outcome.ok === false && (outcome.error as Error).message).to.equal('boom 1');
    await succeeded.promise;
    expect(calls).to.equal(3);
    expect(failures).to.deep.equal([[1, 5], [2, 10]]);
    await tick();
    expect(q.idle).to.equal(true);
  });

  it('runs a key waiting for a retry at once when it is enqueued again', async () => {
    let calls = 0;
    const q = new WorkQueue(async () => {
      if (++calls === 1) throw new Error('first');
    }, { backoff: { baseMs: 60_000, maxMs: 60_000, jitter: 0 } });
    await q.enqueue('a');
    const started = Date.now();
    expect(await q.enqueue('a')).to.deep.equal({ ok: true });
    expect(Date.now() - started, 'far less than the 60 s retry delay').to.be.below(10_000);
    expect(q.idle).to.equal(true);
  });

  it('clears the busy flag even when the worker throws synchronously', async () => {
    let calls = 0;
    const throwsAtOnce: Worker = () => {
      calls++;
      throw new Error('sync');
    };
    const q = new WorkQueue(throwsAtOnce, { backoff: { baseMs: 60_000, maxMs: 60_000, jitter: 0 } });
    await q.enqueue('a');
    await q.enqueue('a');
    expect(calls).to.equal(2);
    await q.shutdown(10);
  });

  it('lets in-flight runs finish on shutdown and refuses new work', async () => {
    const gate = deferred();
    let finished = false;
    const q = new WorkQueue(async () => {
      await gate.promise;
      finished = true;
    });
    const running = q.enqueue('a');
    await tick();
    const stopping = q.shutdown(1000);
    gate.resolve();
    expect(await stopping).to.equal(true);
    expect(finished).to.equal(true);
    expect(await running).to.deep.equal({ ok: true });
    const refused = await q.enqueue('b');
    expect(refused.ok === false && refused.error).to.be.instanceOf(QueueClosedError);
  });

  it('aborts runs that outlast the shutdown grace', async () => {
    let aborted = false;
    const q = new WorkQueue((_key, signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => {
      aborted = true;
      resolve();
    })));
    void q.enqueue('a');
    await tick();
    expect(await q.shutdown(20)).to.equal(false);
    expect(aborted).to.equal(true);
  });
});
