// Slows down password guessing against one username: after a few free attempts that did
// not succeed, every further attempt is refused for a window that doubles with each one.
// An attempt counts before its password is checked, so guesses sent in parallel cannot all
// slip in before the first failure is recorded. Kept in memory per replica; a restart
// forgets it, which only ever helps a legitimate user.

export interface ThrottlePolicy {
  /** Unsuccessful attempts allowed before the first lockout. */
  freeFailures: number;
  /** Lockout after the first attempt beyond the free ones; doubles with each further one. */
  baseLockMs: number;
  maxLockMs: number;
  /** A username with no attempt for this long starts over. */
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

interface AttemptRecord {
  count: number;
  lastAttempt: number;
}

export class LoginThrottle {
  private readonly attempts = new Map<string, AttemptRecord>();

  constructor(private readonly policy: ThrottlePolicy = DEFAULT_LOGIN_THROTTLE) {}

  /** Milliseconds before `username` may try again; 0 when an attempt is allowed now. */
  retryAfterMs(username: string, now: number): number {
    const record = this.current(keyOf(username), now);
    if (!record || record.count < this.policy.freeFailures) return 0;
    const lock = Math.min(this.policy.baseLockMs * 2 ** (record.count - this.policy.freeFailures), this.policy.maxLockMs);
    return Math.max(0, record.lastAttempt + lock - now);
  }

  /** Counts an attempt about to check a password; `recordSuccess` forgets it again. */
  recordAttempt(username: string, now: number): void {
    const key = keyOf(username);
    const record = this.current(key, now);
    this.attempts.delete(key);
    this.attempts.set(key, { count: (record?.count ?? 0) + 1, lastAttempt: now });
    while (this.attempts.size > this.policy.maxEntries) {
      const oldest = this.attempts.keys().next().value as string;
      this.attempts.delete(oldest);
    }
  }

  recordSuccess(username: string): void {
    this.attempts.delete(keyOf(username));
  }

  private current(key: string, now: number): AttemptRecord | undefined {
    const record = this.attempts.get(key);
    if (record && now - record.lastAttempt >= this.policy.forgetAfterMs) {
      this.attempts.delete(key);
      return undefined;
    }
    return record;
  }
}

function keyOf(username: string): string {
  return username.trim().toLowerCase();
}
