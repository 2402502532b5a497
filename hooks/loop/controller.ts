// A controller runs one sync hook for one parent kind (DESIGN.md "The loop owns all I/O"):
// list-then-watch caches of the parent, its child kinds and the related objects; a keyed
// queue; server-side apply of the hook's children with a controller reference; deletion of
// controlled children the hook no longer returns; status through /status; a finalizer.
import { setMaxListeners } from 'node:events';
import type { Log } from '../../process/role.js';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isConflict, isNotFound, KubeApiError } from '../../kube/errors.js';
import { reconcileAdvice } from './advice.js';
import { FIELD_MANAGERS } from '../../kube/group.js';
import { DenEventRecorder, DEN_REPORTING_COMPONENTS } from '../../kube/den-events.js';
import { Informer, objectKey, type CacheEvent } from '../../kube/informer.js';
import { untilAborted } from '../../process/timers.js';
import { RESOURCES, resourceOf } from '../../kube/resources.js';
import { Registry } from 'prom-client';
import { childName, controllerOf, parentKeysOf, refOf } from './keys.js';
import { LoopMetrics } from './metrics.js';
import { ChildIndex, childAsCached, type ChildCaching, childrenMap, withApplied, withSiblingParts, decorateChild, desiredStatus, isHeldAsObserved, planChildren, sameStatus } from './plan.js';
import { QueueClosedError, WorkQueue, type RunOutcome } from './queue.js';
import type { ControllerOptions, ControllerSpec, ControllerStats, RelatedCaches } from './spec.js';
import type { ChildError, HookInput, ParentChange, ParentDeletion, ParentEvent } from './types.js';

/** A reconcile that wrote what it could but some children failed; retried with backoff. */
export class ChildrenFailedError extends Error {
  override readonly name = 'ChildrenFailedError';
  constructor(readonly errors: ChildError[]) {
    super(errors.map((e) => `${e.child}: ${e.message}`).join('; '));
  }
}

function stopIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new Error('reconcile abandoned: the controller is stopping');
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class Controller<Config = unknown, Related = unknown, Cache extends string = string, Parent extends KubeObject = KubeObject> {
  readonly parents: Informer<KubeObject>;
  readonly stats: ControllerStats = { reconciles: 0, failures: 0, applies: 0, deletes: 0, statusWrites: 0 };
  private readonly childInformers: Informer<KubeObject>[];
  private readonly related: Record<string, Informer<KubeObject>> = {};
  private readonly index = new ChildIndex();
  /** The queue of the current lead, once the caches are synced; undefined while this controller does not reconcile. */
  private queue: WorkQueue | undefined;
  private readonly metrics: LoopMetrics;
  private readonly log: Log;
  private ready = false;
  /** Parents whose finalizer this controller removed, until the cache sees them go. */
  private readonly finalized = new Set<string>();
  private readonly readyResolvers: (() => void)[] = [];
  /** Per parent key: the run its hook asked for with `resyncAfterMs`. */
  private readonly resyncTimers = new Map<string, NodeJS.Timeout>();
  private readonly events: DenEventRecorder;
  /** The related caches this controller runs itself (not those it shares with another controller). */
  private readonly ownRelated: Informer<KubeObject>[] = [];

  constructor(private readonly client: KubeClient, readonly spec: ControllerSpec<Config, Related, Cache, Parent>, private readonly opts: ControllerOptions = {}) {
    this.log = opts.log ?? (() => undefined);
    this.events = new DenEventRecorder({ reportingComponent: DEN_REPORTING_COMPONENTS.manager, now: opts.clock });
    const informerOpts = { relistIntervalMs: opts.relistIntervalMs, onError: (err: unknown) => this.log('watch failed; retrying', { controller: spec.name, error: messageOf(err) }) };
    this.parents = new Informer(client, spec.parent, informerOpts);
    this.parents.on((e) => {
      if (e.type === 'DELETED') this.finalized.delete(e.object.metadata?.uid ?? '');
      this.request(objectKey(e.object));
    });
    const transform = (child: KubeObject) => {
      const uid = controllerOf(child)?.uid;
      return withSiblingParts(childAsCached(child, this.cachingOf(child)), uid ? this.index.anyOf(uid) : undefined);
    };
    this.childInformers = spec.children.map((t) => {
      const informer = new Informer<KubeObject>(client, t, { ...informerOpts, labelSelector: spec.parentLabel, transform });
      return informer.on((e) => this.onChild(e));
    });
    for (const source of spec.relatedSources ?? []) {
      // Every object of a kind another controller holds as its parents: that cache, not a second copy.
      const whole = !source.namespace && !source.labelSelector && !source.fieldSelector;
      const shared = whole ? opts.parentCacheOf?.(source.resource) : undefined;
      const informer = shared ?? new Informer<KubeObject>(client, source.resource, { ...informerOpts, namespace: source.namespace, labelSelector: source.labelSelector, fieldSelector: source.fieldSelector, transform: source.transform });
      if (!shared) this.ownRelated.push(informer);
      informer.on((e) => {
        if (source.changed && !source.changed(e.object, e.old)) return;
        for (const key of new Set([...source.parentsOf(e.object, this.parents), ...(e.old ? source.parentsOf(e.old, this.parents) : [])])) this.request(key);
      });
      this.related[source.name] = informer;
    }
    this.metrics = opts.metrics ?? new LoopMetrics(new Registry());
    this.metrics.watchQueue(spec.name, () => this.queue?.size ?? 0);
  }

  private cachingOf(child: KubeObject): ChildCaching {
    return { keepStatus: this.spec.childStatusKinds?.includes(child.kind ?? '') ?? false, dropData: this.spec.childDataHeldBack?.(child) ?? false };
  }

  /** A queue for one lead: the one before it was shut down, and a shut-down queue takes no work. */
  private newQueue(): WorkQueue {
    const { metrics, opts, spec } = this;
    const controller = spec.name;
    return new WorkQueue(async (key, signal) => {
      const end = metrics.duration.startTimer({ controller });
      try {
        await this.reconcile(key, signal);
        metrics.reconciles.inc({ controller, result: 'ok' });
      } catch (err) {
        metrics.reconciles.inc({ controller, result: 'error' });
        throw err;
      } finally {
        end();
      }
    }, {
      concurrency: opts.concurrency,
      backoff: opts.backoff,
      retryRate: opts.retryRate,
      onFailure: (key, error, attempt, retryInMs) => {
        this.stats.failures++;
        metrics.retries.inc({ controller });
        const advice = reconcileAdvice(spec.parent, key, messageOf(error));
        this.log('reconcile failed; retrying', { controller: spec.name, key, attempt, retryInMs, error: messageOf(error), ...(advice ? { advice } : {}) });
      },
    });
  }

  /** True once every cache has loaded its first list. */
  get synced(): boolean {
    return this.ready;
  }

  /** True when no reconcile is running, queued or waiting for a retry (always, while this controller does not reconcile). */
  get idle(): boolean {
    return !this.queue || this.queue.idle;
  }

  /** Resolves once every cache has loaded its first list. */
  whenSynced(): Promise<void> {
    return this.ready ? Promise.resolve() : new Promise((resolve) => this.readyResolvers.push(resolve));
  }

  private onChild(event: CacheEvent<KubeObject>): void {
    this.index.update(event);
    const keys = new Set(parentKeysOf(event.object, this.spec.parent, this.spec.parentLabel));
    if (event.old) for (const key of parentKeysOf(event.old, this.spec.parent, this.spec.parentLabel)) keys.add(key);
    for (const key of keys) this.request(key);
  }

  /**
   * Asks for a reconcile of the parent with this key. Dropped while this controller does not
   * reconcile: before the caches are synced, and while another replica leads. The next lead
   * begins with every parent, so nothing dropped is lost.
   */
  request(key: string): void {
    void this.queue?.enqueue(key);
  }

  /** Reconciles one parent now (after any run in flight), resolving with the outcome; refused while this controller does not reconcile. */
  reconcileNow(key: string): Promise<RunOutcome> {
    return this.queue?.enqueue(key) ?? Promise.resolve({ ok: false, error: new QueueClosedError('the controller does not reconcile: not leading, or its caches are not synced') });
  }

  private enqueueAll(): void {
    for (const parent of this.parents.list()) this.request(objectKey(parent));
  }

  /** Caches and reconciles together until `signal` aborts: `runCaches` and `lead` at once, for a controller with no leader election. */
  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.runCaches(signal), this.lead(signal)]);
  }

  /**
   * Runs the caches (parent, children, related objects) until `signal` aborts, whether or not
   * this replica leads: a lead that ends and begins again finds them warm, and a follower that
   * takes over does not list anything (controller-runtime's caches live as long as the process too).
   */
  async runCaches(signal: AbortSignal): Promise<void> {
    const informers = [this.parents, ...this.childInformers, ...this.ownRelated];
    // Every informer listens for the stop; one signal of this controller's own carries them all.
    const stopCaches = new AbortController();
    setMaxListeners(informers.length + 8, stopCaches.signal);
    const running = informers.map((i) => i.run(stopCaches.signal));
    const aborted = untilAborted(signal);
    await Promise.race([Promise.all([...informers, ...Object.values(this.related)].map((i) => i.synced)), aborted]);
    if (!signal.aborted) {
      this.ready = true;
      for (const resolve of this.readyResolvers.splice(0)) resolve();
      this.log('caches synced', { controller: this.spec.name, parents: this.parents.store.size });
    }
    await aborted;
    stopCaches.abort();
    await Promise.all(running);
  }

  /**
   * Reconciles until `signal` aborts (the lead ends, or the process stops): once the caches are
   * synced every cached parent once, then on every change and on every relist period. On abort
   * the queue is emptied, in-flight reconciles may finish for the shutdown grace, and the
   * caches keep running.
   */
  async lead(signal: AbortSignal): Promise<void> {
    const aborted = untilAborted(signal);
    await Promise.race([this.whenSynced(), aborted]);
    if (signal.aborted) return;
    const queue = (this.queue = this.newQueue());
    this.enqueueAll();
    const resync = setInterval(() => this.enqueueAll(), this.opts.relistIntervalMs ?? 5 * 60_000);
    await aborted;
    this.queue = undefined;
    clearInterval(resync);
    for (const timer of this.resyncTimers.values()) clearTimeout(timer);
    this.resyncTimers.clear();
    const drained = await queue.shutdown(this.opts.shutdownGraceMs ?? 10_000);
    if (!drained) this.log('shutdown: reconciles still running were abandoned', { controller: this.spec.name });
  }

  /**
   * One reconcile of one parent: the hook, the children, the status. Once `stop` aborts (the
   * shutdown grace ran out, or the Lease is gone) it writes nothing more.
   */
  private async reconcile(key: string, stop: AbortSignal): Promise<void> {
    this.cancelResync(key);
    const ref = refOf(this.spec.parent, key);
    const cached = this.parents.get(ref.name, ref.namespace);
    if (!cached) return;
    this.stats.reconciles++;
    const uid = cached.metadata?.uid ?? '';
    if (cached.metadata?.deletionTimestamp) return this.finalize(cached, stop);
    // The parent's type is what the kind's hook reads it as; the hook checks every field it reads.
    const parent = (await this.ensureFinalizer(cached, stop)) as Parent;
    const observed = this.index.of(uid);
    const input: HookInput<Config, Related, Parent> = {
      parent,
      children: childrenMap(observed, this.spec.children),
      related: await this.spec.related(parent, this.related as RelatedCaches<Cache>, { signal: stop }),
      now: (this.opts.clock ?? (() => new Date()))(),
      config: this.spec.config,
    };
    const output = this.spec.hook(input);
    if (output.parentChange) return this.changeParent(parent, output.parentChange, stop);
    if (output.parentDeletion) return this.deleteParent(parent, output.parentDeletion, stop);
    const errors: ChildError[] = [];
    const desired: KubeObject[] = [];
    const held: KubeObject[] = [];
    for (const child of output.children) {
      if (isHeldAsObserved(child, observed)) {
        held.push(child);
        continue;
      }
      try {
        desired.push(decorateChild(child, { parent, parentResource: this.spec.parent, parentLabel: this.spec.parentLabel }));
      } catch (err) {
        errors.push({ child: childName(child), message: messageOf(err) });
      }
    }
    const plan = planChildren(desired, observed, held);
    const stored: KubeObject[] = [];
    for (const wave of plan.apply) {
      stopIfAborted(stop);
      await Promise.all(wave.map((child) => this.applyChild(child, stop).then((answer) => stored.push(answer), (err: unknown) => errors.push({ child: childName(child), message: messageOf(err) }))));
    }
    stopIfAborted(stop);
    await Promise.all(plan.prune.map((child) => this.deleteChild(child, stop).catch((err: unknown) => errors.push({ child: childName(child), message: messageOf(err) }))));
    // The status says what this reconcile left: the hook again with the children as the API
    // server answered their applies (not waiting for their watch events, which would cost a
    // second status write) and with the children that failed and why.
    const settled = errors.length || stored.length ? this.spec.hook({ ...input, children: stored.length ? childrenMap(withApplied(observed, stored, (child) => this.cachingOf(child)), this.spec.children) : input.children, ...(errors.length ? { errors } : {}) }) : output;
    stopIfAborted(stop);
    await this.writeStatus(parent, settled.status, stop);
    if (errors.length) throw new ChildrenFailedError(errors);
    await this.recordEvents(parent, output.events ?? []);
    if (output.resyncAfterMs !== undefined && output.resyncAfterMs > 0 && this.queue && !stop.aborted) this.scheduleResync(key, output.resyncAfterMs);
  }

  /** A merge patch guarded by the resourceVersion the hook saw, then the events it asked for. */
  private async changeParent(parent: KubeObject, change: ParentChange, stop: AbortSignal): Promise<void> {
    stopIfAborted(stop);
    const { name = '', namespace, resourceVersion } = parent.metadata ?? {};
    let changed: KubeObject;
    try {
      changed = await this.client.patch<KubeObject>(this.spec.parent, name, {
        metadata: { resourceVersion, ...(change.annotations ? { annotations: change.annotations } : {}) },
        ...(change.spec ? { spec: change.spec } : {}),
      }, { namespace, type: 'merge', fieldManager: FIELD_MANAGERS.manager, signal: stop });
    } catch (err) {
      const refused = err instanceof KubeApiError && [400, 403, 422].includes(err.status);
      if (!refused || !change.onRefusal) throw err;
      const said = messageOf(err);
      return this.changeParent(parent, { ...change.onRefusal, events: (change.onRefusal.events ?? []).map((e) => ({ ...e, message: `${e.message} The cluster said: ${said}` })) }, stop);
    }
    await this.recordEvents(changed, change.events ?? []);
  }

  /** The parent deleted if it is still as the hook saw it (a 409 otherwise), then its claims, then the events. */
  private async deleteParent(parent: KubeObject, deletion: ParentDeletion, stop: AbortSignal): Promise<void> {
    stopIfAborted(stop);
    const { name = '', namespace, uid, resourceVersion } = parent.metadata ?? {};
    await this.client.delete(this.spec.parent, name, namespace, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', preconditions: { uid, resourceVersion } }, { signal: stop });
    this.log('deleted', { controller: this.spec.name, parent: objectKey(parent), claims: deletion.claims });
    for (const claim of deletion.claims) {
      await this.client.delete(RESOURCES.persistentVolumeClaim, claim, namespace, undefined, { signal: stop }).catch((err: unknown) => {
        if (!isNotFound(err)) this.log('cannot delete claim', { controller: this.spec.name, parent: objectKey(parent), claim, error: messageOf(err) });
      });
    }
    await this.recordEvents(parent, deletion.events);
  }

  /** Den's Events about `parent` (kube/den-events.ts), counted when they repeat. */
  private async recordEvents(parent: KubeObject, events: readonly ParentEvent[]): Promise<void> {
    const { apiVersion, kind } = this.spec.parent;
    const { name = '', namespace = '', uid } = parent.metadata ?? {};
    const ref = { name, namespace, ...(uid ? { uid } : {}), objectType: { apiVersion, kind } };
    for (const event of events) {
      this.metrics.events.inc({ controller: this.spec.name, reason: event.reason });
      this.log('event', { controller: this.spec.name, parent: objectKey(parent), reason: event.reason, message: event.message });
      // What the Event tells of is written; a lost Event must not make the loop write it again.
      await this.events.record(this.client, ref, { type: event.type, reason: event.reason, message: event.message, annotations: event.annotations ?? {} }).catch((err: unknown) =>
        this.log('cannot record event', { controller: this.spec.name, parent: objectKey(parent), reason: event.reason, error: messageOf(err) }),
      );
    }
  }

  private scheduleResync(key: string, afterMs: number): void {
    this.cancelResync(key);
    this.resyncTimers.set(key, setTimeout(() => {
      this.resyncTimers.delete(key);
      this.request(key);
    }, afterMs));
  }

  private cancelResync(key: string): void {
    clearTimeout(this.resyncTimers.get(key));
    this.resyncTimers.delete(key);
  }

  // Every write of a reconcile takes its `stop`: a write still waiting for the rate limit (or
  // on the wire) when the lead ends is abandoned, not sent after a successor may have begun.
  private async applyChild(child: KubeObject, stop: AbortSignal): Promise<KubeObject> {
    const resource = resourceOf(child.apiVersion ?? '', child.kind ?? '')!;
    this.stats.applies++;
    return this.client.apply(resource, child, FIELD_MANAGERS.manager, { signal: stop });
  }

  private async deleteChild(child: KubeObject, stop: AbortSignal): Promise<void> {
    const resource = resourceOf(child.apiVersion ?? '', child.kind ?? '');
    if (!resource) return;
    this.stats.deletes++;
    try {
      await this.client.delete(resource, child.metadata?.name ?? '', child.metadata?.namespace, { propagationPolicy: 'Background' }, { signal: stop });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** Writes status only when it changed; on a conflict re-reads the parent and tries again while its spec is unchanged. */
  private async writeStatus(parent: KubeObject, hookStatus: Record<string, unknown>, stop: AbortSignal): Promise<void> {
    let current = parent;
    const retries = this.opts.statusConflictRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      const status = desiredStatus(hookStatus, current, this.spec.foreignStatusFields);
      if (sameStatus(status, current.status)) return;
      try {
        this.stats.statusWrites++;
        await this.client.replace(this.spec.parent, { ...current, status }, { subresource: 'status', signal: stop });
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= retries) throw err;
        const { name, namespace } = current.metadata ?? {};
        const fresh = await this.client.get<KubeObject>(this.spec.parent, name ?? '', namespace, { signal: stop });
        // A new generation or a new object needs a new hook run, which its watch event brings.
        if (fresh.metadata?.uid !== current.metadata?.uid || fresh.metadata?.generation !== current.metadata?.generation) throw err;
        current = fresh;
      }
    }
  }

  private async ensureFinalizer(parent: KubeObject, stop: AbortSignal): Promise<KubeObject> {
    const name = this.spec.finalizer?.name;
    const finalizers = parent.metadata?.finalizers ?? [];
    if (!name || finalizers.includes(name)) return parent;
    return this.client.patch<KubeObject>(this.spec.parent, parent.metadata?.name ?? '', {
      metadata: { finalizers: [...finalizers, name], resourceVersion: parent.metadata?.resourceVersion },
    }, { namespace: parent.metadata?.namespace, type: 'merge', signal: stop });
  }

  private async finalize(parent: KubeObject, stop: AbortSignal): Promise<void> {
    const finalizer = this.spec.finalizer;
    const finalizers = parent.metadata?.finalizers ?? [];
    const uid = parent.metadata?.uid ?? '';
    if (!finalizer || !finalizers.includes(finalizer.name) || this.finalized.has(uid)) return;
    await finalizer.finalize(parent, { client: this.client, children: this.index.of(parent.metadata?.uid ?? ''), log: this.log });
    stopIfAborted(stop);
    try {
      await this.client.patch(this.spec.parent, parent.metadata?.name ?? '', {
        metadata: { finalizers: finalizers.filter((f) => f !== finalizer.name), resourceVersion: parent.metadata?.resourceVersion },
      }, { namespace: parent.metadata?.namespace, type: 'merge', signal: stop });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    this.finalized.add(uid);
    this.log('finalized', { controller: this.spec.name, parent: objectKey(parent), finalizer: finalizer.name });
  }
}
