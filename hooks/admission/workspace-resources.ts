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

/** A resource as a person names it, and an amount of it they could write. */
export function resourceInWords(name: string): { what: string; example: string } {
  if (name === 'cpu') return { what: 'CPU', example: 'cores, such as 2 or 500m' };
  if (name === 'memory') return { what: 'memory', example: 'a number and a unit, such as 4Gi or 512Mi' };
  if (isExtendedResource(name)) return { what: `${name} (GPUs)`, example: 'a whole number, such as 1' };
  return { what: name, example: 'a number and a unit, such as 10Gi' };
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
    violations.push({ rule: 'quantity', field: path, message: 'must be a map of resource name to quantity', advice: 'Sizes are written per resource, such as cpu: 2 and memory: 4Gi.' });
    return out;
  }
  for (const [name, raw] of Object.entries(list)) {
    const field = `${path}.${name}`;
    const { what, example } = resourceInWords(name);
    try {
      const q = parseQuantity(raw as string | number);
      if (!isNonNegativeQuantity(raw)) violations.push({ rule: 'quantity', field, message: `must not be negative (got ${String(raw)})`, advice: `An amount of ${what} cannot be negative: write ${example}.` });
      else out.set(name, q);
    } catch (err) {
      if (!(err instanceof QuantityError)) throw err;
      violations.push({ rule: 'quantity', field, message: err.message, advice: `"${String(raw)}" is not an amount of ${what}: write ${example}.` });
    }
  }
  return out;
}

const GPU_ADVICE = "GPUs are reserved whole: a workspace gets exactly the number it asks for, so the request and the limit must be the same number (Den's forms set both to the number you type).";

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
          advice: GPU_ADVICE,
        });
      } else if (compareQuantities(request, limit) !== 0) {
        violations.push({
          rule: 'extended-resource',
          field: `spec.resources.requests.${name}`,
          message: `${name} is an extended resource: its request must equal its limit (requests.${name}=${formatQuantity(request)}, limits.${name}=${formatQuantity(limit)})`,
          advice: GPU_ADVICE,
        });
      }
    } else if (limit && compareQuantities(request, limit) > 0) {
      violations.push({
        rule: 'request-above-limit',
        field: `spec.resources.requests.${name}`,
        message: `a request must not exceed its limit (requests.${name}=${formatQuantity(request)} > limits.${name}=${formatQuantity(limit)})`,
        advice: `This asks for ${formatQuantity(request)} of ${resourceInWords(name).what} but allows at most ${formatQuantity(limit)}: ask for no more than it may use (Den's forms set both to the size you type).`,
      });
    }
  }
  return violations;
}

/** What the scheduler counts: the request, or the limit when only a limit is set. */
export function effectiveRequest(parsed: ParsedResources, name: string): Quantity | undefined {
  return parsed.requests.get(name) ?? parsed.limits.get(name);
}
