// Slows down password guessing against one username: after a few free failures every
// further attempt is refused for a window that doubles with each failure. Kept in
// memory per replica; a restart forgets it, which only ever helps a legitimate user.

export interface ThrottlePolicy {
  /** Failures allowed before the first lockout. */
  freeFailures: number;
  /** Lockout after the first failure beyond the free ones; doubles with each further failure. */
  baseLockMs: number;
  maxLockMs: number;
  /** A username with no failure for this long starts over. */
  forgetAfterMs: number;
  /** Bounds memory when someone sprays many usernames; the oldest entries go first. */
  maxEntries: number;
}

export const DEFAULT_LOGIN_THROTTLE: ThrottlePolicy = {
  freeFailures: 5,
  baseLockMs: 1_000,
  maxLockMs: 15 * 60_000,
  forgetAfterMs: 60 * 60_000,
  maxEntries: 10_000,
};

interface FailureRecord {
  count: number;
  lastFailure: number;
}

export class LoginThrottle {
  private readonly failures = new Map<string, FailureRecord>();

  constructor(private readonly policy: ThrottlePolicy = DEFAULT_LOGIN_THROTTLE) {}

  /** Milliseconds before `username` may try again; 0 when an attempt is allowed now. */
  retryAfterMs(username: string, now: number): number {
    const record = this.current(keyOf(username), now);
    if (!record || record.count < this.policy.freeFailures) return 0;
    const lock = Math.min(this.policy.baseLockMs * 2 ** (record.count - this.policy.freeFailures), this.policy.maxLockMs);
    return Math.max(0, record.lastFailure + lock - now);
  }

  recordFailure(username: string, now: number): void {
    const key = keyOf(username);
    const record = this.current(key, now);
    this.failures.delete(key);
    this.failures.set(key, { count: (record?.count ?? 0) + 1, lastFailure: now });
    while (this.failures.size > this.policy.maxEntries) {
      const oldest = this.failures.keys().next().value as string;
      this.failures.delete(oldest);
    }
  }

  recordSuccess(username: string): void {
    this.failures.delete(keyOf(username));
  }

  private current(key: string, now: number): FailureRecord | undefined {
    const record = this.failures.get(key);
    if (record && now - record.lastFailure >= this.policy.forgetAfterMs) {
      this.failures.delete(key);
      return undefined;
    }
    return record;
  }
}

function keyOf(username: string): string {
  return username.trim().toLowerCase();
}
