// Start-up against an API server that may be away (a cluster starting, a network policy not
// yet in place): every role waits for it the same way, one log line per failed attempt,
// while its /readyz answers 503, rather than exiting into a crash loop.
import { setTimeout as delay } from 'node:timers/promises';
import type { KubeClient } from './client.js';
import { KubeApiError, KubeUnavailableError } from './errors.js';

export interface WaitOptions {
  /** Gets one line per failed attempt; never secrets. */
  log: (msg: string, fields?: Record<string, unknown>) => void;
  signal: AbortSignal;
  /** Pause after the first failure; doubled after each, up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * The API server away, or overloaded, here or as the cause of a step's own error: waiting
 * cures it. Anything else (403, 422, a bad certificate, …) it does not.
 */
export function isUnavailable(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof KubeUnavailableError || (e instanceof KubeApiError && (e.status >= 500 || e.status === 429))) return true;
  }
  return false;
}

/**
 * Runs `step` until it succeeds or fails with something waiting does not cure (thrown).
 * After each unavailable answer logs `API server unavailable; retrying` (with `what` as the
 * step) and waits.
 * Resolves undefined when `signal` aborts first.
 */
export async function whenAvailable<T>(what: string, step: () => Promise<T>, opts: WaitOptions): Promise<T | undefined> {
  let pause = opts.firstDelayMs ?? 1000;
  for (let attempt = 1; !opts.signal.aborted; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (!isUnavailable(err)) throw err;
      opts.log('API server unavailable; retrying', { step: what, attempt, retryInMs: pause, error: (err as Error).message });
    }
    try {
      await delay(pause, undefined, { signal: opts.signal });
    } catch {
      return undefined; // aborted while waiting: the role is stopping
    }
    pause = Math.min(pause * 2, opts.maxDelayMs ?? 30_000);
  }
  return undefined;
}

/**
 * Resolves once the API server answers at all (any HTTP status but 5xx and 429 counts: a
 * 401 or 404 is the API server speaking), or undefined when `signal` aborts first.
 */
export function apiServerReachable(client: KubeClient, opts: WaitOptions): Promise<true | undefined> {
  return whenAvailable(
    `connect to ${client.connection.server}`,
    async () => {
      try {
        await client.request({ path: '/version' });
      } catch (err) {
        if (isUnavailable(err)) throw err;
      }
      return true as const;
    },
    opts,
  );
}
