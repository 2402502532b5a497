// One copy of each string value the caches hold. JSON.parse gives every object its own copy
// of every string: 10,000 cached StatefulSets hold 10,000 copies of the same stop script, and
// the loop's and the webhooks' caches of Workspaces each hold every SSH key. V8 keeps one
// table of internalized strings (property names live there) that holds them weakly, so a string
// interned here is freed once no cached object uses it.

/** The internalized copy of `text`: equal strings interned give one object in memory. */
export function intern(text: string): string {
  // A computed property name is internalized; an index-like name ("42") is stored as a number.
  for (const name in { [text]: 0 }) return name === text ? name : text;
  return text;
}

/**
 * Replaces, in place, every string value in `value` (an object or array as JSON.parse made it,
 * owned by the caller) by its interned copy, and returns it. Property names already are.
 */
export function internStrings<T>(value: T): T {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'string') value[i] = intern(item);
      else if (item && typeof item === 'object') internStrings(item);
    }
  } else if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key in record) {
      const item = record[key];
      if (typeof item === 'string') record[key] = intern(item);
      else if (item && typeof item === 'object') internStrings(item);
    }
  }
  return value;
}
