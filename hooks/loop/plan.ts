// Pure steps of one reconcile: decorate the hook's children with ownership, decide which
// to apply and which to delete, and compute the status to write.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../kube/client.js';
import { objectKey, type CacheEvent } from '../../kube/informer.js';
import { FIELD_MANAGERS, GROUP, LABELS } from '../../kube/group.js';
import { groupOf, resourceOf, type ResourceType } from '../../kube/resources.js';
import { intern, internObject } from '../../kube/intern.js';
import { childName, controllerOf, controllerReference } from './keys.js';
import type { ObservedChildren } from './types.js';

/** Hash of the desired child last applied; a change in the hook's output shows as a new hash. */
export const APPLIED_HASH_ANNOTATION = `${GROUP}/applied-hash`;

/** JSON with object keys sorted, so equal values always give equal text. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

export function hashOf(value: unknown): string {
  return createHash('sha256').update(stableJson(value)).digest('hex').slice(0, 16);
}

/**
 * True when every field of `desired` has the same value in `observed`. Arrays must match
 * element for element (an entry added by hand is a difference); fields the API server
 * added (defaults, managedFields, status) are not.
 */
export function isSubset(desired: unknown, observed: unknown): boolean {
  if (desired === undefined) return true;
  if (desired === null) return observed === null || observed === undefined;
  if (Array.isArray(desired)) {
    return Array.isArray(observed) && observed.length === desired.length && desired.every((d, i) => isSubset(d, observed[i]));
  }
  if (typeof desired === 'object') {
    if (!observed || typeof observed !== 'object' || Array.isArray(observed)) return false;
    return Object.entries(desired).every(([k, v]) => isSubset(v, (observed as Record<string, unknown>)[k]));
  }
  return desired === observed;
}

/** The identity of an object across API versions: group, kind, namespace, name. */
export function identityOf(obj: KubeObject): string {
  return `${groupOf(obj.apiVersion ?? '')}/${obj.kind ?? ''}/${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

/** Fields the API server writes; an apply body must not carry them. */
const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink'];

/** The child without what the API server wrote into it (bookkeeping, status, the loop's old hash). */
export function withoutServerFields(child: KubeObject): KubeObject {
  const { status: _status, ...rest } = child;
  const metadata: Record<string, unknown> = { ...child.metadata };
  for (const field of SERVER_METADATA) delete metadata[field];
  const annotations = { ...child.metadata?.annotations };
  delete annotations[APPLIED_HASH_ANNOTATION];
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  else delete metadata.annotations;
  return { ...rest, metadata };
}

/** What a child's cache keeps beyond what every cache keeps (the controller's spec says, per child). */
export interface ChildCaching {
  /** Its status: where a hook reads it. */
  keepStatus?: boolean;
  /** Not its `data`: a Secret whose data the hook never writes and the manager need not hold. */
  dropData?: boolean;
}

/**
 * What the child caches keep of an observed child: every field a hook may write (the loop
 * compares them to restore hand edits, and a hook holding its children reads them) and the
 * metadata the loop reads (name, namespace, uid and resourceVersion, labels, annotations,
 * owners, deletionTimestamp). The status only where `caching` says a hook reads it (the
 * UserSpace hook reads whether its ResourceQuota is counted): on a real cluster a
 * StatefulSet's status is a good part of the object. Nor the API server's bookkeeping no
 * reader uses (generation, creationTimestamp, managedFields, …), left out by destructuring:
 * `delete` would turn each cached metadata into a dictionary of its own, four times the size
 * of an object of a shared shape.
 */
export function childAsCached(child: KubeObject, caching: ChildCaching = {}): KubeObject {
  const { status, metadata, ...whole } = child;
  const { generation: _g, creationTimestamp: _c, deletionGracePeriodSeconds: _d, managedFields: _m, selfLink: _s, ...kept } = metadata ?? {};
  const { data: _data, ...withoutData } = whole as KubeObject & { data?: unknown };
  const rest = caching.dropData ? withoutData : whole;
  return caching.keepStatus && status !== undefined ? { ...rest, metadata: kept, status } : { ...rest, metadata: kept };
}

/**
 * `child` (a new object, as childAsCached returns it) holding the very ownerReferences and labels
 * of `sibling`, a cached child of the same parent, where they are equal. A Workspace's children
 * of every kind carry the same controller reference and mostly the same labels; each cache
 * shares parts only with objects of its own kind, so 34,000 children held 34,000 copies.
 */
export function withSiblingParts(child: KubeObject, sibling: KubeObject | undefined): KubeObject {
  const metadata = child.metadata;
  if (!metadata || !sibling?.metadata) return child;
  for (const part of ['ownerReferences', 'labels'] as const) {
    if (metadata[part] !== undefined) metadata[part] = internObject(metadata[part], sibling.metadata[part]) as never;
  }
  return child;
}

/**
 * True when the hook returned the observed object itself (same uid and resourceVersion):
 * its way of saying "leave this child as it is", so the loop neither applies nor prunes it.
 */
export function isHeldAsObserved(child: KubeObject, observed: readonly KubeObject[]): boolean {
  const rv = child.metadata?.resourceVersion;
  const uid = child.metadata?.uid;
  if (!rv || !uid) return false;
  return observed.some((o) => o.metadata?.uid === uid && o.metadata?.resourceVersion === rv);
}

export interface Decoration {
  parent: KubeObject;
  parentResource: ResourceType;
  /** Label stamped on every child with the parent's name (the fallback of `parentKeysOf`). */
  parentLabel: string;
}

/**
 * The child as the loop applies it: the parent's namespace when a namespaced child of a
 * namespaced parent has none, the controller reference, the managed-by and parent labels,
 * and the hash of all of it. The hook's object is not modified.
 */
export function decorateChild(child: KubeObject, { parent, parentResource, parentLabel }: Decoration): KubeObject {
  const name = child.metadata?.name;
  if (!child.apiVersion || !child.kind || !name) throw new Error(`the hook returned a child without apiVersion, kind or metadata.name (${childName(child)})`);
  const resource = resourceOf(child.apiVersion, child.kind);
  if (!resource) throw new Error(`the hook returned ${childName(child)} of a kind the loop does not know (${child.apiVersion})`);
  let namespace = child.metadata?.namespace;
  if (resource.namespaced && !namespace) {
    namespace = parentResource.namespaced ? parent.metadata?.namespace : undefined;
    if (!namespace) throw new Error(`the hook returned the namespaced ${childName(child)} without metadata.namespace`);
  }
  if (!resource.namespaced) namespace = undefined;
  const owner = controllerReference(parent);
  child = withoutServerFields(child);
  const others = (child.metadata?.ownerReferences ?? []).filter((ref) => ref.uid !== owner.uid && ref.controller !== true);
  const metadata: NonNullable<KubeObject['metadata']> = {
    ...child.metadata,
    name,
    labels: { ...child.metadata?.labels, [LABELS.managedBy]: FIELD_MANAGERS.manager, [parentLabel]: parent.metadata?.name ?? '' },
    ownerReferences: [...others, owner],
  };
  if (namespace) metadata.namespace = namespace;
  else delete metadata.namespace;
  const decorated: KubeObject = { ...child, metadata };
  const hash = hashOf(decorated);
  return { ...decorated, metadata: { ...metadata, annotations: { ...metadata.annotations, [APPLIED_HASH_ANNOTATION]: hash } } };
}

/** True when applying `desired` (decorated) would change nothing in `observed`. */
export function isUpToDate(desired: KubeObject, observed: KubeObject | undefined): boolean {
  if (!observed || observed.metadata?.deletionTimestamp) return false;
  const hash = desired.metadata?.annotations?.[APPLIED_HASH_ANNOTATION];
  return observed.metadata?.annotations?.[APPLIED_HASH_ANNOTATION] === hash && isSubset(desired, observed);
}

export interface ChildPlan {
  /**
   * Waves applied one after the other, each in parallel, in the order the API server needs:
   * Namespaces (the other children live in them); then ServiceAccounts, Roles, ClusterRoles
   * and Services (a binding's roleRef must exist when the binder lacks `bind`, and a
   * StatefulSet names its governing Service, SPEC 1.3 step 4); then bindings and the rest.
   */
  apply: KubeObject[][];
  /** Observed children controlled by the parent that the hook no longer returns. */
  prune: KubeObject[];
  unchanged: number;
}

/**
 * Which desired children need applying, and which observed (controlled) children go.
 * `held` children are kept as they are: never applied, never pruned.
 */
export function planChildren(desired: KubeObject[], observed: KubeObject[], held: readonly KubeObject[] = []): ChildPlan {
  const observedById = new Map(observed.map((o) => [identityOf(o), o]));
  const wanted = new Set([...desired, ...held].map(identityOf));
  const waves: KubeObject[][] = [[], [], []];
  let unchanged = held.length;
  for (const child of desired) {
    if (isUpToDate(child, observedById.get(identityOf(child)))) unchanged++;
    else waves[waveOf(child)]!.push(child);
  }
  const prune = observed.filter((o) => !wanted.has(identityOf(o)) && !o.metadata?.deletionTimestamp);
  return { apply: waves.filter((wave) => wave.length > 0), prune, unchanged };
}

/** Kinds a later child refers to by name, applied in the wave after Namespaces. */
const REFERENCED_KINDS = new Set(['/ServiceAccount', '/Service', 'rbac.authorization.k8s.io/Role', 'rbac.authorization.k8s.io/ClusterRole']);

function waveOf(child: KubeObject): number {
  if (child.kind === 'Namespace' && child.apiVersion === 'v1') return 0;
  return REFERENCED_KINDS.has(`${groupOf(child.apiVersion ?? '')}/${child.kind ?? ''}`) ? 1 : 2;
}

/**
 * The status to write: the hook's, with the fields other writers own (the gateway's
 * `lastActivityTime`) taken from the latest parent, and observedGeneration.
 */
export function desiredStatus(hookStatus: Record<string, unknown>, parent: KubeObject, foreignFields: readonly string[] = []): Record<string, unknown> {
  const current = (parent.status ?? {}) as Record<string, unknown>;
  const carried: Record<string, unknown> = {};
  for (const field of foreignFields) if (current[field] !== undefined) carried[field] = current[field];
  const status: Record<string, unknown> = { ...hookStatus, ...carried };
  const generation = parent.metadata?.generation;
  if (generation !== undefined) status.observedGeneration = generation;
  return JSON.parse(JSON.stringify(status)) as Record<string, unknown>;
}

export function sameStatus(a: unknown, b: unknown): boolean {
  return stableJson(a ?? {}) === stableJson(b ?? {});
}

/**
 * A child's key among its parent's: its uid, a string the cached child holds already (an
 * identity built per child was 2 MiB of keys with 34,000 children cached); its identity when
 * it has no uid.
 */
function childKey(obj: KubeObject): string {
  return obj.metadata?.uid ?? intern(identityOf(obj));
}

/** Children observed per controlling parent, kept current from informer events. */
export class ChildIndex {
  private byOwner = new Map<string, Map<string, KubeObject>>();

  /** Applies one cache event; a child whose controller changed moves to its new parent. */
  update(event: CacheEvent<KubeObject>): void {
    if (event.old) this.remove(event.old);
    if (event.type !== 'DELETED') this.add(event.object);
  }

  private add(obj: KubeObject): void {
    const uid = controllerOf(obj)?.uid;
    if (!uid) return;
    let children = this.byOwner.get(uid);
    if (!children) this.byOwner.set(uid, (children = new Map()));
    children.set(childKey(obj), obj);
  }

  private remove(obj: KubeObject): void {
    const uid = controllerOf(obj)?.uid;
    if (!uid) return;
    const children = this.byOwner.get(uid);
    if (!children) return;
    children.delete(childKey(obj));
    if (children.size === 0) this.byOwner.delete(uid);
  }

  /** Every observed child the parent with this uid controls. */
  of(uid: string): KubeObject[] {
    return [...(this.byOwner.get(uid)?.values() ?? [])];
  }

  /** One observed child the parent with this uid controls, if it has any. */
  anyOf(uid: string): KubeObject | undefined {
    return this.byOwner.get(uid)?.values().next().value;
  }
}

/**
 * The observed children with the ones just applied as the API server answered them (as the
 * caches keep them, as `cachingOf` says per child, parts shared as there): what the parent has once this reconcile's
 * applies are done, before their watch events arrive.
 */
export function withApplied(observed: readonly KubeObject[], applied: readonly KubeObject[], cachingOf: (child: KubeObject) => ChildCaching = () => ({})): KubeObject[] {
  const fresh = new Map<string, KubeObject>();
  for (const a of applied) {
    const sibling = fresh.values().next().value ?? observed[0];
    fresh.set(identityOf(a), withSiblingParts(childAsCached(a, cachingOf(a)), sibling));
  }
  return [...observed.filter((o) => !fresh.has(identityOf(o))), ...fresh.values()];
}

/** The hook's `children` map: `Kind.apiVersion` → `objectKey()` → object, with every child type present. */
export function childrenMap(observed: KubeObject[], childTypes: readonly ResourceType[]): ObservedChildren {
  const map: ObservedChildren = {};
  for (const t of childTypes) map[`${t.kind}.${t.apiVersion}`] = {};
  for (const obj of observed) {
    const key = `${obj.kind}.${obj.apiVersion}`;
    (map[key] ??= {})[objectKey(obj)] = obj;
  }
  return map;
}
