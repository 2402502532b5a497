// Signing in with an identity provider in real Chromium: the button on /login, the sign-in
// page of a real OpenID Connect provider (oidc-provider's own login form, on loopback), and
// back to Den's dashboard with the person's workspaces; and a refusal as the browser shows it.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { KubeObject } from '../../../kube/client.js';
import { IdentityProviders } from '../../../server/auth/providers/registry.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { startIssuer, type Issuer } from '../../support/identity/oidc-issuer.js';
import { freePort } from '../../support/loopback.js';
import { launchChromium } from '../../support/web.js';
import { addPerson, startCluster, startDen, type Den } from '../core/cluster.js';
import { CLIENT, oidcConfig } from '../core/providers.js';

function workspace(name: string, phase: 'Running' | 'Suspended'): KubeObject {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'Workspace',
    metadata: { name, namespace: 'svc-alice', creationTimestamp: new Date(Date.now() - 3_600_000).toISOString() },
    spec: { imageRef: { name: 'ubuntu' }, running: phase === 'Running', storage: '10Gi', sshAuthorizedKeys: ['ssh-ed25519 AAAA x'] },
    status: { phase, endpoint: `${name}@ssh.den.test` },
  };
}

describe('signing in with an identity provider in Chromium', function () {
  this.timeout(60_000);
  let api: FakeApiServer;
  let den: Den;
  let issuer: Issuer;
  let browser: Browser;
  let context: BrowserContext;
  let base: string;

  before(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
    api.seed(workspace('dev', 'Running'), workspace('notes', 'Suspended'));
    // The provider must know Den's callback address before either starts.
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    issuer = await startIssuer({
      ...CLIENT,
      redirectUris: [`${base}/callback/sso`],
      people: {
        alice: { claims: { email: 'Alice@Example.com', email_verified: true } },
        stranger: { claims: { email: 'stranger@example.com', email_verified: true } },
      },
      claimsFromUserinfoOnly: false,
    });
    den = await startDen(api, { baseUrl: base, port, providers: new IdentityProviders([oidcConfig('sso', issuer.url)]) });
    browser = await launchChromium();
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    // Nothing leaves the machine (oidc-provider's development pages ask for a web font).
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  });

  afterEach(() => context?.close());

  after(async () => {
    await browser?.close();
    await den?.close();
    await issuer?.close();
    await api?.close();
  });

  /** From Den's dashboard to the provider's sign-in form, submitted as `account`. */
  async function signInAtProvider(page: Page, account: string): Promise<void> {
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname, 'a stranger is sent to sign in').to.equal('/login');
    await page.getByRole('link', { name: 'Sign in with Test sso' }).click();
    await page.waitForURL((url) => url.origin === issuer.url);
    await page.getByPlaceholder('Enter any login').fill(account);
    await page.getByPlaceholder('and password').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
  }

  it("picks the provider on /login, signs in at the provider's page and lands on the dashboard with the person's workspaces", async () => {
    const page = await context.newPage();
    await signInAtProvider(page, 'alice');
    await page.waitForURL(`${base}/`);
    const names = await Promise.all((await page.locator('article.workspace').all()).map((w) => w.getAttribute('data-workspace')));
    expect(names).to.deep.equal(['dev', 'notes']);
    expect(await page.locator('[data-workspace="dev"] .badge').textContent()).to.equal('Running');
    expect(await page.locator('header .who').textContent()).to.contain('alice@example.com');
    const session = await page.request.get(`${base}/api/v1/session`);
    expect(await session.json()).to.deep.include({ email: 'alice@example.com', userspace: 'alice', auth: 'provider:sso' });
    const cookies = await context.cookies(base);
    expect(cookies.find((c) => c.name === 'svc_session')).to.deep.include({ httpOnly: true, sameSite: 'Lax' });
    expect(cookies.map((c) => c.name), 'the sign-in state cookie is gone').not.to.include('svc_login');
  });

  it('shows the refusal page when no UserSpace belongs to the e-mail, and signs nobody in', async () => {
    const page = await context.newPage();
    const callback = page.waitForResponse((r) => r.url().startsWith(`${base}/callback/sso?`));
    await signInAtProvider(page, 'stranger');
    const answer = await callback;
    expect(answer.status()).to.equal(403);
    await page.waitForURL((url) => url.pathname === '/callback/sso');
    expect(await page.locator('h1').textContent()).to.equal('Not allowed');
    expect(await page.getByRole('alert').textContent()).to.contain('no UserSpace belongs to stranger@example.com');
    expect((await context.cookies(base)).map((c) => c.name)).not.to.include('svc_session');
    await page.goto(`${base}/`);
    expect(new URL(page.url()).pathname, 'still signed out').to.equal('/login');
  });
});
