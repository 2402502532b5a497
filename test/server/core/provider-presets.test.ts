// The provider kinds one by one: Google, GitLab and Entra presets against oidc-provider (issuer
// pointed at loopback), Entra multi-tenant and forged ID tokens against a provider whose tokens
// the test shapes, and GitHub's OAuth2 flow against a loopback server in GitHub's REST shape.
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import type { GithubProviderConfig } from '../../../server/auth/providers/config.js';
import { IdentityProviders } from '../../../server/auth/providers/registry.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { Browser, formAction, type Visit } from '../../support/identity/browser.js';
import { routedFetch, startForgingIssuer, type ForgingIssuer } from '../../support/identity/forging-issuer.js';
import { startGithubFake, type GithubFake } from '../../support/identity/github-fake.js';
import { startIssuer, type Issuer } from '../../support/identity/oidc-issuer.js';
import { addPerson, call, provision, startCluster, startDen, type Den } from './cluster.js';
import { BASE, CLIENT, oidcConfig, signIn } from './providers.js';


function leftovers(api: FakeApiServer): string[] {
  return api
    .objects<{ metadata: { labels?: Record<string, string> } }>(RESOURCES.secret, 'svc-system')
    .map((s) => s.metadata.labels?.['den.dev/kind'] ?? '')
    .filter((kind) => kind === 'session' || kind === 'login-challenge');
}

async function authOf(den: Den, browser: Browser): Promise<string | undefined> {
  const id = browser.cookie('den.test', 'svc_session');
  if (!id) return undefined;
  return (await call(den, 'GET', '/session', { as: { cookie: `svc_session=${id}`, csrf: '' } })).body.auth;
}

describe('identity provider presets against oidc-provider', () => {
  let api: FakeApiServer;
  let issuer: Issuer;
  let den: Den;

  beforeEach(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
    provision(api, 'erin', 'erin@contoso.example');
  });
  afterEach(async () => {
    await den?.close();
    await issuer?.close();
    await api.close();
  });

  it('google: signs in with the e-mail of the ID token', async () => {
    issuer = await startIssuer({ ...CLIENT, redirectUris: [`${BASE}/callback/google`], people: { alice: { claims: { email: 'alice@example.com', email_verified: true } } }, claimsFromUserinfoOnly: false });
    den = await startDen(api, { baseUrl: BASE, providers: new IdentityProviders([oidcConfig('google', issuer.url, { preset: 'google', label: 'Google' })]) });
    const browser = new Browser({ 'den.test': den.url });
    expect((await signIn(browser, 'google', 'alice')).url).to.equal(`${BASE}/`);
    expect(await authOf(den, browser)).to.equal('provider:google');
    expect(issuer.requests).to.not.include('GET /me');
  });

  it('gitlab: reads the e-mail from userinfo when the ID token has none', async () => {
    issuer = await startIssuer({ ...CLIENT, redirectUris: [`${BASE}/callback/gitlab`], people: { alice: { claims: { email: 'alice@example.com', email_verified: true } } }, claimsFromUserinfoOnly: true });
    den = await startDen(api, { baseUrl: BASE, providers: new IdentityProviders([oidcConfig('gitlab', issuer.url, { preset: 'gitlab', label: 'GitLab' })]) });
    const browser = new Browser({ 'den.test': den.url });
    expect((await signIn(browser, 'gitlab', 'alice')).url).to.equal(`${BASE}/`);
    expect(await authOf(den, browser)).to.equal('provider:gitlab');
    expect(issuer.requests).to.include('GET /me');
  });

  const entraCases: { what: string; claims: Record<string, unknown>; trusted: string[]; signedIn: boolean }[] = [
    { what: 'accepts an e-mail with xms_edov true', claims: { email: 'erin@contoso.example', xms_edov: true }, trusted: [], signedIn: true },
    { what: 'accepts an e-mail of a trusted domain without xms_edov', claims: { email: 'erin@contoso.example' }, trusted: ['contoso.example'], signedIn: true },
    { what: 'refuses an e-mail without xms_edov outside the trusted domains', claims: { email: 'erin@contoso.example', xms_edov: false }, trusted: ['example.com'], signedIn: false },
    { what: 'ignores email_verified, which Entra does not vouch for', claims: { email: 'erin@contoso.example', email_verified: true }, trusted: [], signedIn: false },
  ];
  for (const c of entraCases) {
    it(`entra: ${c.what}`, async () => {
      issuer = await startIssuer({ ...CLIENT, redirectUris: [`${BASE}/callback/entra`], people: { erin: { claims: c.claims } }, claimsFromUserinfoOnly: false, extraEmailClaims: ['xms_edov'] });
      den = await startDen(api, { baseUrl: BASE, providers: new IdentityProviders([oidcConfig('entra', issuer.url, { preset: 'entra', label: 'Microsoft', trustedEmailDomains: c.trusted })]) });
      const browser = new Browser({ 'den.test': den.url });
      const page = await signIn(browser, 'entra', 'erin');
      if (c.signedIn) {
        expect(page.url).to.equal(`${BASE}/`);
        expect(await authOf(den, browser)).to.equal('provider:entra');
      } else {
        expect(page.status).to.equal(403);
        expect(page.body).to.contain('Microsoft did not confirm that erin@contoso.example is verified');
        expect(leftovers(api)).to.deep.equal([]);
      }
    });
  }
});

describe('ID tokens Den must refuse, and Entra multi-tenant issuers', () => {
  let api: FakeApiServer;
  let forger: ForgingIssuer;
  let den: Den;
  let browser: Browser;

  beforeEach(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
    forger = await startForgingIssuer({ clientId: CLIENT.clientId });
    den = await startDen(api, { baseUrl: BASE, providers: new IdentityProviders([oidcConfig('sso', forger.issuer, { label: 'Forged SSO' })]) });
    browser = new Browser({ 'den.test': den.url });
  });
  afterEach(async () => {
    await den.close();
    await forger.close();
    await api.close();
  });

  const good = { email: 'alice@example.com', email_verified: true };

  it('signs in when the token is right (the forger is a working provider)', async () => {
    forger.forgery = { claims: good };
    expect((await browser.get(`${BASE}/login/sso`)).url).to.equal(`${BASE}/`);
    expect(forger.authorizations[0]!.get('code_challenge_method')).to.equal('S256');
  });

  const forgeries: { what: string; forgery: object; status: number; says: RegExp }[] = [
    { what: 'another audience', forgery: { aud: 'someone-else' }, status: 401, says: /cannot be trusted: unexpected JWT "aud"/ },
    { what: 'another nonce', forgery: { nonce: 'replayed-nonce' }, status: 401, says: /cannot be trusted: unexpected ID Token "nonce"/ },
    { what: 'a signature by a key not in its JWKS', forgery: { foreignKey: true }, status: 401, says: /cannot be trusted: JWT signature verification failed/ },
    { what: 'an expired token', forgery: { expiresIn: -600 }, status: 401, says: /cannot be trusted: .*"exp"/ },
    { what: 'another issuer', forgery: { iss: 'https://evil.example' }, status: 401, says: /cannot be trusted: unexpected JWT "iss"/ },
    { what: 'a token endpoint that fails', forgery: { tokenError: { status: 500, error: 'server_error' } }, status: 502, says: /Forged SSO cannot be reached right now \(it gave an unexpected answer\)/ },
    { what: 'a token endpoint that refuses the code', forgery: { tokenError: { status: 400, error: 'invalid_grant' } }, status: 401, says: /Forged SSO refused the sign-in: invalid_grant/ },
  ];
  for (const f of forgeries) {
    it(`refuses ${f.what} (${f.status}), leaving no session and no challenge`, async () => {
      forger.forgery = { claims: good, ...f.forgery };
      const page = await browser.get(`${BASE}/login/sso`);
      expect(page.status).to.equal(f.status);
      expect(page.body.replaceAll('&quot;', '"')).to.match(f.says);
      expect(browser.cookie('den.test', 'svc_session')).to.equal(undefined);
      expect(leftovers(api)).to.deep.equal([]);
    });
  }

  it('entra multi-tenant: accepts the issuer of the tenant the token names, and refuses a token whose issuer names another', async () => {
    const entra = await startForgingIssuer({ clientId: CLIENT.clientId, publicOrigin: 'https://login.microsoftonline.com', issuerPath: '/{tenantid}/v2.0' });
    const fetchEntra = routedFetch('https://login.microsoftonline.com', entra.origin);
    const multi = await startDen(api, {
      baseUrl: BASE,
      providers: new IdentityProviders([oidcConfig('work', 'https://login.microsoftonline.com/organizations/v2.0', { preset: 'entra', label: 'Microsoft' })], { fetch: fetchEntra }),
    });
    try {
      const tid = '72f988bf-86f1-41af-91ab-2d7cd011db47';
      const b = new Browser({ 'den.test': multi.url, 'login.microsoftonline.com': entra.origin });
      entra.forgery = { claims: { tid, email: 'alice@example.com', xms_edov: true } };
      expect((await b.get(`${BASE}/login/work`)).url).to.equal(`${BASE}/`);
      expect(await authOf(multi, b)).to.equal('provider:work');

      const other = new Browser({ 'den.test': multi.url, 'login.microsoftonline.com': entra.origin });
      entra.forgery = { claims: { tid, email: 'alice@example.com', xms_edov: true }, iss: 'https://login.microsoftonline.com/00000000-0000-0000-0000-000000000000/v2.0' };
      const refused = await other.get(`${BASE}/login/work`);
      expect(refused.status).to.equal(401);
      expect(refused.body.replaceAll('&quot;', '"')).to.match(/unexpected JWT "iss"/);
    } finally {
      await multi.close();
      await entra.close();
    }
  });
});

describe('signing in with GitHub (OAuth2, GitHub Enterprise Server layout)', () => {
  let api: FakeApiServer;
  let github: GithubFake;
  let den: Den;
  let browser: Browser;

  function githubConfig(baseUrl: string): GithubProviderConfig {
    return { kind: 'github', name: 'github', label: 'GitHub', baseUrl, apiUrl: `${baseUrl}/api/v3`, scopes: ['read:user', 'user:email'], ...CLIENT };
  }

  async function authorize(login: string): Promise<Visit> {
    const form = await browser.get(`${BASE}/login/github?next=/catalog`);
    expect(form.body).to.contain('Sign in to GitHub');
    const hidden = Object.fromEntries([...form.body.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!.replaceAll('&quot;', '"')]));
    return browser.post(formAction(form), { ...hidden, login });
  }

  beforeEach(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
    provision(api, 'bob', 'bob@example.com');
    github = await startGithubFake({
      ...CLIENT,
      accounts: {
        octoalice: { login: 'octoalice', emails: [{ email: 'alice@users.noreply.example', primary: false, verified: true, visibility: null }, { email: 'ALICE@example.com', primary: true, verified: true, visibility: 'private' }] },
        octobob: { login: 'octobob', emails: [{ email: 'bob@example.com', primary: true, verified: false, visibility: 'private' }] },
        octonone: { login: 'octonone', emails: [{ email: 'alice@example.com', primary: false, verified: true, visibility: null }] },
      },
    });
    den = await startDen(api, { baseUrl: BASE, providers: new IdentityProviders([githubConfig(github.url)]) });
    browser = new Browser({ 'den.test': den.url });
  });
  afterEach(async () => {
    await den.close();
    await github.close();
    await api.close();
  });

  it('signs in with the primary verified e-mail, sending the secret and the PKCE verifier only to the token endpoint', async () => {
    const landed = await authorize('octoalice');
    expect(landed.url).to.equal(`${BASE}/catalog`);
    expect(await authOf(den, browser)).to.equal('provider:github');
    const [token] = github.tokenRequests;
    expect(token!.get('client_secret')).to.equal(CLIENT.clientSecret);
    expect(token!.get('code_verifier')).to.match(/^[A-Za-z0-9_-]{43,128}$/);
    expect(landed.chain.join(' ')).to.not.contain(CLIENT.clientSecret);
  });

  const refusals: { what: string; login: string; status: number; says: RegExp }[] = [
    { what: 'a primary e-mail GitHub has not verified', login: 'octobob', status: 403, says: /primary e-mail address bob@example\.com is not verified/ },
    { what: 'no primary e-mail', login: 'octonone', status: 403, says: /lists no primary e-mail address/ },
    { what: 'the person declining (error=access_denied)', login: 'nobody', status: 401, says: /GitHub did not sign you in: The user has denied your application access\./ },
  ];
  for (const r of refusals) {
    it(`refuses ${r.what} (${r.status}), leaving nothing behind`, async () => {
      const page = await authorize(r.login);
      expect(page.status).to.equal(r.status);
      expect(page.body).to.match(r.says);
      expect(leftovers(api)).to.deep.equal([]);
    });
  }

  it('refuses (403) when GitHub will not show the e-mail addresses (no user:email scope)', async () => {
    github.emailsStatus = 403;
    const page = await authorize('octoalice');
    expect(page.status).to.equal(403);
    expect(page.body).to.contain('the user:email scope is needed');
    expect(leftovers(api)).to.deep.equal([]);
  });

  it('answers 502 when GitHub cannot be reached at the token exchange', async () => {
    const form = await browser.get(`${BASE}/login/github`);
    const state = new URL(form.url).searchParams.get('state')!;
    await github.close();
    const page = await browser.get(`${BASE}/callback/github?code=abc&state=${state}`);
    expect(page.status).to.equal(502);
    expect(page.body).to.match(/GitHub cannot be reached right now \(ECONNREFUSED\)/);
    expect(leftovers(api)).to.deep.equal([]);
  });
});
