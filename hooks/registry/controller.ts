// The ImageRegistry controller (SPEC 1.6): each registry's listing is a polled source of the
// loop, fetched every spec.sync.intervalSeconds and at once when the spec (generation) or the
// den.dev/force-sync annotation changes; the WorkspaceImages it owns are its children.
import type { KubeObject } from '../../kube/client.js';
import { ANNOTATIONS, LABELS } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { IMAGE_REGISTRY_LIMITS } from '../../infra/crds/image-registry-rules.js';
import type { ControllerSpec } from '../loop/controller.js';
import type { PolledSource, PollView } from '../loop/poller.js';
import { RegistryError } from './provider.js';
import { defaultProviders, providerFor, type Providers } from './providers.js';
import { compileSyncPatterns, wantsRepository } from './select.js';
import { syncImageRegistry, type ListingView, type RegistryHookConfig, type RegistryRelated } from './sync.js';
import type { ImageRegistry, RegistryListing } from './types.js';

export interface RegistrySyncConfig {
  /** Implementations by spec.provider; default the real ones. */
  providers?: Providers;
  /** A listing running longer is abandoned as TimedOut. */
  listingTimeoutMs?: number;
  /** First retry after a failed listing; doubles with each failure, never past the interval. */
  retryBaseMs?: number;
  /** The same after throttling, which asks for more patience. */
  throttledRetryBaseMs?: number;
  /** Length of one of spec.sync.intervalSeconds' seconds: 1000, except in tests. */
  secondMs?: number;
}

export const REGISTRY_SYNC_DEFAULTS = {
  listingTimeoutMs: 5 * 60_000,
  retryBaseMs: 15_000,
  throttledRetryBaseMs: 60_000,
  secondMs: 1000,
} as const;

/** Generation and force-sync value: either changing starts a listing at once. */
export function syncTrigger(parent: KubeObject): string {
  return `${parent.metadata?.generation ?? 0}/${parent.metadata?.annotations?.[ANNOTATIONS.forceSync] ?? ''}`;
}

export function retryDelayMs(failures: number, error: unknown, intervalMs: number, config: Required<Omit<RegistrySyncConfig, 'providers'>>): number {
  const base = error instanceof RegistryError && error.reason === 'Throttled' ? config.throttledRetryBaseMs : config.retryBaseMs;
  return Math.min(intervalMs, base * 2 ** Math.min(Math.max(failures - 1, 0), 20));
}

/** Lists one registry: patterns first (an invalid one costs no call), then the provider. */
export async function listRegistry(providers: Providers, registry: ImageRegistry, signal: AbortSignal): Promise<RegistryListing> {
  const spec = registry.spec ?? {};
  const patterns = compileSyncPatterns(spec);
  return providerFor(providers, spec.provider).list({ spec, wantsRepository: (name) => wantsRepository(patterns, name), signal });
}

export function listingView(poll: PollView<RegistryListing>): ListingView {
  if (poll.state === 'pending') return poll;
  if (poll.state === 'fetched') return { state: 'listed', listing: poll.value, at: poll.at };
  const error = poll.error;
  if (error instanceof RegistryError) return { state: 'failed', reason: error.reason, message: error.message, at: poll.at };
  return { state: 'failed', reason: 'ListingFailed', message: error instanceof Error ? error.message : String(error), at: poll.at };
}

export function imageRegistrySpec(settings: { registrySync?: RegistrySyncConfig }): ControllerSpec<RegistryHookConfig, RegistryRelated, RegistryListing> {
  const { providers = defaultProviders(), ...given } = settings.registrySync ?? {};
  const config = { ...REGISTRY_SYNC_DEFAULTS, ...given };
  const intervalMs = (parent: KubeObject) => ((parent as ImageRegistry).spec?.sync?.intervalSeconds ?? IMAGE_REGISTRY_LIMITS.intervalSecondsDefault) * config.secondMs;
  const poll: PolledSource<RegistryListing> = {
    trigger: syncTrigger,
    intervalMs,
    retryDelayMs: (parent, failures, error) => retryDelayMs(failures, error, intervalMs(parent), config),
    timeoutMs: config.listingTimeoutMs,
    fetch: (parent, signal) => listRegistry(providers, parent as ImageRegistry, signal),
  };
  return {
    name: 'imageregistry',
    parent: RESOURCES.imageRegistry,
    children: [RESOURCES.workspaceImage],
    parentLabel: LABELS.imageRegistry,
    hook: syncImageRegistry,
    config: {},
    poll,
    related: (_parent, _caches, listing) => ({ listing: listingView(listing) }),
  };
}
