// What the identity-provider tests share: Den's public address in them, the client Den is
// registered as, a provider configuration, and a sign-in at oidc-provider's form.
import type { OidcProviderConfig } from '../../../server/auth/providers/config.js';
import { formAction, type Browser, type Visit } from '../../support/identity/browser.js';

export const BASE = 'http://den.test';
export const CLIENT = { clientId: 'den', clientSecret: 'den-client-secret' };

export function oidcConfig(name: string, issuer: string, over: Partial<OidcProviderConfig> = {}): OidcProviderConfig {
  return { kind: 'oidc', preset: 'generic', name, label: `Test ${name}`, issuer, scopes: ['openid', 'email'], trustedEmailDomains: [], ...CLIENT, ...over };
}

/** Starts at Den's /login/<provider>, signs in at the provider's form as `account`, and follows every redirect. */
export async function signIn(browser: Browser, provider: string, account: string, next?: string): Promise<Visit> {
  const form = await browser.get(`${BASE}/login/${provider}${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}`);
  if (form.status !== 200 || !form.body.includes('name="login"')) return form;
  return browser.post(formAction(form), { prompt: 'login', login: account, password: 'any' });
}
