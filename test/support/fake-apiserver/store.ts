// The fake API server's storage: objects by kind and key under one resourceVersion counter, their
// watch events, lists and field selectors, and the controllers that act on what is stored
// (garbage collection by ownerReferences, namespace termination, the quota controller).
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../../kube/client.js';
import { groupOf, RESOURCES, type ResourceType } from '../../../kube/resources.js';
import { fixture } from '../fixtures.js';
import { ApiError, status } from './api-error.js';
import { EXTRA_TYPES, GENERATION_TRACKED, isCore, isNamespace, keyOf, namespaceFinalized, specOf, STATUS_SUBRESOURCE, timestamp, typeKey } from './helpers.js';
import type { LatencyProfile } from './latency.js';
import { clone } from './patch.js';
import { quotaStatus, quotaTracks, type Quota } from './quota.js';
import { CrdSchemas } from './schema.js';
import { FieldSelectorError, parseFieldSelector, parseLabelSelector } from './selectors.js';
import { WatchHub, type WatchEntry } from './watch.js';

export interface FakeApiServerOptions {
  /** Seed `default`, `kube-system` and `svc-system`, and the recorded `kubernetes` Service and EndpointSlice. */
  seedCluster?: boolean;
  /** Events kept for watches; older resourceVersions answer 410 Gone. */
  historyLimit?: number;
  /** Milliseconds between a write's response and its watch events (default 0: right after the response). */
  watchLagMs?: number;
  /** Milliseconds between BOOKMARK events on watches that allow them (default 60000, as kube-apiserver). */
  bookmarkIntervalMs?: number;
  /** Audiences a ServiceAccount token must carry one of (kube-apiserver --api-audiences). */
  apiAudiences?: string[];
  /** How long answers take and how many are served at once (default: instant, no limit). */
  latency?: LatencyProfile;
  /**
   * The quota controller (kube-controller-manager's): 'immediate' recounts a namespace's
   * ResourceQuotas right after a write (asynchronously, as the real one), 'stopped' never does.
   */
  quotaController?: QuotaControllerMode;
  /** Milliseconds a token accepted once stays accepted without a look (kube-apiserver's token cache: 10 s; 0: none). */
  tokenCacheTtlMs?: number;
  /** Milliseconds the fake kubelet takes to finish a bound pod's graceful deletion (default 20). */
  podTerminationMs?: number;
}

export type QuotaControllerMode = 'immediate' | 'stopped';

export abstract class Store {
  protected types = new Map<string, ResourceType>();

  protected data = new Map<string, Map<string, KubeObject>>();

  protected readonly hub: WatchHub;
  protected rv = 1000;

  /** Terminating namespaces whose next controller pass is scheduled. */
  protected cleanups = new Set<string>();

  /** Namespaces whose quotas the quota controller recounts on its next pass. */
  protected quotaRecounts = new Set<string>();

  protected quotaMode: QuotaControllerMode;
  /**
   * Quota keys the quota controller cannot count yet (a custom resource it has not discovered):
   * it writes them in status.hard but not in status.used, as kube-controller-manager does.
   */
  protected uncountedQuotaKeys = new Set<string>();

  readonly schemas = new CrdSchemas();

  constructor(protected readonly opts: FakeApiServerOptions = {}) {
    this.hub = new WatchHub({ historyLimit: opts.historyLimit ?? 50_000, lagMs: opts.watchLagMs ?? 0, bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000 });
    this.quotaMode = opts.quotaController ?? 'immediate';
    for (const t of [...Object.values(RESOURCES), ...EXTRA_TYPES]) this.types.set(typeKey(t), t);
  }

  /** Stores objects as they are (no authentication, admission or validation), emitting watch events. */
  seed(...objects: KubeObject[]): KubeObject[] {
    return objects.map((o) => {
      const t = this.typeOfObject(o);
      const existing = this.find(t, o.metadata?.namespace, o.metadata!.name!);
      const obj = this.stamp(clone(o), t, existing);
      this.put(t, obj, existing ? 'MODIFIED' : 'ADDED');
      return clone(obj);
    });
  }

  /** Removes an object directly (no finalizers), as if it vanished. */
  remove(t: ResourceType, name: string, namespace?: string): void {
    const obj = this.find(t, namespace, name);
    if (obj) this.drop(t, obj);
  }

  object<T = KubeObject>(t: ResourceType, name: string, namespace?: string): T | undefined {
    const o = this.find(t, namespace, name);
    return o ? (clone(o) as T) : undefined;
  }

  objects<T = KubeObject>(t: ResourceType, namespace?: string): T[] {
    const all = [...(this.data.get(typeKey(t))?.values() ?? [])];
    return clone(all.filter((o) => namespace === undefined || o.metadata?.namespace === namespace)) as T[];
  }

  /** How many stored objects of a type pass `filter` (read in place: no copies, for polling many objects). */
  count(t: ResourceType, filter: (o: Readonly<KubeObject>) => boolean): number {
    let n = 0;
    for (const o of this.data.get(typeKey(t))?.values() ?? []) if (filter(o)) n++;
    return n;
  }

  /** Registers CRDs (as `infra` renders them): their schemas default and validate den.dev objects. */
  installCrds(crds: KubeObject[]): void {
    for (const crd of crds) {
      this.schemas.register(crd);
      const spec = (crd as { spec: { group: string; scope: string; names: { kind: string; plural: string }; versions: { name: string; served?: boolean }[] } }).spec;
      for (const v of spec.versions.filter((x) => x.served !== false)) {
        const t: ResourceType = { apiVersion: `${spec.group}/${v.name}`, kind: spec.names.kind, plural: spec.names.plural, namespaced: spec.scope === 'Namespaced' };
        if (!this.types.has(typeKey(t))) this.types.set(typeKey(t), t);
      }
      this.seed(crd);
    }
  }

  /**
   * Starts or stops the quota controller; started, it recounts every namespace's quotas at once,
   * leaving `uncounted` keys out of status.used (as before it has discovered a custom resource).
   */
  setQuotaController(mode: QuotaControllerMode, opts: { uncounted?: string[] } = {}): void {
    this.quotaMode = mode;
    this.uncountedQuotaKeys = new Set(opts.uncounted ?? []);
    if (mode === 'stopped') return;
    for (const q of this.data.get(typeKey(RESOURCES.resourceQuota))?.values() ?? []) this.scheduleQuotaRecount(q.metadata!.namespace!);
  }

  get resourceVersion(): number {
    return this.rv;
  }

  protected seedCluster(): void {
    for (const name of ['default', 'kube-system', 'svc-system']) this.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const svc = fixture('service-kubernetes.json').body;
    this.seed(this.strip(svc));
    for (const slice of fixture('endpointslices-kubernetes.json').body.items) this.seed({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', ...this.strip(slice) });
  }

  protected strip(o: any): KubeObject {
    const copy = clone(o);
    delete copy.metadata.managedFields;
    delete copy.metadata.resourceVersion;
    return copy;
  }

  /** Kinds a CRD serves (Den's, and any installed): no strategic merge patch, a generation always. */
  protected isCustom(t: ResourceType): boolean {
    return groupOf(t.apiVersion).endsWith('den.dev') || this.schemas.listKeysOf(t.apiVersion, t.kind) !== undefined;
  }

  /** Kinds whose status is written only through the status subresource. */
  protected hasStatusSubresource(t: ResourceType): boolean {
    return STATUS_SUBRESOURCE.has(t.plural) || this.schemas.hasStatus(t.apiVersion, t.kind);
  }

  protected typeOfObject(o: KubeObject): ResourceType {
    for (const t of this.types.values()) if (t.apiVersion === o.apiVersion && t.kind === o.kind) return t;
    throw new Error(`fake apiserver: unknown kind ${o.kind} ${o.apiVersion}`);
  }

  protected find(t: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.data.get(typeKey(t))?.get(keyOf(t.namespaced ? namespace : undefined, name));
  }

  protected mustFind(t: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const o = this.find(t, namespace, name);
    if (!o) throw this.notFound(t, name);
    return o;
  }

  protected notFound(t: ResourceType, name: string): ApiError {
    const group = groupOf(t.apiVersion);
    const label = group ? `${t.plural}.${group}` : t.plural;
    return new ApiError(404, status(404, 'NotFound', `${label} "${name}" not found`, { name, ...(group ? { group } : {}), kind: t.plural }));
  }

  protected stamp(obj: KubeObject, t: ResourceType, existing?: KubeObject): KubeObject {
    obj.apiVersion = t.apiVersion;
    obj.kind = t.kind;
    const md = (obj.metadata ??= {});
    md.uid = existing?.metadata?.uid ?? md.uid ?? randomUUID();
    md.creationTimestamp = existing?.metadata?.creationTimestamp ?? md.creationTimestamp ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    if (GENERATION_TRACKED.has(t.plural) || this.isCustom(t)) {
      const prev = existing?.metadata?.generation ?? 0;
      const changed = !existing || JSON.stringify(specOf(existing)) !== JSON.stringify(specOf(obj));
      md.generation = changed ? prev + 1 : prev;
    }
    if (isNamespace(t)) {
      md.labels = { ...md.labels, 'kubernetes.io/metadata.name': md.name! };
      if (!existing) {
        const ns = obj as KubeObject & { spec?: { finalizers?: string[] }; status?: { phase?: string } };
        ns.spec = { finalizers: ['kubernetes'], ...ns.spec };
        ns.status = { phase: 'Active', ...ns.status };
      }
    }
    md.resourceVersion = String(++this.rv);
    return obj;
  }

  protected put(t: ResourceType, obj: KubeObject, type: 'ADDED' | 'MODIFIED'): void {
    const key = typeKey(t);
    let bucket = this.data.get(key);
    if (!bucket) this.data.set(key, (bucket = new Map()));
    const objectKey = keyOf(t.namespaced ? obj.metadata?.namespace : undefined, obj.metadata!.name!);
    const previous = bucket.get(objectKey);
    bucket.set(objectKey, obj);
    this.publish({ rv: this.rv, type, typeKey: key, object: obj, ...(type === 'MODIFIED' && previous ? { previous } : {}) });
    // The quota controller looks at a quota again only when its spec.hard changes (not its status).
    const hardUnchanged = isCore(t, 'resourcequotas') && previous !== undefined && JSON.stringify((previous as Quota).spec?.hard) === JSON.stringify((obj as Quota).spec?.hard);
    if (t.namespaced && !hardUnchanged) this.refreshQuotas(obj.metadata!.namespace!, key);
  }

  protected drop(t: ResourceType, obj: KubeObject): void {
    const key = typeKey(t);
    this.data.get(key)?.delete(keyOf(t.namespaced ? obj.metadata?.namespace : undefined, obj.metadata!.name!));
    const gone = clone(obj);
    gone.metadata!.resourceVersion = String(++this.rv);
    this.publish({ rv: this.rv, type: 'DELETED', typeKey: key, object: gone });
    this.collectDependents(obj);
    const ns = t.namespaced ? obj.metadata?.namespace : undefined;
    if (ns) this.refreshQuotas(ns, key);
    if (ns && this.find(RESOURCES.namespace, undefined, ns)?.metadata?.deletionTimestamp) this.scheduleNamespaceCleanup(ns);
  }

  /**
   * Background cascading deletion: dependents whose owners are all gone are deleted as a
   * DELETE would (finalizers honoured). The contents of a namespace that vanished without
   * terminating (remove()) vanish with it.
   */
  protected collectDependents(owner: KubeObject): void {
    const uid = owner.metadata!.uid;
    const isNamespace = owner.kind === 'Namespace' && owner.apiVersion === 'v1';
    for (const [key, bucket] of this.data) {
      const t = this.types.get(key)!;
      for (const o of [...bucket.values()]) {
        const refs = o.metadata?.ownerReferences ?? [];
        const owned = refs.some((r) => r.uid === uid);
        const inNamespace = isNamespace && t.namespaced && o.metadata?.namespace === owner.metadata!.name;
        if (inNamespace) this.drop(t, o);
        else if (owned && !refs.some((r) => r.uid !== uid && this.uidExists(r.uid))) this.deleteObject(t, o);
      }
    }
  }

  protected uidExists(uid: string): boolean {
    for (const bucket of this.data.values()) for (const o of bucket.values()) if (o.metadata?.uid === uid) return true;
    return false;
  }

  protected publish(entry: WatchEntry): void {
    this.hub.publish(entry);
  }

  protected list(t: ResourceType, namespace: string | undefined, q: URLSearchParams) {
    const labels = parseLabelSelector(q.get('labelSelector') ?? undefined);
    const fields = this.fieldFilter(t, q);
    const items = [...(this.data.get(typeKey(t))?.values() ?? [])]
      .filter((o) => namespace === undefined || o.metadata?.namespace === namespace)
      .filter((o) => labels(o.metadata?.labels) && fields(o))
      .sort((a, b) => keyOf(a.metadata?.namespace, a.metadata!.name!).localeCompare(keyOf(b.metadata?.namespace, b.metadata!.name!)));
    return { kind: `${t.kind}List`, apiVersion: t.apiVersion, metadata: { resourceVersion: String(this.rv) }, items };
  }

  /** The request's field selector, limited to the fields kube-apiserver supports for the resource (400 otherwise). */
  protected fieldFilter(t: ResourceType, q: URLSearchParams): (o: KubeObject) => boolean {
    const group = groupOf(t.apiVersion);
    const crd = [...(this.data.get(typeKey(RESOURCES.customResourceDefinition))?.values() ?? [])].find((c: any) => c.spec?.group === group && c.spec?.names?.plural === t.plural) as any;
    const version = crd?.spec?.versions?.find((v: any) => `${group}/${v.name}` === t.apiVersion);
    const selectable = ((version?.selectableFields ?? []) as { jsonPath: string }[]).map((f) => f.jsonPath.replace(/^\./, ''));
    try {
      return parseFieldSelector(q.get('fieldSelector') ?? undefined, `${t.plural}.${group}`, selectable, crd !== undefined);
    } catch (err) {
      if (err instanceof FieldSelectorError) throw new ApiError(400, status(400, 'BadRequest', err.message));
      throw err;
    }
  }

  /** The namespace's ResourceQuotas. */
  protected quotasIn(namespace: string): Quota[] {
    const quotas = this.data.get(typeKey(RESOURCES.resourceQuota));
    return [...(quotas?.values() ?? [])].filter((o) => o.metadata?.namespace === namespace) as Quota[];
  }

  /** After a write of `changed` (a `<plural>.<group>`): the quota controller recounts the namespace if a quota there counts it. */
  protected refreshQuotas(namespace: string, changed: string): void {
    const hardKeys = this.quotasIn(namespace).flatMap((o) => Object.keys(o.spec?.hard ?? {}));
    if (changed !== typeKey(RESOURCES.resourceQuota) && !quotaTracks(changed, hardKeys)) return;
    this.scheduleQuotaRecount(namespace);
  }

  /** As kube-controller-manager's quota controller: a pass soon after the change, never while stopped. */
  protected scheduleQuotaRecount(namespace: string): void {
    if (this.quotaMode === 'stopped' || this.quotaRecounts.has(namespace)) return;
    this.quotaRecounts.add(namespace);
    setImmediate(() => {
      this.quotaRecounts.delete(namespace);
      if (this.quotaMode !== 'stopped') this.recountQuotas(namespace);
    });
  }

  /** One pass of the quota controller: status.hard and status.used of the namespace's ResourceQuotas, written when they change. */
  protected recountQuotas(namespace: string): void {
    const inNamespace = this.quotasIn(namespace);
    const hardKeys = inNamespace.flatMap((o) => Object.keys(o.spec?.hard ?? {}));
    const objects = [...this.data].filter(([key]) => quotaTracks(key, hardKeys)).flatMap(([key, bucket]) => [...bucket.values()].filter((o) => o.metadata?.namespace === namespace).map((object) => ({ resource: key, object })));
    for (const quota of inNamespace) {
      const next = quotaStatus(quota, objects);
      for (const key of this.uncountedQuotaKeys) delete next.used[key];
      if (JSON.stringify(next) === JSON.stringify({ hard: quota.status?.hard, used: quota.status?.used })) continue;
      this.put(RESOURCES.resourceQuota, this.stamp({ ...clone(quota), status: next } as KubeObject, RESOURCES.resourceQuota, quota), 'MODIFIED');
    }
  }

  /** A DELETE: an object with finalizers (or a namespace) is marked and stays until they are done. */
  protected deleteObject(t: ResourceType, existing: KubeObject): KubeObject {
    if (isNamespace(t)) return this.terminateNamespace(existing);
    if (existing.metadata?.finalizers?.length) {
      if (existing.metadata.deletionTimestamp) return existing;
      const marked = clone(existing);
      marked.metadata!.deletionTimestamp = timestamp();
      const stored = this.stamp(marked, t, existing);
      this.put(t, stored, 'MODIFIED');
      return stored;
    }
    this.drop(t, existing);
    return existing;
  }

  /**
   * As kube-apiserver and the namespace controller do it: the namespace turns Terminating
   * at once; its contents are deleted afterwards (those with finalizers wait for them), and
   * the namespace goes only once it is empty and its `kubernetes` finalizer is removed.
   */
  protected terminateNamespace(ns: KubeObject): KubeObject {
    if (ns.metadata?.deletionTimestamp) return ns;
    const marked = clone(ns) as KubeObject & { status?: Record<string, unknown> };
    marked.metadata!.deletionTimestamp = timestamp();
    marked.status = { ...marked.status, phase: 'Terminating' };
    const stored = this.stamp(marked, RESOURCES.namespace, ns);
    this.put(RESOURCES.namespace, stored, 'MODIFIED');
    this.scheduleNamespaceCleanup(ns.metadata!.name!);
    return stored;
  }

  protected scheduleNamespaceCleanup(name: string): void {
    if (this.cleanups.has(name)) return;
    this.cleanups.add(name);
    setImmediate(() => {
      this.cleanups.delete(name);
      this.cleanNamespace(name);
    });
  }

  /** One pass of the namespace controller over a terminating namespace. */
  protected cleanNamespace(name: string): void {
    const ns = this.find(RESOURCES.namespace, undefined, name) as (KubeObject & { spec?: { finalizers?: string[] } }) | undefined;
    if (!ns?.metadata?.deletionTimestamp) return;
    const contents = () => [...this.data].flatMap(([key, bucket]) => [...bucket.values()].filter((o) => this.types.get(key)!.namespaced && o.metadata?.namespace === name).map((o) => [this.types.get(key)!, o] as const));
    for (const [t, o] of contents()) if (this.find(t, name, o.metadata!.name!) === o) this.deleteObject(t, o);
    if (contents().length > 0) return; // finalizers pending: a later drop in the namespace runs this again
    if (ns.spec?.finalizers?.includes('kubernetes')) {
      const finalized = clone(ns) as typeof ns;
      finalized.spec!.finalizers = ns.spec.finalizers.filter((f) => f !== 'kubernetes');
      const stored = this.stamp(finalized, RESOURCES.namespace, ns);
      this.put(RESOURCES.namespace, stored, 'MODIFIED');
      if (namespaceFinalized(stored)) this.drop(RESOURCES.namespace, stored);
    } else if (namespaceFinalized(ns)) this.drop(RESOURCES.namespace, ns);
  }
}
