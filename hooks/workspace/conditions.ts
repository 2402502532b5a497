// Condition bookkeeping: a condition's lastTransitionTime moves only when its status changes.
import type { Condition, ConditionType } from './types.js';

export type ConditionInput = Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>;

/** Kubernetes' metav1.Time wire format: RFC 3339 in UTC, whole seconds. */
export function kubeTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function previousOf(previous: unknown, type: ConditionType): { status?: unknown; lastTransitionTime?: unknown } | undefined {
  if (!Array.isArray(previous)) return undefined;
  return previous.find(
    (c: unknown): c is { type: string; status?: unknown; lastTransitionTime?: unknown } =>
      typeof c === 'object' && c !== null && (c as { type?: unknown }).type === type,
  );
}

/**
 * The conditions to write: each keeps the lastTransitionTime it already has when its status is
 * unchanged, and takes `now` otherwise.
 */
export function withTransitionTimes(
  next: ConditionInput[],
  previous: unknown,
  now: Date,
  observedGeneration: number | undefined,
): Condition[] {
  const stamp = kubeTime(now);
  return next.map((condition) => {
    const before = previousOf(previous, condition.type);
    const kept =
      before !== undefined && before.status === condition.status && typeof before.lastTransitionTime === 'string'
        ? before.lastTransitionTime
        : stamp;
    return {
      ...condition,
      lastTransitionTime: kept,
      ...(observedGeneration === undefined ? {} : { observedGeneration }),
    };
  });
}
