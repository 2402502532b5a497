// SPEC 4.7 and 5 "Identity-provider login" against a real OpenID Connect provider
// (oidc-provider) on loopback: browser-style round trips with cookies and redirects, the session
// they make, and the refusals that leave nothing behind.
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import type { OidcProviderConfig } from '../../../server/auth/providers/config.js';
import { IdentityProviders } from '../../../server/auth/providers/registry.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { Browser, formAction, type Visit } from '../../support/identity/browser.js';
import { startIssuer, type Issuer, type IssuerPerson } from '../../support/identity/oidc-issuer.js';
import { addPerson, call, provision, startCluster, startDen, type Den } from './cluster.js';

const BASE = 'http://den.test';
const CLIENT = { clientId: 'den', clientSecret: 'den-client-secret' };

export function oidcConfig(name: string, issuer: string, over: Partial<OidcProviderConfig> = {}): OidcProviderConfig {
  return { kind: 'oidc', preset: 'generic', name, label: `Test ${name}`, issuer, scopes: ['openid', 'email'], trustedEmailDomains: [], ...CLIENT, ...over };
}

/** Starts at Den's /login/<provider>, signs in at the provider's form as `account`, and follows every redirect. */
export async function signIn(browser: Browser, provider: string, account: string, next?: string): Promise<Visit> {
  const form = await browser.get(`${BASE}/login/${provider}${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}`);
  if (form.status !== 200 || !form.body.includes('name="login"')) return form;
  return browser.post(formAction(form), { prompt: 'login', login: account, password: 'any' });
}

function stateSecrets(api: FakeApiServer, kind: string): unknown[] {
  return api.objects(RESOURCES.secret, "svc-system").filter((s) => (s as { metadata: { labels?: Record<string, string> } }).metadata.labels?.['den.dev/kind'] === kind);
}

function sessionOf(browser: Browser): { cookie: string; csrf: string } {
  return { cookie: `svc_session=${browser.cookie('den.test', 'svc_session')}`, csrf: '' };
}

describe('signing in with an OpenID Connect provider (generic issuer)', () => {
  let api: FakeApiServer;
  let den: Den;
  let issuer: Issuer;
  let browser: Browser;
  const people: Record<string, IssuerPerson> = {
    alice: { claims: { email: 'Alice@Example.com', email_verified: true } },
    unverified: { claims: { email: 'bob@example.com', email_verified: false } },
    noemail: { claims: {} },
    stranger: { claims: { email: 'stranger@example.com', email_verified: true } },
    carol: { claims: { email: 'carol@example.com', email_verified: true } },
  };

  beforeEach(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
    provision(api, 'bob', 'bob@example.com');
    provision(api, 'carol', 'carol@example.com', { disabled: true });
    issuer = await startIssuer({ ...CLIENT, redirectUris: [`${BASE}/callback/sso`], people, claimsFromUserinfoOnly: false });
    den = await startDen(api, { baseUrl: BASE, providers: new IdentityProviders([oidcConfig('sso', issuer.url)]) });
    browser = new Browser({ 'den.test': den.url });
  });
  afterEach(async () => {
    await den.close();
    await issuer.close();
    await api.close();
  });

  it('signs in, lands on the page it was going to, and GET /session says the provider established it', async () => {
    const landed = await signIn(browser, 'sso', 'alice', '/w/dev?tab=logs');
    expect(landed.url).to.equal(`${BASE}/w/dev?tab=logs`);
    expect(landed.chain.some((u) => u.startsWith(`${BASE}/callback/sso?code=`))).to.equal(true);
    const session = await call(den, 'GET', '/session', { as: sessionOf(browser) });
    expect(session.status).to.equal(200);
    expect(session.body).to.deep.include({ email: 'alice@example.com', userspace: 'alice', namespace: 'svc-alice', role: 'user', auth: 'provider:sso' });
    expect(session.body.csrf_token).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(stateSecrets(api, 'login-challenge'), 'challenge used up').to.have.length(0);
    expect(stateSecrets(api, 'session')).to.have.length(1);
  });
});
