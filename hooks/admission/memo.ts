// The two costly steps of a Workspace decision, behind an interface so the server can remember
// their answers: an SSH key check (a curve point decoded, an RSA key loaded) gives the same
// answer for the same text, and a cached Workspace's parsed resources stay valid until the
// informer replaces the object. Tests use the direct versions.
import { checkAuthorizedKey, type KeyCheck } from '../../ssh/authorized-keys.js';
import type { Workspace } from './objects.js';
import { parseResources, type ParsedResources } from './workspace-resources.js';

export interface DecisionMemo {
  checkKey(entry: unknown): KeyCheck;
  /** Resources of a Workspace the namespace already holds (already admitted: problems count as zero). */
  resourcesOf(ws: Workspace): ParsedResources;
}

export const DIRECT: DecisionMemo = {
  checkKey: checkAuthorizedKey,
  resourcesOf: (ws) => parseResources(ws.spec?.resources, []),
};

export class CachingMemo implements DecisionMemo {
  private readonly keys = new Map<string, KeyCheck>();
  // Keyed by the cached object itself: a watch event replaces the object, so a stale entry
  // is never found again and is collected with it.
  private readonly parsed = new WeakMap<object, ParsedResources>();

  constructor(private readonly maxKeys = 4096) {}

  checkKey(entry: unknown): KeyCheck {
    if (typeof entry !== 'string') return checkAuthorizedKey(entry);
    const known = this.keys.get(entry);
    if (known) return known;
    const result = checkAuthorizedKey(entry);
    if (this.keys.size >= this.maxKeys) this.keys.delete(this.keys.keys().next().value!);
    this.keys.set(entry, result);
    return result;
  }

  resourcesOf(ws: Workspace): ParsedResources {
    const known = this.parsed.get(ws);
    if (known) return known;
    const result = DIRECT.resourcesOf(ws);
    this.parsed.set(ws, result);
    return result;
  }
}
