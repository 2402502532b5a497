// What a controller is made of (DESIGN.md "The loop owns all I/O"): the parent kind, its child
// kinds, the hook, the related caches it reads (by name, typed) and a finalizer; and the options
// and figures of the loop that runs it.
import type { Log } from '../../process/role.js';
import type { RateLimit } from '../../process/rate-limit.js';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isNotFound } from '../../kube/errors.js';
import type { Informer, Transform } from '../../kube/informer.js';
import { resourceOf, type ResourceType } from '../../kube/resources.js';
import type { LoopMetrics } from './metrics.js';
import type { BackoffOptions } from './queue.js';
import type { SyncHook } from './types.js';

/** The caches a `related()` function reads, one per related source, by the source's name. */
export type RelatedCaches<Name extends string = string> = Readonly<Record<Name, Informer<KubeObject>>>;

export interface RelatedSource<Name extends string = string> {
  /** Name of the cache in `RelatedCaches`. */
  name: Name;
  resource: ResourceType;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** What the cache keeps of each object: the fields `related()` reads (default: all but managedFields). */
  transform?: Transform<KubeObject>;
  /** Keys of the parents to reconcile when this object changes. */
  parentsOf(obj: KubeObject, parents: Informer<KubeObject>): string[];
  /** Whether a change matters to the hook at all (`old` absent for a new object); every change does without it. */
  changed?(obj: KubeObject, old: KubeObject | undefined): boolean;
}

export interface Finalizer {
  name: string;
  /** Runs once the parent is being deleted; the finalizer is removed when it resolves. */
  finalize(parent: KubeObject, ctx: { client: KubeClient; children: KubeObject[]; log: Log }): Promise<void>;
}

/**
 * One controller: `Config` and `Related` are what its hook gets besides the observed state,
 * `Cache` the names of its related sources, `Parent` the type its hook reads the parent as.
 */
export interface ControllerSpec<Config, Related, Cache extends string = string, Parent extends KubeObject = KubeObject> {
  /** For logs: `userspace`, `workspace`. */
  name: string;
  parent: ResourceType;
  children: readonly ResourceType[];
  /** Kinds of children whose status the hook reads: their caches keep it (every other child's status is dropped). */
  childStatusKinds?: readonly string[];
  /** Children whose `data` the hook never writes nor reads (a person's own Secrets): their caches keep none of it. */
  childDataHeldBack?: (child: KubeObject) => boolean;
  /** Label the loop stamps on every child with the parent's name; children are watched by it. */
  parentLabel: string;
  hook: SyncHook<Config, Related, Parent>;
  config: Config;
  relatedSources?: readonly RelatedSource<Cache>[];
  /**
   * What the hook gets as `related`: read from the caches, or from an outside source (the
   * loop owns I/O; `signal` aborts when the reconcile is abandoned). A rejection fails the
   * reconcile, which is retried with backoff.
   */
  related(parent: Parent, caches: RelatedCaches<Cache>, ctx: { signal: AbortSignal }): Related | Promise<Related>;
  finalizer?: Finalizer;
  /** Status fields other writers own; always taken from the latest parent. */
  foreignStatusFields?: readonly string[];
}

export interface ControllerOptions {
  log?: Log;
  relistIntervalMs?: number;
  concurrency?: number;
  backoff?: BackoffOptions;
  retryRate?: RateLimit;
  /** How long in-flight reconciles may finish at shutdown. */
  shutdownGraceMs?: number;
  /** Re-reads after a status write conflict before the reconcile is retried from the queue. */
  statusConflictRetries?: number;
  clock?: () => Date;
  /**
   * The parent cache of another controller of the same process: a related source of every object
   * of that kind reads it instead of a cache of its own (the Workspace controller's UserSpaces).
   */
  parentCacheOf?: (resource: ResourceType) => Informer<KubeObject> | undefined;
  /** The process's loop figures; a controller of its own (tests) counts into a registry nobody scrapes. */
  metrics?: LoopMetrics;
}

export interface ControllerStats {
  reconciles: number;
  failures: number;
  applies: number;
  deletes: number;
  statusWrites: number;
}

/** Starts the deletion of each object (background propagation) without waiting for it to finish: for a finalizer. */
export async function startDeletion(client: KubeClient, objects: KubeObject[]): Promise<void> {
  await Promise.all(objects.map(async (obj) => {
    const resource = resourceOf(obj.apiVersion ?? '', obj.kind ?? '');
    if (!resource || obj.metadata?.deletionTimestamp) return;
    try {
      await client.delete(resource, obj.metadata?.name ?? '', obj.metadata?.namespace, { propagationPolicy: 'Background' });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }));
}
