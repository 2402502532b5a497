// spec.provider → its implementation. A second provider is one more entry (SPEC 9).
import type { REGISTRY_PROVIDERS } from '../../contract/image-registry.js';
import { cloudRegistryProvider, type CloudRegistryOptions } from './cloud-registry.js';
import { RegistryError, type RegistryProvider } from './provider.js';

export type ProviderName = (typeof REGISTRY_PROVIDERS)[number];

export interface ProviderOptions {
  cloudRegistry?: CloudRegistryOptions;
}

export type Providers = Record<ProviderName, RegistryProvider>;

export function defaultProviders(options: ProviderOptions = {}): Providers {
  return { 'cloud-registry': cloudRegistryProvider(options.cloudRegistry) };
}

export function providerFor(providers: Providers, name: string | undefined): RegistryProvider {
  const provider = Object.hasOwn(providers, name ?? '') ? providers[name as ProviderName] : undefined;
  if (!provider) throw new RegistryError('InvalidSpec', `spec.provider '${name ?? ''}' is not one of ${Object.keys(providers).join(', ')}`);
  return provider;
}
