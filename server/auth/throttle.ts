// Slows down password guessing without letting anyone lock a person out. Attempts are
// counted per (username, client address) and per client address: after a few free attempts
// that did not succeed, further ones from that address (for that username, or for any) are
// refused for a window that doubles with each one. A guesser elsewhere never slows the owner
// of the username down; a guesser spraying usernames from one address slows only that address.
// The same counting applies whether the username exists or not, so the answers say nothing
// about that. An attempt counts before its password is checked, so guesses sent in parallel
// cannot all slip in before the first failure is recorded. Kept in memory per replica; a
// restart forgets it, which only ever helps a legitimate user.

export interface ThrottlePolicy {
  /** Unsuccessful attempts allowed before the first lockout. */
  freeFailures: number;
  /** Lockout after the first attempt beyond the free ones; doubles with each further one. */
  baseLockMs: number;
  maxLockMs: number;
  /** A key with no attempt for this long starts over. */
  forgetAfterMs: number;
  /** Bounds memory when someone sprays many usernames or addresses; the oldest entries go first. */
  maxEntries: number;
}

export interface LoginThrottlePolicy {
  /** Attempts for one username from one client address. */
  perUsernameAndAddress: ThrottlePolicy;
  /** Attempts for any usernames from one client address. */
  perAddress: ThrottlePolicy;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottlePolicy = {
  perUsernameAndAddress: { freeFailures: 5, baseLockMs: 1_000, maxLockMs: 15 * 60_000, forgetAfterMs: 60 * 60_000, maxEntries: 10_000 },
  // Several people behind one NAT may each mistype a few times; spraying usernames is what it stops.
  perAddress: { freeFailures: 30, baseLockMs: 1_000, maxLockMs: 15 * 60_000, forgetAfterMs: 60 * 60_000, maxEntries: 10_000 },
};

/** One sign-in (or password-change) attempt: who it names and where it comes from. */
export interface LoginAttempt {
  username: string;
  /** The client address (server/http/client-address.ts). */
  address: string;
}

interface AttemptRecord {
  count: number;
  lastAttempt: number;
}

/** Attempts per key with the doubling lockout of one policy. */
export class AttemptCounter {
  private readonly attempts = new Map<string, AttemptRecord>();

  constructor(private readonly policy: ThrottlePolicy) {}

  retryAfterMs(key: string, now: number): number {
    const record = this.current(key, now);
    if (!record || record.count < this.policy.freeFailures) return 0;
    const lock = Math.min(this.policy.baseLockMs * 2 ** (record.count - this.policy.freeFailures), this.policy.maxLockMs);
    return Math.max(0, record.lastAttempt + lock - now);
  }

  add(key: string, now: number): void {
    const record = this.current(key, now);
    this.attempts.delete(key);
    this.attempts.set(key, { count: (record?.count ?? 0) + 1, lastAttempt: now });
    while (this.attempts.size > this.policy.maxEntries) {
      const oldest = this.attempts.keys().next().value as string;
      this.attempts.delete(oldest);
    }
  }

  /** Takes back one counted attempt (it succeeded), keeping the failures before it. */
  takeBack(key: string): void {
    const record = this.attempts.get(key);
    if (!record) return;
    if (record.count <= 1) this.attempts.delete(key);
    else record.count--;
  }

  forget(key: string): void {
    this.attempts.delete(key);
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

export class LoginThrottle {
  private readonly pairs: AttemptCounter;
  private readonly addresses: AttemptCounter;

  constructor(policy: LoginThrottlePolicy = DEFAULT_LOGIN_THROTTLE) {
    this.pairs = new AttemptCounter(policy.perUsernameAndAddress);
    this.addresses = new AttemptCounter(policy.perAddress);
  }

  /** Milliseconds before this attempt may be made; 0 when it is allowed now. */
  retryAfterMs(attempt: LoginAttempt, now: number): number {
    return Math.max(this.pairs.retryAfterMs(pairKey(attempt), now), this.addresses.retryAfterMs(attempt.address, now));
  }

  /** Counts an attempt about to check a password; `recordSuccess` takes it back. */
  recordAttempt(attempt: LoginAttempt, now: number): void {
    this.pairs.add(pairKey(attempt), now);
    this.addresses.add(attempt.address, now);
  }

  /**
   * The password was right: this username starts over from this address. The address keeps
   * its earlier failures, so signing in to one's own account does not reset guessing at others.
   */
  recordSuccess(attempt: LoginAttempt): void {
    this.pairs.forget(pairKey(attempt));
    this.addresses.takeBack(attempt.address);
  }
}

function pairKey({ username, address }: LoginAttempt): string {
  return `${username.trim().toLowerCase()}\n${address}`;
}
