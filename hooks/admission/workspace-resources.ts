// SPEC 2.5 `spec.resources`: every quantity parses, no request above its limit, and an
// extended resource (a GPU) has its request equal to its limit.
import { compareQuantities, formatQuantity, isNonNegativeQuantity, parseQuantity, QuantityError, type Quantity } from '../../kube/quantity.js';
import type { ResourceList, ResourceRequirements } from './objects.js';
import type { Violation } from './violations.js';

/** Resources the kubelet itself accounts; everything else is an extended resource. */
export function isExtendedResource(name: string): boolean {
  return !(name === 'cpu' || name === 'memory' || name === 'ephemeral-storage' || name.startsWith('hugepages-'));
}

export interface ParsedResources {
  requests: Map<string, Quantity>;
  limits: Map<string, Quantity>;
}

/** Parses both lists, reporting every value that is not a non-negative quantity. */
export function parseResources(resources: ResourceRequirements | undefined, violations: Violation[]): ParsedResources {
  return {
    requests: parseList(resources?.requests, 'spec.resources.requests', violations),
    limits: parseList(resources?.limits, 'spec.resources.limits', violations),
  };
}

function parseList(list: ResourceList | undefined, path: string, violations: Violation[]): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  if (list === undefined || list === null) return out;
  if (typeof list !== 'object' || Array.isArray(list)) {
    violations.push({ rule: 'quantity', field: path, message: 'must be a map of resource name to quantity' });
    return out;
  }
  for (const [name, raw] of Object.entries(list)) {
    const field = `${path}.${name}`;
    try {
      const q = parseQuantity(raw as string | number);
      if (!isNonNegativeQuantity(raw)) violations.push({ rule: 'quantity', field, message: `must not be negative (got ${String(raw)})` });
      else out.set(name, q);
    } catch (err) {
      if (!(err instanceof QuantityError)) throw err;
      violations.push({ rule: 'quantity', field, message: err.message });
    }
  }
  return out;
}

/** Requests at most their limits; extended resources with a limit, and request equal to it. */
export function checkRequestsAndLimits(parsed: ParsedResources): Violation[] {
  const violations: Violation[] = [];
  for (const [name, request] of parsed.requests) {
    const limit = parsed.limits.get(name);
    if (isExtendedResource(name)) {
      if (!limit) {
        violations.push({
          rule: 'extended-resource',
          field: `spec.resources.limits.${name}`,
          message: `${name} is an extended resource: set its limit equal to its request (requests.${name}=${formatQuantity(request)}, no limit)`,
        });
      } else if (compareQuantities(request, limit) !== 0) {
        violations.push({
          rule: 'extended-resource',
          field: `spec.resources.requests.${name}`,
          message: `${name} is an extended resource: its request must equal its limit (requests.${name}=${formatQuantity(request)}, limits.${name}=${formatQuantity(limit)})`,
        });
      }
    } else if (limit && compareQuantities(request, limit) > 0) {
      violations.push({
        rule: 'request-above-limit',
        field: `spec.resources.requests.${name}`,
        message: `a request must not exceed its limit (requests.${name}=${formatQuantity(request)} > limits.${name}=${formatQuantity(limit)})`,
      });
    }
  }
  return violations;
}

/** What the scheduler counts: the request, or the limit when only a limit is set. */
export function effectiveRequest(parsed: ParsedResources, name: string): Quantity | undefined {
  return parsed.requests.get(name) ?? parsed.limits.get(name);
}
