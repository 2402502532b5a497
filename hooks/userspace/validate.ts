// Reads a UserSpace into the values its children are rendered from, or says exactly which
// fields are wrong. The CRD schema refuses most bad input; this is the render-time check for
// whatever got past it (an older CRD, a quantity the schema only types as a string).
import { userNamespace } from '../../kube/group.js';
import { DNS1123_LABEL_MAX, isDns1123Label } from '../../kube/names.js';
import { isNonNegativeQuantity, tryParseQuantity } from '../../kube/quantity.js';
import type { NetworkPolicyMode } from './children/props.js';
import { NETWORK_POLICIES } from '../../contract/user-space.js';
import { containerDefaults, type BudgetQuantity } from './limit-defaults.js';
import type { UserSpace } from './types.js';

const NETWORK_POLICY_MODES: readonly NetworkPolicyMode[] = NETWORK_POLICIES;

export interface UserSpacePlan {
  name: string;
  namespace: string;
  owner: string;
  quota: { cpu: string; memory: string; storage: string; gpu: number; workspaces: number };
  containerDefaults: { request: Record<string, string>; limit: Record<string, string> };
  networkPolicy: NetworkPolicyMode;
}

export type PlanResult = { ok: true; plan: UserSpacePlan } | { ok: false; problems: string[] };

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function budget(field: string, value: unknown, problems: string[]): BudgetQuantity | undefined {
  if (value === undefined || value === null || value === '') {
    problems.push(`${field}: required`);
    return undefined;
  }
  const text = typeof value === 'number' ? String(value) : value;
  const parsed = typeof text === 'string' ? tryParseQuantity(text) : undefined;
  if (typeof text !== 'string' || !parsed) {
    problems.push(`${field}: ${show(value)} is not a valid quantity (examples: 500m, 2, 8Gi)`);
    return undefined;
  }
  if (!isNonNegativeQuantity(text)) {
    problems.push(`${field}: ${show(value)} must not be negative`);
    return undefined;
  }
  return { text, value: parsed };
}

function count(field: string, value: unknown, fallback: number | undefined, problems: string[]): number | undefined {
  if (value === undefined || value === null) {
    if (fallback !== undefined) return fallback;
    problems.push(`${field}: required`);
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    problems.push(`${field}: must be a whole number of at least 0, got ${show(value)}`);
    return undefined;
  }
  return value;
}

/**
 * `reservedNamespaces` are the platform's own (the manager's `--namespace`, `svc-system`): a
 * UserSpace named `system` would otherwise take over `svc-system`, its Secrets and RBAC, and
 * delete it with the UserSpace.
 */
export function planUserSpace(parent: UserSpace, reservedNamespaces: readonly string[]): PlanResult {
  const problems: string[] = [];
  const name = parent.metadata?.name ?? '';
  const namespace = userNamespace(name);
  if (!isDns1123Label(namespace)) {
    problems.push(
      `metadata.name: ${show(name)} gives the namespace ${show(namespace)}, which is not a valid namespace name ` +
        `(lower-case letters, digits and '-', at most ${DNS1123_LABEL_MAX} characters)`,
    );
  } else if (reservedNamespaces.includes(namespace)) {
    problems.push(`metadata.name: ${show(name)} gives the namespace ${show(namespace)}, which is the platform's own namespace; choose another name`);
  }
  const spec = asRecord(parent.spec) ?? {};
  const owner = spec.owner;
  if (typeof owner !== 'string' || owner.trim() === '') problems.push('spec.owner: required, a non-empty string');

  const quota = asRecord(spec.quota);
  let cpu: BudgetQuantity | undefined;
  let memory: BudgetQuantity | undefined;
  let storage: BudgetQuantity | undefined;
  let gpu: number | undefined;
  let workspaces: number | undefined;
  if (!quota) {
    problems.push('spec.quota: required');
  } else {
    cpu = budget('spec.quota.cpu', quota.cpu, problems);
    memory = budget('spec.quota.memory', quota.memory, problems);
    storage = budget('spec.quota.storage', quota.storage, problems);
    gpu = count('spec.quota.gpu', quota.gpu, 0, problems);
    workspaces = count('spec.quota.workspaces', quota.workspaces, undefined, problems);
  }

  const mode = spec.networkPolicy;
  if (!NETWORK_POLICY_MODES.includes(mode as NetworkPolicyMode)) {
    problems.push(
      mode === undefined
        ? 'spec.networkPolicy: required, Isolated or ClusterEgress'
        : `spec.networkPolicy: must be Isolated or ClusterEgress, got ${show(mode)}`,
    );
  }

  if (problems.length || !cpu || !memory || !storage || gpu === undefined || workspaces === undefined) {
    return { ok: false, problems };
  }
  return {
    ok: true,
    plan: {
      name,
      namespace,
      owner: owner as string,
      quota: { cpu: cpu.text, memory: memory.text, storage: storage.text, gpu, workspaces },
      containerDefaults: containerDefaults({ cpu, memory }),
      networkPolicy: mode as NetworkPolicyMode,
    },
  };
}
