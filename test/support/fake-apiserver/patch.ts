// Patch semantics the API server implements: JSON merge patch (RFC 7386), JSON patch
// (RFC 6902). Server-side apply is managed-fields.ts.

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
