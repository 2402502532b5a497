// What the registry controller remembers of each registry's last listing, so the loop's
// reconciles (run on every event, status writes included) list a registry only when the last
// listing is due: its spec (generation) or den.dev/force-sync changed, the interval passed, or
// the retry delay after a failure passed. A listing runs under a timeout, so a slow registry
// holds one worker of the registry controller for at most that long.
import type { KubeObject } from '../../kube/client.js';
import { ANNOTATIONS } from '../../kube/group.js';
import { RegistryError } from './provider.js';
import type { ListingView } from './sync.js';
import type { ImageRegistry, RegistryListing } from './types.js';

export interface ListingPolicy {
  intervalMs(registry: ImageRegistry): number;
  /** Delay before listing again after `failures` failures in a row. */
  retryDelayMs(registry: ImageRegistry, failures: number, error: RegistryError): number;
  timeoutMs: number;
  clock?: () => number;
}

export type ListFunction = (registry: ImageRegistry, signal: AbortSignal) => Promise<RegistryListing>;

interface Remembered {
  trigger: string;
  view: ListingView;
  failures: number;
}

/** A remembered listing this long past due belongs to a registry no longer reconciled (deleted). */
const FORGET_AFTER_DUE_MS = 10 * 60_000;

/** The uid, generation and force-sync value: a change of any starts a listing at once. */
export function syncTrigger(parent: KubeObject): string {
  return `${parent.metadata?.uid ?? ''}/${parent.metadata?.generation ?? 0}/${parent.metadata?.annotations?.[ANNOTATIONS.forceSync] ?? ''}`;
}

export function asRegistryError(err: unknown): RegistryError {
  if (err instanceof RegistryError) return err;
  return new RegistryError('ListingFailed', err instanceof Error ? err.message : String(err), { cause: err });
}

export class RegistryListings {
  private readonly byUid = new Map<string, Remembered>();
  private readonly clock: () => number;
  /** Listings started, for tests and benchmarks. */
  listings = 0;

  constructor(private readonly list: ListFunction, private readonly policy: ListingPolicy) {
    this.clock = policy.clock ?? Date.now;
  }

  /**
   * The remembered listing while it is current and not due; otherwise a new one, awaited. A
   * failure is a view too (the hook reports it); only an abandoned reconcile (`signal`) rejects.
   */
  async view(registry: ImageRegistry, signal: AbortSignal): Promise<ListingView> {
    const now = this.clock();
    this.forgetStale(now);
    const uid = registry.metadata?.uid ?? '';
    const trigger = syncTrigger(registry);
    const remembered = this.byUid.get(uid);
    const current = remembered?.trigger === trigger ? remembered : undefined;
    if (current && now < current.view.dueAt.getTime()) return current.view;
    this.listings++;
    let next: Remembered;
    try {
      const listing = await this.list(registry, AbortSignal.any([signal, AbortSignal.timeout(this.policy.timeoutMs)]));
      const at = this.clock();
      next = { trigger, failures: 0, view: { state: 'listed', listing, at: new Date(at), dueAt: new Date(at + this.policy.intervalMs(registry)) } };
    } catch (err) {
      if (signal.aborted) throw err;
      const error = asRegistryError(err);
      const failures = (current?.failures ?? 0) + 1;
      const at = this.clock();
      const dueAt = new Date(at + this.policy.retryDelayMs(registry, failures, error));
      next = { trigger, failures, view: { state: 'failed', reason: error.reason, message: error.message, at: new Date(at), dueAt } };
    }
    this.byUid.set(uid, next);
    return next.view;
  }

  private forgetStale(now: number): void {
    for (const [uid, remembered] of this.byUid) {
      if (now > remembered.view.dueAt.getTime() + this.policy.timeoutMs + FORGET_AFTER_DUE_MS) this.byUid.delete(uid);
    }
  }
}
