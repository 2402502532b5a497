// Patch semantics the API server implements: JSON merge patch (RFC 7386), JSON patch
// (RFC 6902), and a field-ownership approximation of server-side apply.

export type Json = any;

export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return clone(patch);
  const out: Record<string, unknown> = isObject(target) ? clone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export class JsonPatchError extends Error {}

function decodePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new JsonPatchError(`invalid JSON pointer ${path}`);
  return path.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function jsonPatch(target: Json, ops: { op: string; path: string; value?: Json; from?: string }[]): Json {
  let doc = clone(target);
  for (const op of ops) {
    const parts = decodePointer(op.path);
    const last = parts.pop();
    let parent: any = doc;
    for (const p of parts) {
      if (parent == null) throw new JsonPatchError(`path ${op.path} does not exist`);
      parent = parent[p];
    }
    if (last === undefined) {
      if (op.op === 'replace' || op.op === 'add') doc = clone(op.value);
      continue;
    }
    if (parent == null || typeof parent !== 'object') throw new JsonPatchError(`path ${op.path} does not exist`);
    switch (op.op) {
      case 'add':
        if (Array.isArray(parent)) parent.splice(last === '-' ? parent.length : Number(last), 0, clone(op.value));
        else parent[last] = clone(op.value);
        break;
      case 'replace':
        if (!(last in parent)) throw new JsonPatchError(`path ${op.path} does not exist`);
        parent[last] = clone(op.value);
        break;
      case 'remove':
        if (!(last in parent)) throw new JsonPatchError(`path ${op.path} does not exist`);
        if (Array.isArray(parent)) parent.splice(Number(last), 1);
        else delete parent[last];
        break;
      case 'test':
        if (JSON.stringify(parent[last]) !== JSON.stringify(op.value)) throw new JsonPatchError(`test failed at ${op.path}`);
        break;
      default:
        throw new JsonPatchError(`unsupported op ${op.op}`);
    }
  }
  return doc;
}

/** Removes from `target` every leaf that `previous` set and `next` no longer sets. */
function dropReleased(target: Json, previous: Json, next: Json): void {
  if (!isObject(target) || !isObject(previous)) return;
  for (const [k, pv] of Object.entries(previous)) {
    const nv = isObject(next) ? next[k] : undefined;
    if (nv === undefined) delete target[k];
    else if (isObject(pv) && isObject(nv)) dropReleased(target[k], pv, nv);
  }
}

function deepApply(target: Json, applied: Json): Json {
  if (!isObject(applied)) return clone(applied);
  const out: Record<string, unknown> = isObject(target) ? target : {};
  for (const [k, v] of Object.entries(applied)) out[k] = deepApply(out[k], v);
  return out;
}

/**
 * Server-side apply for one field manager: fields this manager applied before and
 * omits now are removed; everything it applies now is set; fields of other managers stay.
 * Lists are atomic (replaced whole), which is what SSA does for lists without merge keys.
 */
export function serverSideApply(existing: Json, previousApplied: Json, applied: Json): Json {
  const out = clone(existing) ?? {};
  if (previousApplied) dropReleased(out, previousApplied, applied);
  return deepApply(out, applied);
}
