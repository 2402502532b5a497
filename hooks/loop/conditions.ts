// Condition bookkeeping for every hook's status (DESIGN.md hook contract): a condition's
// lastTransitionTime moves only when its status changes.

// A type alias, not an interface, so a status holding conditions fits the loop's `Record<string, unknown>`.
export type Condition<Type extends string = string> = {
  type: Type;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
};

export type ConditionInput<Type extends string = string> = Omit<Condition<Type>, 'lastTransitionTime' | 'observedGeneration'>;

/**
 * Messages quote the parent and the API server; the CRD refuses a condition message over
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

function previousOf(previous: unknown, type: string): { status?: unknown; lastTransitionTime?: unknown } | undefined {
  if (!Array.isArray(previous)) return undefined;
  return previous.find(
    (c: unknown): c is { type: string; status?: unknown; lastTransitionTime?: unknown } =>
      typeof c === 'object' && c !== null && (c as { type?: unknown }).type === type,
  );
}

/**
 * The conditions to write: each keeps the lastTransitionTime it already has when its status is
 * unchanged, and takes `now` otherwise; long messages are shortened. `previous` is the parent's
 * `status.conditions` as observed, trusted in no part.
 */
export function withTransitionTimes<Type extends string>(
  next: ConditionInput<Type>[],
  previous: unknown,
  now: Date,
  observedGeneration: number | undefined,
): Condition<Type>[] {
  const stamp = kubeTime(now);
  return next.map((condition) => {
    const before = previousOf(previous, condition.type);
    const kept =
      before !== undefined && before.status === condition.status && typeof before.lastTransitionTime === 'string' && before.lastTransitionTime !== ''
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
