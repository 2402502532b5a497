// The web UI in real Chromium (Debian's, driven by playwright-core) against the whole
// platform on this machine: the fake API server, the real manager with its webhooks, den
// server and the harness kubelet that makes workspace pods Running. With DEN_SCREENSHOTS=1
// it also writes docs/screenshots/*.png of the main pages for the README.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { RESOURCES } from '../../../kube/resources.js';
import { eventually, gone, LocalPlatform, REPO_ROOT, runDen } from '../../support/platform.js';
import { launchChromium } from '../../support/web.js';

const PASSWORD = 'correct horse battery staple';
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop';
const SHOTS = process.env.DEN_SCREENSHOTS === '1' ? join(REPO_ROOT, 'docs/screenshots') : undefined;

describe('web UI in Chromium', function () {
  this.timeout(120_000);
  const platform = new LocalPlatform();
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const dialogs: string[] = [];

  async function shot(name: string): Promise<void> {
    if (!SHOTS) return;
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }

  async function signIn(password: string): Promise<void> {
    await page.goto(`${platform.baseUrl}/`);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  before(async () => {
    await platform.start();
    const added = await runDen(['users', 'add', 'alice', '--owner', 'alice@example.com', '--password-stdin', '--kubeconfig', platform.kubeconfig], { stdin: `${PASSWORD}\n` });
    expect(added.code, added.stderr).to.equal(0);
    const admin = platform.admin;
    const entry = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name }, spec: { image: platform.workspaceImage, ...spec } });
    await admin.create(RESOURCES.workspaceImage, entry('ubuntu', { displayName: 'Ubuntu 24.04', description: 'Everyday Linux', tags: ['linux'] }));
    await admin.create(RESOURCES.workspaceImage, entry('python', { displayName: 'Python 3.12', tags: ['python', 'linux'], deprecateAt: '2099-01-31T00:00:00Z' }));
    await admin.create(RESOURCES.workspaceImage, entry('legacy', { displayName: 'Legacy CentOS', deprecated: true }));
    await admin.create(RESOURCES.workspaceImage, entry('hostile', { displayName: '<img src=x onerror=alert(1)>', description: '<script>alert(2)</script>' }));
    await eventually(async () => ((await admin.get(RESOURCES.userSpace, 'alice')).status as { phase?: string } | undefined)?.phase === 'Ready', 'UserSpace alice Ready', platform.convergeMs);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    page = await context.newPage();
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  });

  after(async () => {
    await browser?.close();
    await platform.stop();
  });

  it('refuses a wrong password without saying whether the user exists, then signs in and shows the empty state', async () => {
    await signIn('wrong password');
    expect(await page.locator('#login-error').textContent()).to.contain('Invalid username or password.');
    await shot('login');
    await signIn(PASSWORD);
    await page.waitForURL(`${platform.baseUrl}/`);
    expect(await page.locator('#empty-state').textContent()).to.contain('You have no workspace yet');
    await shot('dashboard-empty');
  });

  it('sends pages with the strict CSP and runs no inline script', async () => {
    const answer = await page.goto(`${platform.baseUrl}/catalog`);
    expect(answer!.headers()['content-security-policy']).to.contain("script-src 'self'").and.contain("frame-ancestors 'none'");
    const inline = await page.locator('script:not([src])').count();
    expect(inline).to.equal(0);
  });

  it('filters the catalog by text and tag, hides deprecated entries until asked, and warns of a deprecation date', async () => {
    await page.goto(`${platform.baseUrl}/catalog`);
    const names = async () => Promise.all((await page.locator('article.entry').all()).map((e) => e.getAttribute('data-entry')));
    expect(await names()).to.have.members(['ubuntu', 'python', 'hostile']);
    expect(await page.locator('[data-entry="python"] .warning').textContent()).to.contain('Deprecated from 2099-01-31');
    await shot('catalog');
    await page.getByLabel('Search').fill('python');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/q=python/);
    expect(await names()).to.deep.equal(['python']);
    await page.goto(`${platform.baseUrl}/catalog`);
    await page.getByLabel('Tag').selectOption('linux');
    await page.getByRole('button', { name: 'Filter' }).click();
    expect(await names()).to.have.members(['ubuntu', 'python']);
    await page.goto(`${platform.baseUrl}/catalog`);
    await page.getByLabel('Show deprecated entries').check();
    await page.waitForURL(/deprecated=1/);
    expect(await names()).to.include('legacy');
  });

  it('shows a hostile catalog title as text and runs none of it', async () => {
    await page.goto(`${platform.baseUrl}/catalog`);
    expect(await page.locator('#img-hostile').textContent()).to.equal('<img src=x onerror=alert(1)>');
    expect(await page.locator('[data-entry="hostile"] p').first().textContent()).to.equal('<script>alert(2)</script>');
    expect(await page.locator('[data-entry="hostile"] img:not(.icon), [data-entry="hostile"] script').count()).to.equal(0);
    expect(dialogs).to.deep.equal([]);
  });

  it("shows the webhook's refusal beside the SSH key field and keeps everything typed", async () => {
    await page.goto(`${platform.baseUrl}/new?image=ubuntu`);
    await page.getByLabel('Name').fill('dev');
    await page.getByLabel('CPU').fill('1');
    await page.getByLabel('Memory').fill('1Gi');
    await page.getByLabel('Home volume').fill('5Gi');
    await page.getByLabel('SSH public key').fill('ssh-ed25519 AAAAnotarealkey alice@laptop');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    const error = await page.locator('#ssh_public_key-error').textContent();
    expect(error).to.match(/denied the request/).and.match(/sshAuthorizedKeys/);
    expect(await page.getByLabel('Name').inputValue()).to.equal('dev');
    expect(await page.getByLabel('CPU').inputValue()).to.equal('1');
    expect(await page.getByLabel('Memory').inputValue()).to.equal('1Gi');
    expect(await page.getByLabel('Home volume').inputValue()).to.equal('5Gi');
    expect(await page.getByLabel('Image').inputValue()).to.equal('ubuntu');
    await shot('new-refused');
    expect(await gone(platform.admin.get(RESOURCES.workspace, 'dev', 'svc-alice'))).to.equal(true);
  });

  it('creates a workspace and the status card reaches Running without a reload', async () => {
    await page.goto(`${platform.baseUrl}/new?image=ubuntu`);
    await page.getByLabel('Name').fill('dev');
    await page.getByLabel('Home volume').fill('5Gi');
    await page.getByLabel('SSH public key').fill(KEY);
    await page.getByLabel('Save this key to my profile').check();
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.waitForURL(`${platform.baseUrl}/w/dev`);
    await page.locator('#status-card .badge[data-phase="Running"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('#terminal').getAttribute('data-workspace')).to.equal('dev');
    expect(((await platform.admin.get(RESOURCES.userSpace, 'alice')).spec as any).sshAuthorizedKeys).to.deep.equal([KEY]);
    await shot('workspace');
    await page.goto(`${platform.baseUrl}/`);
    expect(await page.locator('[data-workspace="dev"] code').textContent()).to.equal('ssh dev@127.0.0.1');
    await shot('dashboard');
  });

  it('deletes a workspace keeping its volume when unchecked, and with it by default', async () => {
    await page.goto(`${platform.baseUrl}/new?image=ubuntu`);
    await page.getByLabel('Name').fill('scratch');
    await page.getByLabel('Home volume').fill('1Gi');
    expect(await page.getByLabel('SSH public key').inputValue(), 'prefilled from the saved key').to.equal(KEY);
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.waitForURL(`${platform.baseUrl}/w/scratch`);
    for (const name of ['dev', 'scratch']) await eventually(() => platform.admin.get(RESOURCES.persistentVolumeClaim, `home-${name}-0`, 'svc-alice'), `PVC of ${name}`, 30_000);

    await page.goto(`${platform.baseUrl}/w/dev`);
    await page.getByText('Delete this workspace…').click();
    const keep = page.getByLabel('Also delete the volume home-dev-0');
    expect(await keep.isChecked(), 'checked by default').to.equal(true);
    await keep.uncheck();
    await page.getByRole('button', { name: 'Delete dev' }).click();
    await page.waitForURL(`${platform.baseUrl}/`);
    expect(await gone(platform.admin.get(RESOURCES.workspace, 'dev', 'svc-alice'))).to.equal(true);
    expect(await gone(platform.admin.get(RESOURCES.persistentVolumeClaim, 'home-dev-0', 'svc-alice'))).to.equal(false);

    await page.goto(`${platform.baseUrl}/w/scratch`);
    await page.getByText('Delete this workspace…').click();
    await page.getByRole('button', { name: 'Delete scratch' }).click();
    await page.waitForURL(`${platform.baseUrl}/`);
    expect(await gone(platform.admin.get(RESOURCES.workspace, 'scratch', 'svc-alice'))).to.equal(true);
    expect(await gone(platform.admin.get(RESOURCES.persistentVolumeClaim, 'home-scratch-0', 'svc-alice'))).to.equal(true);
  });
});
