// The identity providers one server offers, built once from their checked configuration.
import type { ProviderConfig } from './config.js';
import { GithubProvider } from './github.js';
import { OidcProvider } from './oidc.js';
import type { IdentityProvider } from './provider.js';

/** What the sign-in page lists: `/login/<name>`, shown as `label`. */
export interface ProviderChoice {
  name: string;
  label: string;
}

export interface ProviderRegistryOptions {
  /** Replaces fetch for every request to a provider (tests route provider hosts to loopback). */
  fetch?: typeof fetch;
  now?: () => number;
}

export class IdentityProviders {
  private readonly byName = new Map<string, IdentityProvider>();

  constructor(configs: readonly ProviderConfig[], opts: ProviderRegistryOptions = {}) {
    const now = opts.now ?? Date.now;
    for (const config of configs) {
      this.byName.set(config.name, config.kind === 'github' ? new GithubProvider(config, { fetch: opts.fetch }) : new OidcProvider(config, { fetch: opts.fetch, now }));
    }
  }

  get(name: string): IdentityProvider | undefined {
    return this.byName.get(name);
  }

  /** In the order the administrator declared them. */
  choices(): ProviderChoice[] {
    return [...this.byName.values()].map(({ config }) => ({ name: config.name, label: config.label }));
  }
}
