// SPEC 1.4 and 2.4: what a workspace asks for, plus what the namespace already holds, must
// fit the owner's UserSpace quota. What a workspace holds is contract/quota-use.ts.
import { homeClaimName } from '../../kube/group.js';
import { addQuantities, compareQuantities, countQuantity, formatQuantity, isNegative, subtractQuantities, tryParseQuantity, ZERO, type Quantity } from '../../kube/quantity.js';
import { heldBy, storageByClaim, type RequestOf } from '../../contract/quota-use.js';
import type { PersistentVolumeClaim, UserSpace, Workspace } from './objects.js';
import { DIRECT, type DecisionMemo } from './memo.js';
import { effectiveRequest, type ParsedResources } from './workspace-resources.js';
import type { Violation } from './violations.js';

export interface QuotaInput {
  operation: 'CREATE' | 'UPDATE';
  workspace: Workspace;
  parsed: ParsedResources;
  oldWorkspace?: Workspace;
  userSpace: UserSpace;
  /** Every other Workspace in the namespace. */
  others: Workspace[];
  /** Every PVC in the namespace. */
  claims: PersistentVolumeClaim[];
  gpuResource: string;
  memo?: DecisionMemo;
}

interface Dimension {
  quotaField: string;
  field: string;
  limit: Quantity | 'invalid' | undefined;
  requested: Quantity;
  previous: Quantity;
  used: Quantity;
}

function limitOf(raw: unknown): Quantity | 'invalid' | undefined {
  if (raw === undefined || raw === null) return undefined;
  return tryParseQuantity(raw) ?? 'invalid';
}

function max(a: Quantity, b: Quantity): Quantity {
  return compareQuantities(a, b) >= 0 ? a : b;
}

/** Counts (workspaces, GPUs) print as plain numbers, never as "1k". */
function show(d: Dimension, q: Quantity): string {
  const counted = d.quotaField === 'workspaces' || d.quotaField === 'gpu';
  return counted && q.den === 1n ? q.num.toString() : formatQuantity(q);
}

const WHAT: Record<string, string> = { cpu: 'CPU', memory: 'memory', gpu: 'GPUs', storage: 'home volume storage' };

/** An overrun as the person reads it: what this needs, what is left of how much, and what to do. */
function quotaAdvice(d: Dimension): string {
  const limit = d.limit as Quantity;
  const left = subtractQuantities(limit, d.used);
  const shownLeft = isNegative(left) ? '0' : show(d, left);
  if (d.quotaField === 'workspaces') {
    return `You already have ${show(d, d.used)} of the ${show(d, limit)} workspaces your space allows: delete one, or ask an administrator for a larger quota.`;
  }
  const free = d.quotaField === 'storage' ? 'delete a workspace you no longer need together with its home volume' : 'stop a workspace you are not using';
  return `This needs ${show(d, d.requested)} of ${WHAT[d.quotaField]}, but your space has ${shownLeft} left of ${show(d, limit)}: ask for less, ${free}, or ask an administrator for a larger quota.`;
}

export function checkQuota(input: QuotaInput): Violation[] {
  const { workspace, parsed, oldWorkspace, userSpace, others, claims, gpuResource } = input;
  const quota = userSpace.spec?.quota ?? {};
  const memo = input.memo ?? DIRECT;
  const oldParsed = oldWorkspace ? memo.resourcesOf(oldWorkspace) : undefined;
  const ownClaim = homeClaimName(workspace.metadata?.name ?? '');
  const storage = storageByClaim(others, claims);
  const ownPvc = storage.get(ownClaim) ?? ZERO;
  storage.delete(ownClaim);
  const cached: RequestOf = (ws, name) => effectiveRequest(memo.resourcesOf(ws), name);
  const requestIn = (resources: ParsedResources): RequestOf => (_ws, name) => effectiveRequest(resources, name);
  const usedOf = (name: string) => addQuantities(...others.map((ws) => heldBy(ws, name, cached)));

  const dimensions: Dimension[] = [
    ['cpu', 'spec.resources.requests.cpu', 'cpu'],
    ['memory', 'spec.resources.requests.memory', 'memory'],
    ['gpu', `spec.resources.limits.${gpuResource}`, gpuResource],
  ].map(([quotaField, field, resource]) => ({
    quotaField: quotaField!,
    field: field!,
    limit: quotaField === 'gpu' ? limitOf(quota.gpu ?? 0) : limitOf(quota[quotaField as 'cpu' | 'memory']),
    requested: heldBy(workspace, resource!, requestIn(parsed)),
    previous: oldWorkspace && oldParsed ? heldBy(oldWorkspace, resource!, requestIn(oldParsed)) : ZERO,
    used: usedOf(resource!),
  }));
  const ownStorage = tryParseQuantity(workspace.spec?.storage) ?? ZERO;
  const oldStorage = tryParseQuantity(oldWorkspace?.spec?.storage) ?? ZERO;
  dimensions.push({
    quotaField: 'storage',
    field: 'spec.storage',
    limit: limitOf(quota.storage),
    requested: max(ownStorage, ownPvc),
    previous: oldWorkspace ? max(oldStorage, ownPvc) : ZERO,
    used: addQuantities(...storage.values()),
  });
  if (input.operation === 'CREATE') {
    dimensions.push({
      quotaField: 'workspaces',
      field: 'metadata.name',
      limit: limitOf(quota.workspaces),
      requested: countQuantity(1),
      previous: ZERO,
      used: countQuantity(others.length),
    });
  }

  const userSpaceName = userSpace.metadata?.name ?? '';
  const violations: Violation[] = [];
  for (const d of dimensions) {
    // An update is checked only where it grows: stopping a workspace or removing a finalizer
    // must stay possible after an administrator lowered the quota.
    const grows = input.operation === 'CREATE' ? compareQuantities(d.requested, ZERO) > 0 || d.quotaField === 'workspaces' : compareQuantities(d.requested, d.previous) > 0;
    if (!grows || d.limit === undefined) continue;
    if (d.limit === 'invalid') {
      violations.push({
        rule: 'quota',
        field: d.field,
        message: `UserSpace "${userSpaceName}" spec.quota.${d.quotaField} is ${JSON.stringify(quota[d.quotaField as keyof typeof quota])}, not a valid quantity; an administrator must correct it`,
        advice: `Your space's quota of ${WHAT[d.quotaField] ?? d.quotaField} is set to something Den cannot read, so nothing more can be checked against it: ask an administrator to correct it.`,
      });
      continue;
    }
    const total = addQuantities(d.used, d.requested);
    if (compareQuantities(total, d.limit) > 0) {
      violations.push({
        rule: 'quota',
        field: d.field,
        message: `exceeded quota of UserSpace "${userSpaceName}" (spec.quota.${d.quotaField}): requested ${show(d, d.requested)}, used ${show(d, d.used)}, limited ${show(d, d.limit)}`,
        advice: quotaAdvice(d),
      });
    }
  }
  return violations;
}
