// What a UserSpace's workspaces hold against its quota (SPEC 1.4 and 2.4), for every reader:
// the webhook that admits a workspace and the pages that show a person their quota. CPU,
// memory and GPUs are held by running workspaces only (the request, or the limit when only a
// limit is set, as the scheduler counts); storage by every home claim whether its workspace
// runs or not (the PVC's request, or the workspace's spec.storage until the PVC exists,
// whichever is larger); the count by every Workspace.
import { defaultPodName, homeClaimName } from '../kube/group.js';
import { addQuantities, compareQuantities, countQuantity, isNegative, tryParseQuantity, ZERO, type Quantity } from '../kube/quantity.js';
import type { Workspace } from './workspace.js';
import { isRunning } from './workspace-rules.js';

/** The fields of a PersistentVolumeClaim the storage count reads. */
export interface HomeClaim {
  metadata?: { name?: string };
  spec?: { resources?: { requests?: { storage?: unknown } } };
}

/** The amount of `resource` a workspace asks for; undefined when it asks for none (or for no quantity). */
export type RequestOf = (ws: Workspace, resource: string) => Quantity | undefined;

function amount(raw: unknown): Quantity | undefined {
  const q = tryParseQuantity(raw);
  return q && !isNegative(q) ? q : undefined;
}

/** The request, or the limit when only a limit is set. */
export const requestOf: RequestOf = (ws, resource) => amount(ws.spec?.resources?.requests?.[resource]) ?? amount(ws.spec?.resources?.limits?.[resource]);

/** The fields of a Pod the cluster's count reads. */
export interface PodRequests {
  metadata?: { name?: string };
  spec?: { containers?: { resources?: { requests?: Record<string, unknown> } }[] };
  status?: { phase?: string };
}

/**
 * What the cluster charges a workspace: its pod's container requests as admitted (defaults of
 * the namespace's LimitRange included), while the pod exists and has not ended; the
 * workspace's own request until then. The profile and /new show use counted this way.
 */
export function podRequestOf(pods: readonly PodRequests[]): RequestOf {
  const byName = new Map(pods.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed').map((p) => [p.metadata?.name ?? '', p]));
  return (ws, resource) => {
    const pod = byName.get(ws.status?.podName || defaultPodName(ws.metadata?.name ?? ''));
    if (!pod) return requestOf(ws, resource);
    const asked = (pod.spec?.containers ?? []).map((c) => amount(c.resources?.requests?.[resource])).filter((q): q is Quantity => q !== undefined);
    return asked.length > 0 ? addQuantities(...asked) : undefined;
  };
}

/** What one workspace holds of `resource`: nothing while it is stopped. */
export function heldBy(ws: Workspace, resource: string, request: RequestOf = requestOf): Quantity {
  return isRunning(ws) ? (request(ws, resource) ?? ZERO) : ZERO;
}

function larger(a: Quantity, b: Quantity): Quantity {
  return compareQuantities(a, b) >= 0 ? a : b;
}

/** Storage each home claim holds, by claim name. */
export function storageByClaim(workspaces: readonly Workspace[], claims: readonly HomeClaim[]): Map<string, Quantity> {
  const sizes = new Map<string, Quantity>();
  for (const claim of claims) {
    const name = claim.metadata?.name;
    if (name) sizes.set(name, tryParseQuantity(claim.spec?.resources?.requests?.storage) ?? ZERO);
  }
  for (const ws of workspaces) {
    const name = ws.metadata?.name;
    const storage = tryParseQuantity(ws.spec?.storage);
    if (!name || !storage) continue;
    const claim = homeClaimName(name);
    sizes.set(claim, larger(sizes.get(claim) ?? ZERO, storage));
  }
  return sizes;
}

export interface QuotaUse {
  cpu: Quantity;
  memory: Quantity;
  gpu: Quantity;
  storage: Quantity;
  workspaces: Quantity;
}

/** What `workspaces` and the home `claims` of one namespace hold, in the dimensions of spec.quota. */
export function quotaUse(workspaces: readonly Workspace[], claims: readonly HomeClaim[], gpuResource: string, request: RequestOf = requestOf): QuotaUse {
  const held = (resource: string) => addQuantities(...workspaces.map((ws) => heldBy(ws, resource, request)));
  return {
    cpu: held('cpu'),
    memory: held('memory'),
    gpu: held(gpuResource),
    storage: addQuantities(...storageByClaim(workspaces, claims).values()),
    workspaces: countQuantity(workspaces.length),
  };
}
