// List-then-watch cache of one resource type, with periodic relist and recovery from
// 410 Gone. Readers (the reconcile loop, webhooks, the gateway) ask the cache instead
// of listing the API server on every request.
import type { KubeClient, KubeObject, WatchEvent } from './client.js';
import { isGone } from './errors.js';
import { sleep } from '../process/timers.js';
import { intern, internObject } from './intern.js';
import { resourcePath, type ResourceType } from './resources.js';

export type CacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface CacheEvent<T> {
  type: CacheEventType;
  object: T;
  /** The cached object before a MODIFIED or DELETED event. */
  old?: T;
}

export type CacheStore<T> = Map<string, T>;

/** `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(obj: Pick<KubeObject, 'metadata'>): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

/** objectKey as one flat string, for a key a map keeps (a joined string holds its parts). */
function storedKey(obj: Pick<KubeObject, 'metadata'>): string {
  return intern(objectKey(obj));
}

/** Applies one watch event to the store and says what changed (undefined for bookmarks and no-ops). */
export function applyWatchEvent<T extends KubeObject>(store: CacheStore<T>, event: WatchEvent<T>): CacheEvent<T> | undefined {
  if (event.type === 'BOOKMARK' || event.type === 'ERROR') return undefined;
  const key = storedKey(event.object);
  const old = store.get(key);
  if (event.type === 'DELETED') {
    if (!old) return undefined;
    store.delete(key);
    return { type: 'DELETED', object: event.object, old };
  }
  if (old && old.metadata?.resourceVersion === event.object.metadata?.resourceVersion) return undefined;
  store.set(key, event.object);
  return old ? { type: 'MODIFIED', object: event.object, old } : { type: 'ADDED', object: event.object };
}

/** Replaces the store's content with a fresh list and says what changed. */
export function replaceStore<T extends KubeObject>(store: CacheStore<T>, items: T[]): CacheEvent<T>[] {
  const events: CacheEvent<T>[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    seen.add(objectKey(item));
    const change = applyWatchEvent(store, { type: 'MODIFIED', object: item });
    if (change) events.push(change);
  }
  for (const [key, old] of [...store]) {
    if (seen.has(key)) continue;
    store.delete(key);
    events.push({ type: 'DELETED', object: old, old });
  }
  return events;
}

/**
 * What a cache keeps of each object it receives (client-go's transform functions): a cache of
 * thousands of objects should hold only the fields its readers use.
 */
export type Transform<T> = (obj: T) => T;

/**
 * client-go's TransformStripManagedFields: managedFields are the API server's bookkeeping of
 * server-side apply, often the largest part of an object, and no cache reader uses them.
 * Every informer applies it unless told otherwise.
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  if (!obj.metadata?.managedFields) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

export interface InformerOptions<T extends KubeObject = KubeObject> {
  /** Applied to every listed and watched object before it is cached (default: stripManagedFields). */
  transform?: Transform<T>;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Items per list request (default DEFAULT_PAGE_SIZE). */
  pageSize?: number;
  /** A full relist at this period repairs anything a watch missed. */
  relistIntervalMs?: number;
  /** Delay before re-trying after an error; doubled up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  onError?: (err: unknown) => void;
}

/** Items per list request of a relist, as client-go's reflector. */
export const DEFAULT_PAGE_SIZE = 500;

type Handler<T> = (event: CacheEvent<T>) => void;

export class Informer<T extends KubeObject = KubeObject> {
  readonly store: CacheStore<T> = new Map();
  private handlers: Handler<T>[] = [];
  private resourceVersion: string | undefined;
  private readonly transform: Transform<T>;
  /** The object prepared last, whose equal parts the next new object shares. */
  private lastPrepared: T | undefined;
  private syncedResolve!: () => void;
  /** Settles once the first list has been loaded. */
  readonly synced: Promise<void> = new Promise((resolve) => (this.syncedResolve = resolve));

  constructor(
    private readonly client: KubeClient,
    readonly resource: ResourceType,
    private readonly opts: InformerOptions<T> = {},
  ) {
    this.transform = opts.transform ?? stripManagedFields;
  }

  on(handler: Handler<T>): this {
    this.handlers.push(handler);
    return this;
  }

  get(name: string, namespace?: string): T | undefined {
    return this.store.get(namespace ? `${namespace}/${name}` : name);
  }

  list(filter?: (obj: T) => boolean): T[] {
    const all = [...this.store.values()];
    return filter ? all.filter(filter) : all;
  }

  /**
   * The informer's transform, then one copy of each string across every cache and of each part
   * equal to the cached version of the same object, or else to the object prepared last
   * (kube/intern.ts). Cached objects are frozen.
   */
  private prepare(obj: T): T {
    const exemplar = this.store.get(objectKey(obj)) ?? this.lastPrepared;
    return (this.lastPrepared = internObject(this.transform(obj), exemplar));
  }

  private emit(event: CacheEvent<T>): void {
    for (const handler of this.handlers) {
      try {
        handler(event);
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
  }

  /**
   * Loads the full list, in pages of `pageSize` (client-go's reflector lists 500 at a time), and
   * reconciles the cache with it. Each page is transformed as it arrives, so the whole list is
   * never held as the API server sent it: 10,000 StatefulSets with their managedFields would
   * be tens of MiB at once. `signal` abandons the list, leaving the cache as it was.
   */
  async relist(signal?: AbortSignal): Promise<void> {
    const apiVersion = this.resource.apiVersion;
    const kind = this.resource.kind;
    const items: T[] = [];
    let next: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const page = await this.client.list<T>(this.resource, {
        namespace: this.opts.namespace,
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
        limit: this.opts.pageSize ?? DEFAULT_PAGE_SIZE,
        continue: next,
        signal,
      });
      resourceVersion = page.metadata?.resourceVersion;
      for (const item of page.items) {
        // An object the cache holds at this resourceVersion is kept as it is (replaceStore): not prepared again.
        const cached = this.store.get(objectKey(item));
        items.push(cached && cached.metadata?.resourceVersion === item.metadata?.resourceVersion ? cached : this.prepare({ apiVersion, kind, ...item }));
      }
      next = page.metadata?.continue || undefined;
    } while (next);
    this.resourceVersion = resourceVersion;
    for (const event of replaceStore(this.store, items)) this.emit(event);
    this.syncedResolve();
  }

  /** Watches from the cached resourceVersion until `signal` aborts or `forMs` has passed. */
  private async watch(signal: AbortSignal, forMs: number): Promise<void> {
    const watchAbort = new AbortController();
    const stop = () => watchAbort.abort();
    signal.addEventListener('abort', stop, { once: true });
    const timer = setTimeout(stop, forMs);
    try {
      await this.client.watch<T>(
        resourcePath(this.resource, { namespace: this.opts.namespace }),
        { resourceVersion: this.resourceVersion, labelSelector: this.opts.labelSelector, fieldSelector: this.opts.fieldSelector },
        (event) => {
          const rv = event.object?.metadata?.resourceVersion;
          if (rv) this.resourceVersion = rv;
          const change = applyWatchEvent(this.store, event.type === 'BOOKMARK' || event.type === 'ERROR' ? event : { type: event.type, object: this.prepare(event.object) });
          if (change) this.emit(change);
        },
        watchAbort.signal,
      );
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
  }

  /** Runs until `signal` aborts: list, then watch, relisting on 410 and on the relist period. */
  async run(signal: AbortSignal): Promise<void> {
    const base = this.opts.backoffMs ?? 500;
    let backoff = base;
    let lastList = 0;
    const relistEvery = this.opts.relistIntervalMs ?? 5 * 60_000;
    while (!signal.aborted) {
      try {
        if (this.resourceVersion === undefined || Date.now() - lastList >= relistEvery) {
          await this.relist(signal);
          lastList = Date.now();
        }
        await this.watch(signal, Math.max(1000, relistEvery - (Date.now() - lastList)));
        backoff = base;
      } catch (err) {
        if (signal.aborted) break;
        if (isGone(err)) {
          this.resourceVersion = undefined;
          continue;
        }
        this.opts.onError?.(err);
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, this.opts.maxBackoffMs ?? 30_000);
      }
    }
  }
}
