// Condition bookkeeping: a condition's lastTransitionTime moves only when its status changes.
import type { Condition, ConditionType } from './types.js';

export type ConditionInput = Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>;

/**
 * Messages quote the Workspace and the API server; the CRD refuses a condition message over
 * 32768 characters, and a status that cannot be written would leave the old one standing.
 */
const MAX_MESSAGE = 4000;

function capped(message: string): string {
  return message.length <= MAX_MESSAGE ? message : `${message.slice(0, MAX_MESSAGE - 1)}…`;
}

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
 * unchanged, and takes `now` otherwise; long messages are shortened.
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
      message: capped(condition.message),
      lastTransitionTime: kept,
      ...(observedGeneration === undefined ? {} : { observedGeneration }),
    };
  });
}
