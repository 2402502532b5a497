// A polled outside source of a controller (a registry listing, say): fetched per parent in the
// background, outside the work queue, so a slow or failing source delays no other parent and
// no reconcile. A fetch starts when the parent's trigger changes (its generation, an annotation
// a person bumps) and again once the last result is due (the interval after a success, a
// growing delay after failures); each result asks for a reconcile of its parent, whose hook
// reads the last result, which stays valid until a newer one arrives.
import type { KubeObject } from '../../kube/client.js';

export interface PolledSource<T> {
  /** A fresh fetch starts at once when this changes. */
  trigger(parent: KubeObject): string;
  /** Time between two fetches after a success. */
  intervalMs(parent: KubeObject): number;
  /** Time before fetch number `failures` + 1 after that many failures in a row. */
  retryDelayMs(parent: KubeObject, failures: number, error: unknown): number;
  /** A fetch running longer is aborted and counts as failed. */
  timeoutMs: number;
  fetch(parent: KubeObject, signal: AbortSignal): Promise<T>;
}

/** What the hook learns of the source: nothing yet for this trigger, or the last result for it. */
export type PollView<T> =
  | { state: 'pending' }
  | { state: 'fetched'; value: T; at: Date }
  | { state: 'failed'; error: unknown; at: Date; failures: number };

interface ParentState<T> {
  trigger: string;
  result?: Exclude<PollView<T>, { state: 'pending' }>;
  dueAt: number;
  failures: number;
  inFlight?: AbortController;
  timer?: NodeJS.Timeout;
}

export interface PollerOptions {
  /** Asks for a reconcile of the parent with this key. */
  request(key: string): void;
  clock?: () => number;
}

export class Poller<T> {
  private readonly states = new Map<string, ParentState<T>>();
  private stopped = false;
  private readonly clock: () => number;
  /** Fetches started, for tests and benchmarks. */
  fetches = 0;

  constructor(private readonly source: PolledSource<T>, private readonly opts: PollerOptions) {
    this.clock = opts.clock ?? Date.now;
  }

  /**
   * The last result for the parent's current trigger, starting a fetch when none runs and the
   * trigger changed or the result is due.
   */
  observe(key: string, parent: KubeObject): PollView<T> {
    const trigger = this.source.trigger(parent);
    let state = this.states.get(key);
    if (!state || state.trigger !== trigger) {
      if (state) this.cancel(state);
      state = { trigger, dueAt: 0, failures: 0 };
      this.states.set(key, state);
    }
    if (!state.inFlight && this.clock() >= state.dueAt) this.start(key, parent, state);
    return state.result ?? { state: 'pending' };
  }

  /** The parent is gone: its fetch is abandoned and its timer cleared. */
  forget(key: string): void {
    const state = this.states.get(key);
    if (state) this.cancel(state);
    this.states.delete(key);
  }

  /** Abandons every fetch and timer; nothing is requested afterwards. */
  stop(): void {
    this.stopped = true;
    for (const key of [...this.states.keys()]) this.forget(key);
  }

  private cancel(state: ParentState<T>): void {
    state.inFlight?.abort();
    state.inFlight = undefined;
    clearTimeout(state.timer);
    state.timer = undefined;
  }

  private start(key: string, parent: KubeObject, state: ParentState<T>): void {
    if (this.stopped) return;
    clearTimeout(state.timer);
    const abort = new AbortController();
    state.inFlight = abort;
    this.fetches++;
    const signal = AbortSignal.any([abort.signal, AbortSignal.timeout(this.source.timeoutMs)]);
    // The fetch's promise is handled in both outcomes; nothing escapes as an unhandled rejection.
    void this.source.fetch(parent, signal).then(
      (value) => this.settle(key, parent, state, abort, { state: 'fetched', value, at: new Date(this.clock()) }),
      (error: unknown) => this.settle(key, parent, state, abort, { state: 'failed', error, at: new Date(this.clock()), failures: state.failures + 1 }),
    );
  }

  private settle(key: string, parent: KubeObject, state: ParentState<T>, abort: AbortController, result: NonNullable<ParentState<T>['result']>): void {
    // Superseded (new trigger), forgotten or stopped: this result describes nothing current.
    if (state.inFlight !== abort || this.states.get(key) !== state || this.stopped) return;
    state.inFlight = undefined;
    state.result = result;
    state.failures = result.state === 'failed' ? result.failures : 0;
    const delay = result.state === 'failed' ? this.source.retryDelayMs(parent, state.failures, result.error) : this.source.intervalMs(parent);
    state.dueAt = this.clock() + delay;
    state.timer = setTimeout(() => {
      state.timer = undefined;
      this.opts.request(key);
    }, delay);
    this.opts.request(key);
  }
}
