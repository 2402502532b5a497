// Token buckets: how many things may start per second, with a burst (client-go's flowcontrol
// token bucket, without shared mutable state in the pure part).
import { sleep } from './timers.js';

export interface TokenBucket {
  tokens: number;
  at: number;
}

export interface RateLimit {
  perSecond: number;
  burst: number;
}

/**
 * Takes one token at time `now`: the new bucket and how long the caller must wait for its
 * token (zero while the burst lasts). Tokens may go negative: each reservation queues behind
 * the previous ones.
 */
export function reserveToken(bucket: TokenBucket | undefined, now: number, limit: RateLimit): { bucket: TokenBucket; waitMs: number } {
  const previous = bucket ?? { tokens: limit.burst, at: now };
  const refilled = Math.min(limit.burst, previous.tokens + ((now - previous.at) / 1000) * limit.perSecond);
  const tokens = refilled - 1;
  const waitMs = tokens >= 0 ? 0 : Math.ceil((-tokens / limit.perSecond) * 1000);
  return { bucket: { tokens, at: now }, waitMs };
}

/** One bucket shared by every caller: `take()` resolves when the caller's token is due. */
export class RateLimiter {
  private bucket: TokenBucket | undefined;
  private waiting = 0;

  constructor(
    readonly limit: RateLimit,
    private readonly clock: () => number = Date.now,
  ) {
    if (!(limit.perSecond > 0) || !(limit.burst >= 1)) throw new Error(`a rate limit needs a positive rate and a burst of at least 1 (got ${limit.perSecond}/s, burst ${limit.burst})`);
  }

  /** Callers waiting for their token now. */
  get queued(): number {
    return this.waiting;
  }

  async take(signal?: AbortSignal): Promise<void> {
    const reserved = reserveToken(this.bucket, this.clock(), this.limit);
    this.bucket = reserved.bucket;
    if (reserved.waitMs <= 0) return;
    this.waiting++;
    try {
      await sleep(reserved.waitMs, signal);
    } finally {
      this.waiting--;
    }
  }
}
