// Pure functions that say which parent an object belongs to. The work queue is keyed by
// the parent's `namespace/name` (or `name` when cluster-scoped), like the informer cache.
import type { KubeObject, OwnerReference } from '../../kube/client.js';
import { groupOf, type ResourceType } from '../../kube/resources.js';

export interface ObjectRef {
  namespace?: string;
  name: string;
}

/** The queue key of an object of `resource`: `namespace/name`, or `name` when cluster-scoped. */
export function keyOf(resource: Pick<ResourceType, 'namespaced'>, ref: ObjectRef): string {
  if (resource.namespaced) {
    if (!ref.namespace) throw new Error(`a namespaced object needs a namespace to be keyed (name '${ref.name}')`);
    return `${ref.namespace}/${ref.name}`;
  }
  return ref.name;
}

/** The inverse of `keyOf`. */
export function refOf(resource: Pick<ResourceType, 'namespaced'>, key: string): ObjectRef {
  if (!resource.namespaced) return { name: key };
  const slash = key.indexOf('/');
  if (slash <= 0 || slash === key.length - 1) throw new Error(`'${key}' is not a namespace/name key`);
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The owner reference that makes `parent` the controller of a child. */
export function controllerReference(parent: KubeObject): OwnerReference {
  const { apiVersion, kind } = parent;
  const name = parent.metadata?.name;
  const uid = parent.metadata?.uid;
  if (!apiVersion || !kind || !name || !uid) throw new Error('a parent needs apiVersion, kind, metadata.name and metadata.uid to own children');
  return { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true };
}

/** The owner reference with `controller: true`, if any. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

function isOfKind(ref: Pick<OwnerReference, 'apiVersion' | 'kind'>, resource: ResourceType): boolean {
  // The version of an owner reference may lag the served one; group and kind identify the type.
  return ref.kind === resource.kind && groupOf(ref.apiVersion) === groupOf(resource.apiVersion);
}

/**
 * Keys of the parents an object points at: its controller reference when it is of the
 * parent's kind, and the parent label as a fallback (a child whose reference was edited
 * away by hand still finds its way back, so it is restored).
 */
export function parentKeysOf(obj: KubeObject, parent: ResourceType, parentLabel?: string): string[] {
  const keys = new Set<string>();
  const namespace = obj.metadata?.namespace;
  const ref = controllerOf(obj);
  // Owner references never cross namespaces: a namespaced owner lives beside its child.
  if (ref && isOfKind(ref, parent) && (!parent.namespaced || namespace)) keys.add(keyOf(parent, { namespace, name: ref.name }));
  const labelled = parentLabel ? obj.metadata?.labels?.[parentLabel] : undefined;
  if (labelled && (!parent.namespaced || namespace)) keys.add(keyOf(parent, { namespace, name: labelled }));
  return [...keys];
}

/** True when `obj` is controlled by the parent with this uid. */
export function isControlledBy(obj: KubeObject, parentUid: string): boolean {
  return controllerOf(obj)?.uid === parentUid;
}

/** `Kind/name`, how errors and conditions name a child. */
export function childName(obj: KubeObject): string {
  return `${obj.kind ?? 'Object'}/${obj.metadata?.name ?? ''}`;
}
