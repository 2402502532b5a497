// `den login` through real Chromium against a real den server: the command prints Den's
// /cli/login address (BROWSER is a no-op here), the person signs in there with a local
// password or at an OpenID Connect provider, allows the command, and the page posts the new
// token to the command's loopback listener. No address the browser visited carries it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { IdentityProviders } from '../../../server/auth/providers/registry.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { startIssuer, type Issuer } from '../../support/identity/oidc-issuer.js';
import { freePort } from '../../support/loopback.js';
import { launchChromium } from '../../support/web.js';
import { addPerson, startCluster, startDen, type Den } from '../../server/core/cluster.js';
import { CLIENT, oidcConfig } from '../../server/core/providers.js';
import { DEN } from './support.js';

interface Running {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
  /** The address den login asked the browser to open. */
  url: Promise<string>;
}

describe('den login in Chromium', function () {
  this.timeout(60_000);
  let api: FakeApiServer;
  let den: Den;
  let issuer: Issuer;
  let browser: Browser;
  let context: BrowserContext;
  let base: string;
  let home: string;
  let running: Running | undefined;

  before(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    issuer = await startIssuer({ ...CLIENT, redirectUris: [`${base}/callback/sso`], people: { alice: { claims: { email: 'alice@example.com', email_verified: true } } }, claimsFromUserinfoOnly: false });
    den = await startDen(api, { baseUrl: base, port, providers: new IdentityProviders([oidcConfig('sso', issuer.url)]) });
    browser = await launchChromium();
  });

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'den-login-'));
    context = await browser.newContext();
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  });

  afterEach(async () => {
    if (running?.child.exitCode === null) running.child.kill();
    running = undefined;
    await context?.close();
    await rm(home, { recursive: true, force: true });
  });

  after(async () => {
    await browser?.close();
    await den?.close();
    await issuer?.close();
    await api?.close();
  });

  function denLogin(): Running {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), BROWSER: 'true' };
    const child = spawn(process.execPath, [DEN, 'login', base], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const url = new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /^ {2}(http\S+)$/m.exec(stderr);
        if (m) resolve(m[1]!);
      });
      child.on('exit', () => reject(new Error(`den login exited before printing the address: ${stderr}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, stderr: () => stderr, exited, url };
  }

  /** Every address the page's main frame visited. */
  function visited(page: Page): string[] {
    const urls: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) urls.push(frame.url());
    });
    return urls;
  }

  async function allowAndFinish(page: Page, urls: string[]): Promise<void> {
    await page.waitForURL((u) => u.pathname === '/cli/login');
    expect(await page.locator('main').textContent()).to.include('alice@example.com');
    await page.getByRole('button', { name: 'Allow den on this computer' }).click();
    await page.waitForURL((u) => u.host !== new URL(base).host);
    expect(await page.locator('h1').textContent()).to.equal('den is signed in');
    expect(await running!.exited, running!.stderr()).to.equal(0);
    const stored = JSON.parse(await readFile(join(home, 'xdg', 'den', 'cli.json'), 'utf8'));
    const ctx = stored.contexts[stored.current];
    expect(ctx).to.include({ url: base, email: 'alice@example.com' });
    expect(ctx.tokenName).to.match(/^den-cli-[0-9a-f]{8}$/);
    const session = await fetch(`${base}/api/v1/session`, { headers: { Authorization: `Bearer ${ctx.token}` } });
    expect(await session.json()).to.include({ email: 'alice@example.com', auth: 'token', token_name: ctx.tokenName });
    for (const u of urls) expect(u, 'an address the browser keeps in its history').not.to.include(ctx.token).and.not.include('svc_');
    expect(running!.stderr()).to.include(`signed in to ${base} as alice@example.com`);
  }

  it('with a local password: sign in on Den, allow, and the command holds a working token', async () => {
    running = denLogin();
    const page = await context.newPage();
    const urls = visited(page);
    await page.goto(await running.url);
    expect(new URL(page.url()).pathname, 'a stranger signs in first').to.equal('/login');
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill('alice-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await allowAndFinish(page, urls);
  });

  it('with an identity provider: sign in at the provider, allow, and the command holds a working token', async () => {
    running = denLogin();
    const page = await context.newPage();
    const urls = visited(page);
    await page.goto(await running.url);
    await page.getByRole('link', { name: 'Sign in with Test sso' }).click();
    await page.waitForURL((url) => url.origin === issuer.url);
    await page.getByPlaceholder('Enter any login').fill('alice');
    await page.getByPlaceholder('and password').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await allowAndFinish(page, urls);
  });

  it("the hand-off page's CSP lets forms go to exactly the command's loopback port", async () => {
    running = denLogin();
    const page = await context.newPage();
    await page.goto(await running.url);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill('alice-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/cli/login');
    const handOff = page.waitForResponse((r) => r.url() === `${base}/cli/login` && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Allow den on this computer' }).click();
    const answer = await handOff;
    const port = new URL(await running.url).searchParams.get('port');
    const directives = answer.headers()['content-security-policy']!.split(/;\s*/);
    expect(directives.filter((d) => d.startsWith('form-action'))).to.deep.equal([`form-action http://127.0.0.1:${port}`]);
    expect(await running.exited).to.equal(0);
  });

  it('a sign-in link with a malformed state is refused before any token is made', async () => {
    await addPerson(api, 'bob');
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.getByLabel('Username').fill('bob');
    await page.getByLabel('Password').fill('bob-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/`);
    const answer = await page.goto(`${base}/cli/login?port=40000&state=short`);
    expect(answer!.status()).to.equal(400);
    expect(await page.getByRole('alert').textContent()).to.include('its state is malformed');
    expect(await den.auth.tokens.list('bob@example.com')).to.deep.equal([]);
  });
});
