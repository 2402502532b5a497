// The reconcile side of `den manager`: a list of controllers (hooks/controllers.ts) whose caches
// run on every replica for the life of the process, and which reconcile only while this replica
// holds the Lease (webhooks are not here: every replica serves them).
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { LEADER_LEASE } from '../contract/names.js';
import type { Log } from '../process/role.js';
import { CONTROLLERS, type ControllerFactory, type ManagerConfig } from './controllers.js';
import { Controller } from './loop/controller.js';
import type { ControllerOptions } from './loop/spec.js';
import type { Informer } from '../kube/informer.js';
import type { KubeClient, KubeObject } from '../kube/client.js';
import type { ResourceType } from '../kube/resources.js';
import { LeaderElector } from './loop/leader.js';
import type { RateLimit } from '../process/rate-limit.js';

/** Reconciles in flight per controller (docs/manager.md: chosen from the convergence bench under the cluster's latencies). */
export const DEFAULT_RECONCILES_IN_FLIGHT = 16;

/** The reconcile loop's client-side rate limit (docs/manager.md says why: above what the defaults need, near what a one-node cluster sustained). */
export const DEFAULT_KUBE_RATE: RateLimit = { perSecond: 200, burst: 400 };

export interface ManagerOptions {
  config: ManagerConfig;
  /** The kinds to reconcile; default every kind Den has (CONTROLLERS). */
  controllers?: readonly ControllerFactory[];
  leaderElect: boolean;
  log: Log;
  /** Identity in the Lease; default `<hostname>_<random>` like client-go. */
  identity?: string;
  controller?: ControllerOptions;
  /** The client the controllers use (a rate-limited one); the Lease always uses `client`. Default `client`. */
  loopClient?: KubeClient;
  lease?: { durationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
}

/**
 * The reconcile side of `den manager`: every controller of the list, its caches running from
 * `run` until its signal aborts, its reconciles only while this replica leads.
 */
export class Manager {
  readonly identity: string;
  /** The controllers of the next (or current) run, and their caches while they run. */
  private next: readonly Controller[] | undefined;
  private caches: Promise<void> | undefined;
  private readonly elector: LeaderElector | undefined;

  constructor(private readonly client: KubeClient, private readonly opts: ManagerOptions) {
    this.identity = opts.identity ?? `${hostname()}_${randomUUID().slice(0, 8)}`;
    this.elector = opts.leaderElect
      ? new LeaderElector(client, {
          namespace: opts.config.namespace,
          name: LEADER_LEASE,
          identity: this.identity,
          leaseDurationMs: opts.lease?.durationMs,
          renewDeadlineMs: opts.lease?.renewDeadlineMs,
          retryPeriodMs: opts.lease?.retryPeriodMs,
          log: opts.log,
        })
      : undefined;
  }

  get leading(): boolean {
    return this.elector ? this.elector.isLeader : true;
  }

  /**
   * True once every controller's caches are synced, leading or not (a follower is as ready to
   * take over as the leader is to go on), and, with leader election, while the elector is in
   * touch with the API server: caches synced before the API server went away stay "synced".
   */
  get ready(): boolean {
    return !!this.controllers && this.controllers.every((c) => c.synced) && (this.elector?.inTouch ?? true);
  }

  /** The controllers while their caches run, on every replica (they reconcile only while `leading`), for tests and benchmarks. */
  get controllers(): readonly Controller[] | undefined {
    return this.caches && this.next;
  }

  /** The controllers of the next (or current) run, built on first use. */
  private built(): readonly Controller[] {
    if (!this.next) {
      const options: ControllerOptions = { relistIntervalMs: this.opts.config.relistIntervalMs, log: this.opts.log, shutdownGraceMs: this.shutdownGraceMs(), ...this.opts.controller };
      const built: Controller[] = [];
      const parentCacheOf = (resource: ResourceType) => built.find((c) => c.spec.parent === resource)?.parents;
      for (const spec of this.opts.controllers ?? CONTROLLERS) built.push(new Controller(this.opts.loopClient ?? this.client, spec(this.opts.config), { ...options, parentCacheOf }));
      this.next = built;
    }
    return this.next;
  }

  /**
   * The cache of the parents of this kind, for readers beside the loop (the admission webhooks
   * read UserSpaces and Workspaces from it rather than keep a copy of their own). It fills once
   * `runCaches` (or `run`) runs; subscribe before, or read its store.
   */
  parentCache(resource: ResourceType): Informer<KubeObject> | undefined {
    return this.built().find((c) => c.spec.parent === resource)?.parents;
  }

  /**
   * Runs every controller's caches until `signal` aborts, on every replica; `run` starts them
   * if nothing did. Started on its own when another reader must find them synced before the
   * campaign for the Lease begins (the webhooks).
   */
  runCaches(signal: AbortSignal): Promise<void> {
    this.caches ??= Promise.all(this.built().map((c) => c.runCaches(signal))).then(() => undefined);
    return this.caches;
  }

  /**
   * Runs until `signal` aborts: the caches from the start to the end (unless `runCaches` runs
   * them already), the reconciles during each lead. At the end in-flight reconciles finish
   * (bounded) and the Lease is released.
   */
  async run(signal: AbortSignal): Promise<void> {
    const caches = this.runCaches(signal);
    const controllers = this.built();
    const lead = async (leading: AbortSignal) => {
      await Promise.all(controllers.map((c) => c.lead(leading)));
    };
    try {
      if (this.elector) await this.elector.run(signal, lead);
      else await lead(signal);
      await caches;
    } finally {
      this.next = this.caches = undefined;
    }
  }

  /**
   * A replica that lost the Lease stops reconciling at most renewDeadline after its last
   * renewal; its reconciles in flight may finish for the rest of the lease duration, after
   * which a successor may take over. So the two never act at once. (Its caches keep running:
   * they only read.)
   */
  private shutdownGraceMs(): number {
    if (!this.elector) return 10_000;
    return (this.opts.lease?.durationMs ?? 15_000) - (this.opts.lease?.renewDeadlineMs ?? 10_000);
  }
}
