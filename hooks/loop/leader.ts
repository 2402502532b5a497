// Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: the holder
// renews the Lease; another replica takes over only after it has watched the record stay
// unchanged for a whole lease duration (its own clock, so clock skew between nodes does
// not matter); every write carries the resourceVersion it read, so two replicas that race
// cannot both win.
import type { Log } from '../../process/role.js';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isConflict, isNotFound, isAlreadyExists } from '../../kube/errors.js';
import { sleep } from '../../process/timers.js';
import { RESOURCES } from '../../kube/resources.js';

export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** When this replica first saw the Lease record it holds now (holder and renew time). */
export interface Observation {
  record: string;
  at: number;
}

export type LeaseDecision =
  | { action: 'create'; spec: LeaseSpec }
  | { action: 'acquire'; spec: LeaseSpec }
  | { action: 'renew'; spec: LeaseSpec }
  | { action: 'wait'; holder: string; expiresAt: number };

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/(\.\d{3})Z$/, '$1000Z');
}

/** The part of a Lease whose change proves its holder is alive. */
export function leaseRecord(lease: Lease | undefined): string {
  const s = lease?.spec ?? {};
  return `${s.holderIdentity ?? ''}|${s.renewTime ?? ''}|${s.leaseTransitions ?? 0}`;
}

/**
 * What `identity` should do with the Lease at time `now` (ms): create it, take it over,
 * renew its own hold, or wait for the holder's hold to lapse.
 */
export function decideLease(input: { lease: Lease | undefined; observed: Observation | undefined; now: number; identity: string; durationSeconds: number }): LeaseDecision {
  const { lease, observed, now, identity, durationSeconds } = input;
  const stamp = microTime(now);
  if (!lease) return { action: 'create', spec: { holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: stamp, renewTime: stamp, leaseTransitions: 0 } };
  const spec = lease.spec ?? {};
  const holder = spec.holderIdentity ?? '';
  if (holder === identity) return { action: 'renew', spec: { ...spec, leaseDurationSeconds: durationSeconds, renewTime: stamp } };
  const transitions = (spec.leaseTransitions ?? 0) + 1;
  const takeOver: LeaseDecision = { action: 'acquire', spec: { holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: stamp, renewTime: stamp, leaseTransitions: transitions } };
  if (!holder) return takeOver;
  const record = leaseRecord(lease);
  const since = observed && observed.record === record ? observed.at : now;
  const expiresAt = since + (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
  if (now >= expiresAt) return takeOver;
  return { action: 'wait', holder, expiresAt };
}

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  /** How long a hold lasts without renewal (client-go default 15 s). */
  leaseDurationMs?: number;
  /** A leader that could not renew for this long stops acting (default 10 s). */
  renewDeadlineMs?: number;
  /** Time between attempts (default 2 s). */
  retryPeriodMs?: number;
  clock?: () => number;
  log?: Log;
}

type AttemptResult = 'leading' | 'held-by-other' | 'failed';

export class LeaderElector {
  private observed: Observation | undefined;
  private current: Lease | undefined;
  private leading = false;
  /** When the API server last answered about the Lease (a read or a write), by `clock`. */
  private heardAt: number | undefined;
  /** The last read-decide-write round, which may still be running after it was given up. */
  private round: Promise<unknown> = Promise.resolve();
  private readonly durationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: () => number;

  constructor(private readonly client: KubeClient, private readonly opts: LeaderElectionOptions) {
    this.durationMs = opts.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = opts.retryPeriodMs ?? 2_000;
    this.clock = opts.clock ?? Date.now;
    if (this.renewDeadlineMs >= this.durationMs) throw new Error('leader election: the renew deadline must be shorter than the lease duration');
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * True while the API server answered about the Lease within one lease duration: a replica
   * that cannot reach it can neither lead nor take over, so it is not ready (its caches may
   * still say synced, from before the API server went away).
   */
  get inTouch(): boolean {
    return this.heardAt !== undefined && this.clock() - this.heardAt <= this.durationMs;
  }

  /** One read-decide-write round against the Lease. */
  async tryAcquireOrRenew(): Promise<AttemptResult> {
    const { namespace, name, identity } = this.opts;
    let lease: Lease | undefined;
    try {
      lease = await this.client.get<Lease>(RESOURCES.lease, name, namespace);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const now = this.clock();
    this.heardAt = now;
    const record = leaseRecord(lease);
    if (!this.observed || this.observed.record !== record) this.observed = { record, at: now };
    const decision = decideLease({ lease, observed: this.observed, now, identity, durationSeconds: Math.ceil(this.durationMs / 1000) });
    if (decision.action === 'wait') return 'held-by-other';
    try {
      if (decision.action === 'create') {
        this.current = await this.client.create<Lease>(RESOURCES.lease, { apiVersion: RESOURCES.lease.apiVersion, kind: RESOURCES.lease.kind, metadata: { name, namespace }, spec: decision.spec }, namespace);
      } else {
        this.current = await this.client.replace<Lease>(RESOURCES.lease, { ...lease, spec: decision.spec });
      }
    } catch (err) {
      // Another replica wrote first: it wins this round.
      if (isConflict(err) || isAlreadyExists(err)) {
        this.opts.log?.('leader election: the Lease changed between its read and this write; trying again', { lease: name, action: decision.action });
        return 'failed';
      }
      throw err;
    }
    this.observed = { record: leaseRecord(this.current), at: now };
    return 'leading';
  }

  /**
   * Campaigns until `signal` aborts. While this replica leads, `lead(signal)` runs; its
   * signal aborts when the lead is lost or on shutdown, and the Lease is released once
   * `lead` has returned, so a successor does not wait for the hold to lapse.
   */
  async run(signal: AbortSignal, lead: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const log = this.opts.log ?? (() => undefined);
    while (!signal.aborted) {
      const result = await this.attempt(log, this.renewDeadlineMs, signal);
      if (result !== 'leading') {
        await sleep(this.retryPeriodMs, signal);
        continue;
      }
      this.leading = true;
      log('leader election: leading', { lease: this.opts.name, identity: this.opts.identity });
      const stop = new AbortController();
      const onShutdown = () => stop.abort();
      signal.addEventListener('abort', onShutdown, { once: true });
      const leading = lead(stop.signal).catch((err: unknown) => {
        log('leader election: the leader work failed', { error: (err as Error).message });
      }).finally(() => stop.abort());
      await this.keepRenewing(stop.signal, log);
      stop.abort();
      signal.removeEventListener('abort', onShutdown);
      await leading;
      this.leading = false;
      if (signal.aborted) await this.release(log);
      else log('leader election: lost the lead', { lease: this.opts.name, identity: this.opts.identity });
    }
  }

  /**
   * One round, given up after `withinMs` or when `signal` aborts: a request over a dead
   * connection may get no answer for its whole socket timeout, longer than the renew deadline.
   */
  private async attempt(log: NonNullable<LeaderElectionOptions['log']>, withinMs: number, signal: AbortSignal): Promise<AttemptResult | 'timed-out'> {
    if (signal.aborted) return 'timed-out';
    const round = this.tryAcquireOrRenew().catch((err: unknown): AttemptResult => {
      log('leader election: could not read or write the Lease', { error: (err as Error).message });
      return 'failed';
    });
    this.round = round;
    let giveUp: () => void = () => undefined;
    const late = new Promise<'timed-out'>((resolve) => {
      const timer = setTimeout(() => resolve('timed-out'), withinMs);
      const onAbort = () => resolve('timed-out');
      signal.addEventListener('abort', onAbort, { once: true });
      giveUp = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
    });
    try {
      const result = await Promise.race([round, late]);
      if (result === 'timed-out' && !signal.aborted) log('leader election: no answer from the API server about the Lease in time', { lease: this.opts.name, waitedMs: withinMs });
      return result;
    } finally {
      giveUp();
    }
  }

  private async keepRenewing(stop: AbortSignal, log: NonNullable<LeaderElectionOptions['log']>): Promise<void> {
    let renewedAt = this.clock();
    while (!stop.aborted) {
      await sleep(this.retryPeriodMs, stop);
      if (stop.aborted) return;
      // A successor may start one lease duration after the last renewal, so a renewal that
      // gets no answer before the deadline ends the lead.
      const left = this.renewDeadlineMs - (this.clock() - renewedAt);
      if (left <= 0) {
        log('leader election: the renew deadline passed before a renewal could be sent (the process was busy)', { lease: this.opts.name, sinceRenewalMs: this.clock() - renewedAt });
        return;
      }
      const result = await this.attempt(log, left, stop);
      if (result === 'leading') renewedAt = this.clock();
      else if (result === 'held-by-other' || result === 'timed-out') return;
      else if (this.clock() - renewedAt >= this.renewDeadlineMs) return;
    }
  }

  /**
   * Gives the Lease up: holder emptied, so the next candidate takes it at once. A renewal
   * given up when the lead ended may still write the Lease, so release waits for it (one
   * retry period at most: shutdown must stay prompt) and, on a conflict, reads the Lease again.
   * The writes get one more retry period in all: an API server that does not answer leaves
   * the Lease to lapse rather than holding the process for a request's whole timeout.
   */
  async release(log: NonNullable<LeaderElectionOptions['log']> = () => undefined): Promise<void> {
    const waited = new AbortController();
    await Promise.race([this.round, sleep(this.retryPeriodMs, waited.signal)]);
    waited.abort();
    const signal = AbortSignal.timeout(this.retryPeriodMs);
    const { namespace, name, identity } = this.opts;
    let lease = this.current;
    for (let attempt = 1; lease?.spec?.holderIdentity === identity; attempt++) {
      try {
        this.current = await this.client.replace<Lease>(RESOURCES.lease, {
          ...lease,
          spec: { ...lease.spec, holderIdentity: null, leaseDurationSeconds: 1, renewTime: microTime(this.clock()) },
        }, { signal });
        log('leader election: released the Lease', { lease: name });
        return;
      } catch (err) {
        if (!isConflict(err) || attempt === 3) {
          log('leader election: could not release the Lease; a successor waits for it to lapse', { error: (err as Error).message });
          return;
        }
      }
      lease = await this.client.get<Lease>(RESOURCES.lease, name, namespace, { signal }).catch((err: unknown) => {
        log('leader election: could not release the Lease; a successor waits for it to lapse', { error: (err as Error).message });
        return undefined;
      });
    }
  }
}
