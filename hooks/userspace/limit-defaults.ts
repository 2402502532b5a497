// Container defaults of the LimitRange `svc-limits`. The ResourceQuota counts requests.cpu and
// requests.memory, and the API server refuses a pod that requests neither when such a quota
// exists; these defaults fill them in so a container that names no resources is admitted.
import { compareQuantities, parseQuantity, type Quantity } from '../../kube/quantity.js';

export const CONTAINER_DEFAULTS = {
  request: { cpu: '100m', memory: '128Mi' },
  limit: { cpu: '1', memory: '1Gi' },
} as const;

export interface BudgetQuantity {
  text: string;
  value: Quantity;
}

type Resource = keyof typeof CONTAINER_DEFAULTS.request;

function atMost(defaultText: string, budget: BudgetQuantity): string {
  return compareQuantities(parseQuantity(defaultText), budget.value) <= 0 ? defaultText : budget.text;
}

/**
 * Never above the budget: a default larger than the quota would make every defaulted pod fail
 * admission. A budget of zero gets no default at all, so a pod that names no resources is
 * refused by the quota with the API server's own message instead of running with nothing.
 */
export function containerDefaults(
  budget: Record<Resource, BudgetQuantity>,
): { request: Record<string, string>; limit: Record<string, string> } {
  const request: Record<string, string> = {};
  const limit: Record<string, string> = {};
  for (const resource of ['cpu', 'memory'] as const) {
    const b = budget[resource];
    if (b.value.num <= 0n) continue;
    request[resource] = atMost(CONTAINER_DEFAULTS.request[resource], b);
    limit[resource] = atMost(CONTAINER_DEFAULTS.limit[resource], b);
  }
  return { request, limit };
}
