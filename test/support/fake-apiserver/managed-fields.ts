// Server-side apply as structured-merge-diff does it: metadata.managedFields (one entry per
// manager, operation and subresource, fieldsV1 sets), conflicts with other managers, keyed
// lists merged by their keys, and fields an applier stops sending removed unless someone
// else owns them.
import type { KubeObject } from '../../../kube/client.js';
import { clone } from './patch.js';

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** A list's merge keys at a path of field names, or undefined for an atomic list. */
export type ListKeys = (fieldPath: string[]) => string[] | undefined;

/** One applier's field, owned also by another manager with a different value. */
export interface Conflict {
  entry: ManagedFieldsEntry;
  path: string[];
}

/** The merge keys of Kubernetes' built-in kinds; every other list is atomic (RBAC rules included). */
/** Label selectors (metav1.LabelSelector, `structType=atomic`): one field, owned and replaced whole. A Service's spec.selector is a plain map. */
const SELECTOR_FIELDS = new Set(['podSelector', 'namespaceSelector', 'objectSelector', 'labelSelector']);

function atomicMap(kind: string | undefined, fieldPath: string[]): boolean {
  const last = fieldPath[fieldPath.length - 1];
  if (last === undefined) return false;
  return SELECTOR_FIELDS.has(last) || (last === 'selector' && fieldPath.length === 2 && fieldPath[0] === 'spec' && kind !== 'Service' && kind !== 'ReplicationController');
}

export const BUILT_IN_LIST_KEYS: ListKeys = (fieldPath) => {
  const field = fieldPath[fieldPath.length - 1];
  switch (field) {
    case 'containers':
    case 'initContainers':
    case 'ephemeralContainers':
    case 'volumes':
    case 'env':
    case 'imagePullSecrets':
      return ['name'];
    case 'volumeMounts':
      return ['mountPath'];
    case 'volumeDevices':
      return ['devicePath'];
    case 'ownerReferences':
      return ['uid'];
    case 'ports':
      // A Service's ports (spec.ports) by port and protocol; a container's by containerPort and protocol.
      return fieldPath.length === 2 && fieldPath[0] === 'spec' ? ['port', 'protocol'] : ['containerPort', 'protocol'];
    default:
      return undefined;
  }
};

const UNTRACKED_METADATA = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A key's value as the API server defaults it (a port's protocol is TCP unless said). */
function keyValue(item: Record<string, unknown>, key: string): unknown {
  return item[key] ?? (key === 'protocol' ? 'TCP' : undefined);
}

function itemSegment(item: Record<string, unknown>, keys: string[]): string {
  return `k:${JSON.stringify(Object.fromEntries(keys.map((k) => [k, keyValue(item, k)])))}`;
}

const encode = (path: string[]) => JSON.stringify(path);
const decode = (key: string) => JSON.parse(key) as string[];

/**
 * The fields a value sets: every leaf (and atomic list), and for every keyed list item a `.`
 * entry of its own; an Update's set has one for every map too, an Apply's only for an empty
 * map (its leaves, as structured-merge-diff records them). `status` counts only for the status subresource.
 */
export function fieldSet(obj: KubeObject, listKeys: ListKeys, subresource?: string, operation: 'Apply' | 'Update' = 'Update'): Set<string> {
  const out = new Set<string>();
  const walk = (value: unknown, path: string[], fieldPath: string[]) => {
    if (isObject(value) && atomicMap(obj.kind, fieldPath)) {
      out.add(encode(path));
      return;
    }
    if (isObject(value)) {
      const listItem = path.length > 0 && path[path.length - 1]!.startsWith('k:');
      if (operation === 'Apply' && !listItem) {
        if (Object.keys(value).length === 0) out.add(encode(path));
      } else if (path.length > 0) out.add(encode([...path, '.']));
      for (const [k, v] of Object.entries(value)) walk(v, [...path, `f:${k}`], [...fieldPath, k]);
      return;
    }
    const keys = Array.isArray(value) ? listKeys(fieldPath) : undefined;
    if (!keys) {
      out.add(encode(path));
      return;
    }
    for (const item of value as unknown[]) if (isObject(item)) walk(item, [...path, itemSegment(item, keys)], fieldPath);
  };
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if ((k === 'status') !== (subresource === 'status')) continue;
    if (k === 'metadata' && isObject(v)) {
      for (const [mk, mv] of Object.entries(v)) if (!UNTRACKED_METADATA.has(mk)) walk(mv, ['f:metadata', `f:${mk}`], ['metadata', mk]);
      continue;
    }
    walk(v, [`f:${k}`], [k]);
  }
  return out;
}

function findItem(list: unknown[], segment: string): Record<string, unknown> | undefined {
  const want = JSON.parse(segment.slice(2)) as Record<string, unknown>;
  return list.find((i): i is Record<string, unknown> => isObject(i) && Object.entries(want).every(([k, v]) => keyValue(i, k) === v));
}

function valueAt(obj: unknown, path: string[]): unknown {
  let cur: unknown = obj;
  for (const seg of path) {
    if (seg === '.') return cur;
    if (cur == null) return undefined;
    cur = seg.startsWith('k:') ? (Array.isArray(cur) ? findItem(cur, seg) : undefined) : (cur as Record<string, unknown>)[seg.slice(2)];
  }
  return cur;
}

/** Removes the field at `path` (a leaf, a map or a keyed list item). */
function removeAt(obj: unknown, path: string[]): void {
  const target = path[path.length - 1] === '.' ? path.slice(0, -1) : path;
  const parent = valueAt(obj, target.slice(0, -1));
  const last = target[target.length - 1]!;
  if (last.startsWith('k:') && Array.isArray(parent)) {
    const item = findItem(parent, last);
    if (item) parent.splice(parent.indexOf(item), 1);
  } else if (isObject(parent)) delete parent[last.slice(2)];
}

/** A path as kube-apiserver prints it: `.spec.containers[name="app"].image`. */
export function printPath(path: string[]): string {
  return path
    .filter((s) => s !== '.')
    .map((s) => {
      if (!s.startsWith('k:')) return `.${s.slice(2)}`;
      const keys = JSON.parse(s.slice(2)) as Record<string, unknown>;
      return `[${Object.entries(keys).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
    })
    .join('');
}

/** How kube-apiserver names a manager in a conflict. */
export function printManager(e: ManagedFieldsEntry): string {
  let out = JSON.stringify(e.manager);
  if (e.subresource) out += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') out += ` using ${e.apiVersion} at ${e.time}`;
  return out;
}

/** The message of a 409 apply conflict, as kube-apiserver words it. */
export function conflictMessage(conflicts: Conflict[]): string {
  if (conflicts.length === 1) return `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]!.entry)}: ${printPath(conflicts[0]!.path)}`;
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) byManager.set(printManager(c.entry), [...(byManager.get(printManager(c.entry)) ?? []), printPath(c.path)]);
  const lines = [...byManager.keys()].sort().flatMap((m) => [`conflicts with ${m}:`, ...byManager.get(m)!.map((p) => `- ${p}`)]);
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

export function toFieldsV1(set: Set<string>): Record<string, unknown> {
  const root: Record<string, any> = {};
  for (const key of [...set].sort()) {
    let node = root;
    for (const seg of decode(key)) node = node[seg] ??= {};
  }
  return root;
}

function fromFieldsV1(fields: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  const walk = (node: Record<string, unknown>, path: string[]) => {
    const children = Object.entries(node);
    if (children.length === 0 && path.length > 0) out.add(encode(path));
    for (const [k, v] of children) walk(v as Record<string, unknown>, [...path, k]);
  };
  walk(fields, []);
  return out;
}

const sameEntry = (e: ManagedFieldsEntry, manager: string, operation: string, subresource?: string) => e.manager === manager && e.operation === operation && (e.subresource ?? '') === (subresource ?? '');

/** Merges `applied` into `live`: maps recursively, keyed lists by their keys, the rest replaced. */
function mergeInto(live: unknown, applied: unknown, listKeys: ListKeys, fieldPath: string[], kind?: string): unknown {
  if (isObject(applied) && atomicMap(kind, fieldPath)) return clone(applied);
  if (isObject(applied)) {
    const out = isObject(live) ? live : {};
    for (const [k, v] of Object.entries(applied)) out[k] = mergeInto(out[k], v, listKeys, [...fieldPath, k], kind);
    return out;
  }
  const keys = Array.isArray(applied) ? listKeys(fieldPath) : undefined;
  if (!keys || !Array.isArray(live)) return clone(applied);
  for (const item of applied as unknown[]) {
    if (!isObject(item)) continue;
    const existing = findItem(live, itemSegment(item, keys));
    if (existing) mergeInto(existing, item, listKeys, fieldPath, kind);
    else live.push(clone(item));
  }
  return live;
}

function entry(manager: string, operation: 'Apply' | 'Update', apiVersion: string, set: Set<string>, subresource: string | undefined, time: string): ManagedFieldsEntry {
  return { manager, operation, apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(set), ...(subresource ? { subresource } : {}) };
}

function withSets(entries: ManagedFieldsEntry[]): { e: ManagedFieldsEntry; set: Set<string> }[] {
  return entries.map((e) => ({ e, set: fromFieldsV1(e.fieldsV1) }));
}

function finish(list: { e: ManagedFieldsEntry; set: Set<string> }[]): ManagedFieldsEntry[] {
  return list.filter(({ set }) => set.size > 0).map(({ e, set }) => ({ ...e, fieldsV1: toFieldsV1(set) }));
}

/**
 * One apply of `applied` by `manager`: the merged object and the new managedFields, or the
 * conflicts (fields another manager owns with a different value) when not forced.
 */
export function apply(args: { live: KubeObject; applied: KubeObject; manager: string; subresource?: string; force: boolean; listKeys: ListKeys; time: string }): { object: KubeObject; managedFields: ManagedFieldsEntry[] } | { conflicts: Conflict[] } {
  const { live, applied, manager, subresource, listKeys } = args;
  const entries = withSets(live.metadata?.managedFields as ManagedFieldsEntry[] | undefined ?? []);
  const mine = entries.find(({ e }) => sameEntry(e, manager, 'Apply', subresource));
  const others = entries.filter((x) => x !== mine);
  const appliedSet = fieldSet(applied, listKeys, subresource, 'Apply');
  const conflicts: Conflict[] = [];
  for (const other of others) {
    for (const key of appliedSet) {
      const path = decode(key);
      if (path[path.length - 1] === '.' || !other.set.has(key)) continue;
      if (JSON.stringify(valueAt(live, path)) !== JSON.stringify(valueAt(applied, path))) conflicts.push({ entry: other.e, path });
    }
  }
  if (conflicts.length > 0 && !args.force) return { conflicts };
  for (const c of conflicts) others.find(({ e }) => e === c.entry)!.set.delete(encode(c.path));

  const object = clone(live);
  const ownedByOthers = (key: string) => {
    const path = decode(key);
    if (path[path.length - 1] !== '.') return others.some(({ set }) => set.has(key));
    const inside = `${encode(path.slice(0, -1)).slice(0, -1)},`;
    return others.some(({ set }) => [...set].some((k) => k.startsWith(inside)));
  };
  const released = [...(mine?.set ?? [])].filter((k) => !appliedSet.has(k)).sort((a, b) => decode(b).length - decode(a).length);
  for (const key of released) if (!ownedByOthers(key)) removeAt(object, decode(key));
  const { apiVersion: _a, kind: _k, metadata: appliedMetadata, ...rest } = applied as Record<string, unknown>;
  mergeInto(object, rest, listKeys, [], live.kind);
  if (isObject(appliedMetadata)) {
    const tracked = Object.fromEntries(Object.entries(appliedMetadata).filter(([k]) => !UNTRACKED_METADATA.has(k)));
    mergeInto(object.metadata, tracked, listKeys, ['metadata']);
  }
  const updated = [...others, { e: entry(manager, 'Apply', applied.apiVersion ?? live.apiVersion!, appliedSet, subresource, args.time), set: appliedSet }];
  return { object, managedFields: finish(updated) };
}

/**
 * A create, update or patch by `manager` (operation Update): it takes the fields it changed
 * from whoever owned them; fields that are gone leave every manager's set.
 */
export function recordUpdate(args: { old?: KubeObject; next: KubeObject; manager: string; subresource?: string; listKeys: ListKeys; time: string }): ManagedFieldsEntry[] {
  const { old, next, manager, subresource, listKeys } = args;
  const entries = withSets((old?.metadata?.managedFields as ManagedFieldsEntry[] | undefined) ?? []);
  const nextSet = fieldSet(next, listKeys, subresource);
  const changed = new Set(
    [...nextSet].filter((k) => {
      const path = decode(k);
      if (!old) return true;
      if (path[path.length - 1] === '.') return valueAt(old, path.slice(0, -1)) === undefined;
      return JSON.stringify(valueAt(old, path)) !== JSON.stringify(valueAt(next, path));
    }),
  );
  for (const { set } of entries) {
    for (const k of [...set]) {
      const path = decode(k);
      if ((path[0] === 'f:status') !== (subresource === 'status')) continue; // the other half of the object was not written
      if (!nextSet.has(k) || (changed.has(k) && path[path.length - 1] !== '.')) set.delete(k);
    }
  }
  let mine = entries.find(({ e }) => sameEntry(e, manager, 'Update', subresource));
  if (changed.size === 0 && !mine) return finish(entries);
  if (!mine) entries.push((mine = { e: entry(manager, 'Update', next.apiVersion!, new Set(), subresource, args.time), set: new Set() }));
  for (const k of changed) mine.set.add(k);
  mine.e = { ...mine.e, time: args.time, apiVersion: next.apiVersion! };
  return finish(entries);
}
