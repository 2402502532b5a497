// One copy of each string value the caches hold. JSON.parse gives every object its own copy
// of every string: 10,000 cached StatefulSets hold 10,000 copies of the same stop script, and
// the loop's and the webhooks' caches of Workspaces each hold every SSH key. V8 keeps one
// table of internalized strings (property names live there) that holds them weakly, so a string
// interned here is freed once no cached object uses it. Beyond strings, objects of one kind
// share their equal parts (internObject).

/**
 * The internalized copy of `text`: equal strings interned give one object in memory. The caller
 * must keep the string returned, not `text`: if the table had a copy already, V8 turns `text`
 * into a forward to it (a ThinString), a heap object of its own that the young generation's
 * collector removes but the old generation's keeps as long as something holds it.
 */
export function intern(text: string): string {
  // A computed property name is internalized; an index-like name ("42") is stored as a number.
  for (const name in { [text]: 0 }) return name === text ? name : text;
  return text;
}

/**
 * `value` (an object as JSON.parse made it, owned by the caller) as a cache keeps it: every
 * string interned, and every subtree equal to the subtree at the same path of `exemplar` (an
 * object the cache holds already, of the same kind) replaced by that one. The children of
 * 10,000 Workspaces differ in a few names and share the rest. What it returns is frozen, since
 * parts of it may be shared from now on: a reader that wants a change makes a copy. Returns
 * `exemplar` itself when the two are equal.
 */
export function internObject<T>(value: T, exemplar?: unknown): T {
  return shared(value, exemplar) as T;
}

function shared(value: unknown, exemplar: unknown): unknown {
  if (typeof value === 'string') return intern(value);
  if (!value || typeof value !== 'object') return value;
  // Kept already (a transform may reuse a part of a cached object, or one part twice).
  if (Object.isFrozen(value)) return value;
  const comparable = !!exemplar && typeof exemplar === 'object' && Array.isArray(exemplar) === Array.isArray(value);
  let equal = comparable;
  if (Array.isArray(value)) {
    const other = (comparable ? exemplar : []) as unknown[];
    if (other.length !== value.length) equal = false;
    for (let i = 0; i < value.length; i++) {
      // Assigned even when equal: a parsed string may now forward to the interned one (intern).
      const item = (value[i] = shared(value[i], other[i]));
      if (item !== other[i]) equal = false;
    }
  } else {
    const record = value as Record<string, unknown>;
    const other = (comparable ? exemplar : {}) as Record<string, unknown>;
    let count = 0;
    for (const name in record) {
      count++;
      // A parsed "__proto__" is an own property; assigning to it would set the prototype.
      if (name === '__proto__') {
        shared(record[name], undefined);
        equal = false;
        continue;
      }
      const before = Object.hasOwn(other, name) ? other[name] : undefined;
      const item = (record[name] = shared(record[name], before));
      if (item !== before) equal = false;
    }
    if (equal && count !== Object.keys(other).length) equal = false;
  }
  return equal ? exemplar : Object.freeze(value);
}
