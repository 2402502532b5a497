// A keyed work queue: at most one reconcile per key at a time, a bounded number across
// keys, re-enqueues during a run coalesced into one more run, and failed runs retried
// with exponential backoff, jitter and an overall retry rate limit (client-go's default
// controller rate limiter, without the shared mutable state).

import { reserveToken, type RateLimit, type TokenBucket } from '../../process/rate-limit.js';

export interface BackoffOptions {
  /** Delay after the first failure. */
  baseMs: number;
  /** The delay never grows past this. */
  maxMs: number;
  /** Fraction of the delay added or removed at random, so failing keys do not retry in lockstep. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 200, maxMs: 60_000, jitter: 0.2 };

/** Delay before retry number `attempt` (1 for the first retry). `random` returns [0, 1). */
export function backoffDelay(attempt: number, opts: BackoffOptions, random: () => number): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const delay = Math.min(opts.baseMs * 2 ** exponent, opts.maxMs);
  const spread = delay * opts.jitter * (2 * random() - 1);
  return Math.max(0, Math.round(Math.min(delay + spread, opts.maxMs)));
}

export type RunOutcome = { ok: true } | { ok: false; error: unknown };

export interface WorkQueueOptions {
  /** Reconciles running at once across keys. */
  concurrency?: number;
  backoff?: BackoffOptions;
  /** Overall limit on retries after failures; a fresh enqueue is never delayed. */
  retryRate?: RateLimit;
  random?: () => number;
  clock?: () => number;
  /** Called for every failed run with the delay before its retry. */
  onFailure?: (key: string, error: unknown, attempt: number, retryInMs: number) => void;
}

type Settle = (outcome: RunOutcome) => void;

interface KeyState {
  running: boolean;
  queued: boolean;
  /** Enqueued while running: one more run follows. */
  dirty: boolean;
  failures: number;
  retryTimer?: NodeJS.Timeout;
  /** Waiting for the next run to end. */
  waiters: Settle[];
}

export type Worker = (key: string, signal: AbortSignal) => Promise<void>;

export class QueueClosedError extends Error {
  override readonly name = 'QueueClosedError';
}

export class WorkQueue {
  private readonly states = new Map<string, KeyState>();
  private readonly ready: string[] = [];
  private active = 0;
  private closed = false;
  private bucket: TokenBucket | undefined;
  private readonly abort = new AbortController();
  private readonly drained: (() => void)[] = [];
  private readonly opts: Required<Omit<WorkQueueOptions, 'onFailure'>> & Pick<WorkQueueOptions, 'onFailure'>;

  constructor(private readonly worker: Worker, opts: WorkQueueOptions = {}) {
    this.opts = {
      concurrency: opts.concurrency ?? 4,
      backoff: opts.backoff ?? DEFAULT_BACKOFF,
      retryRate: opts.retryRate ?? { perSecond: 10, burst: 100 },
      random: opts.random ?? Math.random,
      clock: opts.clock ?? Date.now,
      onFailure: opts.onFailure,
    };
    if (!(this.opts.concurrency >= 1)) throw new Error('concurrency must be at least 1');
  }

  /**
   * Asks for a reconcile of `key`. The promise settles when the run that covers this request
   * ends, with its outcome; it never rejects, so event handlers may ignore it. A failed run
   * is retried on its own.
   */
  enqueue(key: string): Promise<RunOutcome> {
    if (this.closed) return Promise.resolve({ ok: false, error: new QueueClosedError('the work queue is shut down') });
    let state = this.states.get(key);
    if (!state) this.states.set(key, (state = { running: false, queued: false, dirty: false, failures: 0, waiters: [] }));
    const settled = new Promise<RunOutcome>((resolve) => state.waiters.push(resolve));
    if (state.running) state.dirty = true;
    else this.markReady(key, state);
    return settled;
  }

  /** Keys waiting or running. */
  get size(): number {
    return this.ready.length + this.active;
  }

  /** True when nothing is running, queued or waiting for a retry. */
  get idle(): boolean {
    return this.active === 0 && this.ready.length === 0 && [...this.states.values()].every((s) => !s.retryTimer);
  }

  private markReady(key: string, state: KeyState): void {
    if (state.queued) return;
    if (state.retryTimer) {
      clearTimeout(state.retryTimer);
      state.retryTimer = undefined;
    }
    state.queued = true;
    this.ready.push(key);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.active < this.opts.concurrency && this.ready.length > 0) {
      const key = this.ready.shift()!;
      void this.runOnce(key);
    }
  }

  private async runOnce(key: string): Promise<void> {
    const state = this.states.get(key)!;
    state.queued = false;
    state.running = true;
    const waiters = state.waiters;
    state.waiters = [];
    this.active++;
    let outcome: RunOutcome;
    try {
      // Each run begins in a turn of the event loop of its own. Reconciles that need no write
      // (every one of a warm start: 11,000 parents) never wait for I/O, so run back to back they
      // held one turn for seconds, and the Lease's renewal timer fired too late to keep the lead.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await this.worker(key, this.abort.signal);
      outcome = { ok: true };
      state.failures = 0;
    } catch (error) {
      outcome = { ok: false, error };
      state.failures++;
    } finally {
      state.running = false;
      this.active--;
    }
    for (const settle of waiters) settle(outcome);
    this.afterRun(key, state, outcome);
    this.pump();
    if (this.active === 0) for (const done of this.drained.splice(0)) done();
  }

  private afterRun(key: string, state: KeyState, outcome: RunOutcome): void {
    if (this.closed) {
      this.settleAll(state);
      this.states.delete(key);
      return;
    }
    if (state.dirty || state.waiters.length > 0) {
      // New information arrived meanwhile: run again at once, failed or not.
      if (!outcome.ok) this.opts.onFailure?.(key, outcome.error, state.failures, 0);
      state.dirty = false;
      this.markReady(key, state);
      return;
    }
    if (!outcome.ok) {
      const backoff = backoffDelay(state.failures, this.opts.backoff, this.opts.random);
      const reserved = reserveToken(this.bucket, this.opts.clock(), this.opts.retryRate);
      this.bucket = reserved.bucket;
      const delay = Math.max(backoff, reserved.waitMs);
      this.opts.onFailure?.(key, outcome.error, state.failures, delay);
      state.retryTimer = setTimeout(() => {
        state.retryTimer = undefined;
        this.markReady(key, state);
      }, delay);
      return;
    }
    this.states.delete(key);
  }

  private settleAll(state: KeyState): void {
    for (const settle of state.waiters.splice(0)) settle({ ok: false, error: new QueueClosedError('the work queue is shut down') });
  }

  /**
   * Stops taking work: queued keys and pending retries are dropped, runs in flight may
   * finish for up to `graceMs`, then their signal aborts. Resolves true when all finished in time.
   */
  async shutdown(graceMs: number): Promise<boolean> {
    this.closed = true;
    for (const [key, state] of this.states) {
      if (state.retryTimer) clearTimeout(state.retryTimer);
      state.retryTimer = undefined;
      state.queued = false;
      if (!state.running) {
        this.settleAll(state);
        this.states.delete(key);
      }
    }
    this.ready.length = 0;
    if (this.active === 0) return true;
    const finished = new Promise<true>((resolve) => this.drained.push(() => resolve(true)));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
    const inTime = await Promise.race([finished, late]);
    clearTimeout(timer);
    if (!inTime) this.abort.abort();
    return inTime;
  }
}
