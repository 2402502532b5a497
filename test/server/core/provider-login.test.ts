// SPEC 4.7 and 5 "Identity-provider login" against a real OpenID Connect provider
// (oidc-provider) on loopback: browser-style round trips with cookies and redirects, the session
// they make, and the refusals that leave nothing behind.
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import { IdentityProviders } from '../../../server/auth/providers/registry.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { Browser, formAction } from '../../support/identity/browser.js';
import { startIssuer, type Issuer, type IssuerPerson } from '../../support/identity/oidc-issuer.js';
import { addPerson, call, provision, startCluster, startDen, type Den } from './cluster.js';

import { BASE, CLIENT, oidcConfig, signIn } from './providers.js';

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
  const logs: { msg: string; fields: Record<string, unknown> }[] = [];
  const signIns = () => logs.filter((l) => l.msg === 'audit' && l.fields.audit === 'sign-in').map((l) => l.fields);
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
    logs.length = 0;
    den = await startDen(api, { baseUrl: BASE, providers: new IdentityProviders([oidcConfig('sso', issuer.url)]), log: (msg, fields = {}) => logs.push({ msg, fields }) });
    browser = new Browser({ 'den.test': den.url });
  });
  afterEach(async () => {
    await den.close();
    await issuer.close();
    await api.close();
  });

  it('signs in, lands on the page it was going to, and GET /session says the provider established it', async () => {
    const picker = await browser.get(`${BASE}/login`);
    expect(picker.body).to.contain('href="/login/sso?next=%2F"').and.to.contain('Sign in with Test sso');
    const landed = await signIn(browser, 'sso', 'alice', '/w/dev?tab=logs');
    expect(landed.url).to.equal(`${BASE}/w/dev?tab=logs`);
    expect(landed.chain.some((u) => u.startsWith(`${BASE}/callback/sso?code=`))).to.equal(true);
    const session = await call(den, 'GET', '/session', { as: sessionOf(browser) });
    expect(session.status).to.equal(200);
    expect(session.body).to.deep.include({ email: 'alice@example.com', userspace: 'alice', namespace: 'svc-alice', role: 'user', auth: 'provider:sso' });
    expect(session.body.csrf_token).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(stateSecrets(api, 'login-challenge'), 'challenge used up').to.have.length(0);
    expect(stateSecrets(api, 'session')).to.have.length(1);
    expect(signIns()).to.deep.equal([{ audit: 'sign-in', outcome: 'success', method: 'sso', person: 'alice@example.com', userspace: 'alice', client: '127.0.0.1', via: 'web' }]);
  });

  it('goes to the dashboard when no next path was given, and the session cookie is HttpOnly and SameSite', async () => {
    const start = await fetch(`${den.url}/login/sso`, { redirect: 'manual' });
    expect(start.status).to.equal(302);
    const location = new URL(start.headers.get('location')!);
    expect(location.origin).to.equal(issuer.url);
    expect(Object.fromEntries(location.searchParams)).to.include({ client_id: 'den', redirect_uri: `${BASE}/callback/sso`, response_type: 'code', scope: 'openid email', code_challenge_method: 'S256' });
    expect(location.searchParams.get('nonce')).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(start.headers.getSetCookie()[0]).to.match(/^svc_login=[A-Za-z0-9_-]{43}; Path=\/callback\/sso; HttpOnly; SameSite=Lax; Max-Age=600$/);
    const landed = await signIn(browser, 'sso', 'alice');
    expect(landed.url).to.equal(`${BASE}/`);
    expect(landed.status, 'the dashboard').to.equal(200);
    expect(landed.body).to.contain('alice@example.com');
    expect(browser.cookie('den.test', 'svc_login'), 'login cookie cleared').to.equal(undefined);
  });

  it('keeps only the SHA-256 of the state in the challenge Secret, which expires with its own time', async () => {
    const start = await fetch(`${den.url}/login/sso?next=/catalog`, { redirect: 'manual' });
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const [secret] = stateSecrets(api, 'login-challenge') as { metadata: { name: string }; data: Record<string, string> }[];
    expect(secret!.metadata.name).to.match(/^login-challenge-[0-9a-f]{64}$/);
    const data = Object.fromEntries(Object.entries(secret!.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    expect(data).to.include({ provider: 'sso', next: '/catalog' });
    expect(JSON.stringify(data)).to.not.contain(state);
  });

  it('refuses a password change (409) for a provider session even though the person also has a local account', async () => {
    await signIn(browser, 'sso', 'alice');
    const session = await call(den, 'GET', '/session', { as: sessionOf(browser) });
    const change = await call(den, 'POST', '/profile/password', { as: { ...sessionOf(browser), csrf: session.body.csrf_token }, body: { current_password: 'alice-password', new_password: 'another-password' } });
    expect(change.status).to.equal(409);
    expect(change.body.error).to.match(/did not sign in with a local username and password/);
    expect((await call(den, 'POST', '/login', { body: { username: 'alice', password: 'alice-password' } })).status, 'password unchanged').to.equal(204);
  });

  const refusals: { what: string; account: string; status: number; says: RegExp }[] = [
    { what: 'an e-mail the provider has not verified', account: 'unverified', status: 403, says: /bob@example\.com is not verified/ },
    { what: 'no e-mail at all', account: 'noemail', status: 403, says: /did not share an e-mail address/ },
    { what: 'an e-mail no UserSpace belongs to', account: 'stranger', status: 403, says: /no UserSpace belongs to stranger@example\.com/ },
    { what: 'a disabled person', account: 'carol', status: 403, says: /the account carol@example\.com is disabled/ },
  ];
  for (const r of refusals) {
    it(`refuses ${r.what} with a ${r.status} page, no session and no challenge left`, async () => {
      const page = await signIn(browser, 'sso', r.account);
      expect(page.status).to.equal(r.status);
      expect(page.url).to.match(/^http:\/\/den\.test\/callback\/sso\?/);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      expect(page.body).to.match(r.says);
      expect(page.body).to.not.match(/at \w+ \(|node_modules/);
      expect(browser.cookie('den.test', 'svc_session')).to.equal(undefined);
      expect(stateSecrets(api, 'session')).to.have.length(0);
      expect(stateSecrets(api, 'login-challenge')).to.have.length(0);
    });
  }

  it('refuses a replayed callback (400): the challenge was used up by the first one', async () => {
    const landed = await signIn(browser, 'sso', 'alice');
    const callback = landed.chain.find((u) => u.startsWith(`${BASE}/callback/sso?`))!;
    browser.setCookie('den.test', 'svc_login', new URL(callback).searchParams.get('state')!, '/callback/sso');
    const again = await browser.get(callback);
    expect(again.status).to.equal(400);
    expect(again.body).to.contain('already used or is not valid');
    expect(stateSecrets(api, 'session'), 'only the first sign-in').to.have.length(1);
  });

  it('refuses a tampered state (400) and a callback this browser did not start (400)', async () => {
    const form = await browser.get(`${BASE}/login/sso`);
    const state = new URL(form.chain[1]!).searchParams.get('state')!;
    const tampered = await browser.get(`${BASE}/callback/sso?code=abc&state=${state.slice(0, -2)}xx`);
    expect(tampered.status).to.equal(400);
    expect(tampered.body).to.contain('not started in this browser');
    const other = new Browser({ 'den.test': den.url });
    const elsewhere = await other.get(`${BASE}/callback/sso?code=abc&state=${state}`);
    expect(elsewhere.status).to.equal(400);
    expect(elsewhere.body).to.contain('not started in this browser');
    expect(stateSecrets(api, 'session')).to.have.length(0);
  });

  it('refuses the provider\'s error answer (error=access_denied) with a 401 page and uses the challenge up', async () => {
    const form = await browser.get(`${BASE}/login/sso`);
    const state = new URL(form.chain[1]!).searchParams.get('state')!;
    const page = await browser.get(`${BASE}/callback/sso?error=access_denied&error_description=${encodeURIComponent('End-User aborted interaction')}&state=${state}`);
    expect(page.status).to.equal(401);
    expect(page.body).to.contain('Test sso did not sign you in: End-User aborted interaction');
    expect(signIns()).to.deep.equal([
      { audit: 'sign-in', outcome: 'failure', method: 'sso', client: '127.0.0.1', via: 'web', status: 401, reason: 'Test sso did not sign you in: End-User aborted interaction' },
    ]);
    expect(stateSecrets(api, 'login-challenge')).to.have.length(0);
    expect(stateSecrets(api, 'session')).to.have.length(0);
  });

  it('answers 404 pages for a provider that is not configured', async () => {
    for (const path of ['/login/nope', '/callback/nope?code=a&state=b']) {
      const page = await browser.get(`${BASE}${path}`);
      expect(page.status, path).to.equal(404);
      expect(page.body).to.contain('there is no sign-in option named nope');
    }
  });

  it('sends the browser to the dashboard, never to another site, when next is not a path on this site', async () => {
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'w/relative', '/x\u0000y']) {
      const start = await fetch(`${den.url}/login/sso?next=${encodeURIComponent(next)}`, { redirect: 'manual' });
      expect(start.status, next).to.equal(302);
    }
    const landed = await signIn(browser, 'sso', 'alice', '//evil.example/x');
    expect(landed.url).to.equal(`${BASE}/`);
  });

  it('lets one client address hold only 20 unfinished sign-ins: the next start is a 429 page that stores nothing', async () => {
    for (let i = 0; i < 20; i++) {
      const start = await new Browser({ 'den.test': den.url }).get(`${BASE}/login/sso`);
      expect(start.chain[1], `start ${i + 1} goes on to the provider`).to.satisfy((hop: string) => hop.startsWith(issuer.url));
    }
    const refused = await new Browser({ 'den.test': den.url }).get(`${BASE}/login/sso`);
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('retry-after')).to.match(/^[1-9]\d*$/);
    expect(refused.body).to.contain('too many sign-ins were started from your address');
    expect(stateSecrets(api, 'login-challenge')).to.have.length(20);
  });
});

describe('signing in with an identity provider: time, reachability and local login', () => {
  let api: FakeApiServer;
  let issuer: Issuer;
  const people = { alice: { claims: { email: 'alice@example.com', email_verified: true } } };

  beforeEach(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
    issuer = await startIssuer({ ...CLIENT, redirectUris: [`${BASE}/callback/sso`], people, claimsFromUserinfoOnly: false });
  });
  afterEach(async () => {
    await issuer.close();
    await api.close();
  });

  it('refuses a challenge older than 10 minutes (400) and deletes it', async () => {
    let clock = Date.now();
    const den = await startDen(api, { baseUrl: BASE, now: () => clock, providers: new IdentityProviders([oidcConfig('sso', issuer.url)]) });
    try {
      const browser = new Browser({ 'den.test': den.url });
      const form = await browser.get(`${BASE}/login/sso`);
      clock += 10 * 60_000 + 1;
      const page = await browser.post(formAction(form), { prompt: 'login', login: 'alice', password: 'x' });
      expect(page.status).to.equal(400);
      expect(page.body).to.contain('took longer than 10 minutes');
      expect(stateSecrets(api, 'login-challenge')).to.have.length(0);
      expect(stateSecrets(api, 'session')).to.have.length(0);
    } finally {
      await den.close();
    }
  });

  it('answers 502 with a short page when the provider cannot be reached, storing nothing', async () => {
    const closed = await startIssuer({ ...CLIENT, redirectUris: [], people: {} });
    await closed.close();
    const den = await startDen(api, { baseUrl: BASE, providers: new IdentityProviders([oidcConfig('gone', closed.url, { label: 'Gone SSO' })]) });
    try {
      const page = await new Browser({ 'den.test': den.url }).get(`${BASE}/login/gone`);
      expect(page.status).to.equal(502);
      expect(page.body).to.match(/Gone SSO cannot be reached right now \(ECONNREFUSED\)/);
      expect(stateSecrets(api, 'login-challenge')).to.have.length(0);
    } finally {
      await den.close();
    }
  });

  it('with local login off, still signs in through the provider while POST /api/v1/login answers 404', async () => {
    const den = await startDen(api, { baseUrl: BASE, localAuth: false, providers: new IdentityProviders([oidcConfig('sso', issuer.url)]) });
    try {
      expect((await call(den, 'POST', '/login', { body: { username: 'alice', password: 'alice-password' } })).status).to.equal(404);
      const browser = new Browser({ 'den.test': den.url });
      const picker = await browser.get(`${BASE}/login`);
      expect(picker.body).to.contain('Sign in with Test sso').and.not.to.contain('name="password"');
      expect((await signIn(browser, 'sso', 'alice')).url).to.equal(`${BASE}/`);
      expect((await call(den, 'GET', '/session', { as: sessionOf(browser) })).body.auth).to.equal('provider:sso');
    } finally {
      await den.close();
    }
  });
});
