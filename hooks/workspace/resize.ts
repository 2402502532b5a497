// A resize: the workspace container's resources the hook renders differ from those of the
// StatefulSet the cluster holds (someone changed spec.resources). Pure: the hook turns it into
// a Resized Event (kube/den-events.ts) that the loop records once the StatefulSet is written.
import type { KubeObject } from '../../kube/client.js';
import { WORKSPACE_CONTAINER } from '../../contract/workspace.js';
import { compareQuantities, tryParseQuantity } from '../../kube/quantity.js';

type ResourceMap = Record<string, string | number>;
interface Resources {
  requests?: ResourceMap;
  limits?: ResourceMap;
}

function containerResources(statefulSet: KubeObject): Resources {
  const containers = ((statefulSet.spec as { template?: { spec?: { containers?: { name?: string; resources?: Resources }[] } } } | undefined)?.template?.spec?.containers ?? []);
  return (containers.find((c) => c.name === WORKSPACE_CONTAINER) ?? containers[0])?.resources ?? {};
}

function same(a: string | number | undefined, b: string | number | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const qa = tryParseQuantity(a);
  const qb = tryParseQuantity(b);
  return qa && qb ? compareQuantities(qa, qb) === 0 : String(a) === String(b);
}

/** What changed, `cpu request 1 → 2`, one phrase per resource; empty when nothing did. */
export function resourceChanges(observed: KubeObject, desired: KubeObject): string[] {
  const before = containerResources(observed);
  const after = containerResources(desired);
  const changes: string[] = [];
  for (const [field, word] of [['requests', 'request'], ['limits', 'limit']] as const) {
    const names = [...new Set([...Object.keys(before[field] ?? {}), ...Object.keys(after[field] ?? {})])].sort();
    for (const resource of names) {
      const was = before[field]?.[resource];
      const now = after[field]?.[resource];
      if (!same(was, now)) changes.push(`${resource} ${word} ${was ?? 'none'} → ${now ?? 'none'}`);
    }
  }
  return changes;
}

export function resizeMessage(changes: string[]): string {
  return `Resized: ${changes.join(', ')}. A running pod restarts with the new size; the home volume is kept.`;
}
