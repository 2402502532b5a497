// The ImageRegistry controller (SPEC 1.6): a parent fed by a polled outside source through the
// loop's seam (docs/manager.md): `related` awaits the registry's listing when it is due
// (hooks/registry/listings.ts), and the hook asks for the next run with `resyncAfterMs`. The
// WorkspaceImages a registry owns are its children.
import { LABELS } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { IMAGE_REGISTRY_LIMITS } from '../../contract/image-registry-rules.js';
import type { ControllerSpec } from '../loop/spec.js';
import { RegistryListings } from './listings.js';
import type { RegistryError } from './provider.js';
import { defaultProviders, providerFor, type Providers } from './providers.js';
import { compileSyncPatterns, wantsRepository } from './select.js';
import { syncImageRegistry, type RegistryHookConfig, type RegistryRelated } from './sync.js';
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

type Tuning = Required<Omit<RegistrySyncConfig, 'providers'>>;

export function retryDelayMs(failures: number, error: RegistryError, intervalMs: number, tuning: Tuning): number {
  const base = error.reason === 'Throttled' ? tuning.throttledRetryBaseMs : tuning.retryBaseMs;
  return Math.min(intervalMs, base * 2 ** Math.min(Math.max(failures - 1, 0), 20));
}

/** Lists one registry: patterns first (an invalid one costs no call), then the provider. */
export async function listRegistry(providers: Providers, registry: ImageRegistry, signal: AbortSignal): Promise<RegistryListing> {
  const spec = registry.spec ?? {};
  const patterns = compileSyncPatterns(spec);
  return providerFor(providers, spec.provider).list({ spec, wantsRepository: (name) => wantsRepository(patterns, name), signal });
}

export function imageRegistrySpec(settings: { registrySync?: RegistrySyncConfig }): ControllerSpec<RegistryHookConfig, RegistryRelated> {
  const { providers = defaultProviders(), ...given } = settings.registrySync ?? {};
  const tuning: Tuning = { ...REGISTRY_SYNC_DEFAULTS, ...given };
  const intervalMs = (registry: ImageRegistry) => (registry.spec?.sync?.intervalSeconds ?? IMAGE_REGISTRY_LIMITS.intervalSecondsDefault) * tuning.secondMs;
  const listings = new RegistryListings((registry, signal) => listRegistry(providers, registry, signal), {
    intervalMs,
    retryDelayMs: (registry, failures, error) => retryDelayMs(failures, error, intervalMs(registry), tuning),
    timeoutMs: tuning.listingTimeoutMs,
  });
  return {
    name: 'imageregistry',
    parent: RESOURCES.imageRegistry,
    children: [RESOURCES.workspaceImage],
    parentLabel: LABELS.imageRegistry,
    hook: syncImageRegistry,
    config: {},
    related: async (parent, _caches, { signal }) => ({ listing: await listings.view(parent as ImageRegistry, signal) }),
  };
}
