// Strategic merge patch as kube-apiserver applies it to built-in kinds: lists with a merge key
// (containers and env by name, ports by containerPort, …) merge item by item, `metadata.finalizers`
// is a set, every other list is replaced; the directives `$patch: delete|replace|merge`,
// `$retainKeys`, `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` are honoured.
// Custom resources have no strategy: the API server answers 415 for them (index.ts).
import { clone, type Json } from './patch.js';

/** The merge key of a list at `path` (field names from the object's root), by the Kubernetes Go types' patchMergeKey tags. */
export function builtInMergeKey(path: readonly string[]): string | undefined {
  const field = path.at(-1);
  const parent = path.at(-2);
  switch (field) {
    case 'containers':
    case 'initContainers':
    case 'ephemeralContainers':
    case 'volumes':
    case 'imagePullSecrets':
    case 'secrets':
      return 'name';
    case 'env':
      return 'name';
    case 'volumeMounts':
      return 'mountPath';
    case 'volumeDevices':
      return 'devicePath';
    case 'ports':
      return path.includes('containers') || path.includes('initContainers') || parent === undefined ? 'containerPort' : 'port';
    case 'conditions':
      return 'type';
    case 'ownerReferences':
      return 'uid';
    case 'hostAliases':
      return 'ip';
    case 'topologySpreadConstraints':
      return 'topologyKey';
    default:
      return undefined;
  }
}

/** Lists of strings merged as sets (patchStrategy "merge" without a key). */
function isPrimitiveSet(path: readonly string[]): boolean {
  return path.length === 2 && path[0] === 'metadata' && path[1] === 'finalizers';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class StrategicMergeError extends Error {}

export function strategicMergePatch(target: Json, patch: Json, path: string[] = []): Json {
  if (!isObject(patch)) return clone(patch);
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return clone(rest);
  }
  if (patch.$patch === 'delete') return undefined;
  const out: Record<string, unknown> = isObject(target) ? clone(target) : {};
  const retain = patch.$retainKeys;
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const gone = new Set((Array.isArray(v) ? v : []).map((x) => JSON.stringify(x)));
      const list = out[field];
      if (Array.isArray(list)) out[field] = list.filter((x) => !gone.has(JSON.stringify(x)));
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    const here = [...path, k];
    if (Array.isArray(v)) out[k] = mergeList(out[k], v, here);
    else {
      const merged = strategicMergePatch(out[k], v, here);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    }
  }
  if (Array.isArray(retain)) for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
  return out;
}

function mergeList(live: unknown, patch: unknown[], path: string[]): unknown[] {
  const current = Array.isArray(live) ? clone(live) : [];
  if (isPrimitiveSet(path)) {
    const seen = new Set(current.map((x) => JSON.stringify(x)));
    for (const x of patch) if (!seen.has(JSON.stringify(x))) current.push(clone(x));
    return current;
  }
  const key = builtInMergeKey(path);
  if (!key || !patch.every(isObject)) return patch.filter((x) => !(isObject(x) && x.$patch)).map((x) => clone(x));
  if (patch.some((x) => (x as Record<string, unknown>).$patch === 'replace')) return patch.filter((x) => !(x as Record<string, unknown>).$patch).map((x) => clone(x));
  for (const item of patch as Record<string, unknown>[]) {
    if (!(key in item)) throw new StrategicMergeError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${key}`);
    const at = current.findIndex((x) => isObject(x) && JSON.stringify(x[key]) === JSON.stringify(item[key]));
    if (item.$patch === 'delete') {
      if (at >= 0) current.splice(at, 1);
      continue;
    }
    if (at >= 0) current[at] = strategicMergePatch(current[at], item, path);
    else current.push(strategicMergePatch({}, item, path));
  }
  return current;
}
