// The web UI in real Chromium (Debian's, driven by playwright-core) against the whole
// platform on this machine: the fake API server, the real manager with its webhooks, den
// server and the harness kubelet that makes workspace pods Running. With DEN_SCREENSHOTS=1
// it also writes docs/screenshots/*.png of the main pages for the README.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { RESOURCES } from '../../../kube/resources.js';
import { eventually, gone, LocalPlatform, runDen } from '../../support/platform.js';
import { launchChromium, openLoginForm } from '../../support/web.js';
import { PASSWORD, KEY, SHOTS, hostileSite, watchCsp, terminalText, unlabelledControls, type InPageDocument, type InPageWindow } from './browser-support.js';

declare const document: InPageDocument;
declare const window: InPageWindow;

describe('web UI in Chromium', function () {
  this.timeout(120_000);
  const platform = new LocalPlatform();
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const dialogs: string[] = [];

  async function shot(name: string, of = page): Promise<void> {
    if (!SHOTS) return;
    await mkdir(SHOTS, { recursive: true });
    await of.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }

  async function signIn(password: string, into = page, username = 'alice'): Promise<void> {
    await into.goto(`${platform.baseUrl}/`);
    await into.getByLabel('Username').fill(username);
    await into.getByLabel('Password').fill(password);
    await into.getByRole('button', { name: 'Sign in' }).click();
  }

  before(async () => {
    await platform.start();
    const added = await runDen(['users', 'add', 'alice', '--owner', 'alice@example.com', '--password-stdin', '--kubeconfig', platform.kubeconfig], { stdin: `${PASSWORD}\n` });
    expect(added.code, added.stderr).to.equal(0);
    const root = await runDen(['users', 'add', 'root', '--owner', 'root@example.com', '--admin', '--password-stdin', '--kubeconfig', platform.kubeconfig], { stdin: `${PASSWORD}\n` });
    expect(root.code, root.stderr).to.equal(0);
    const admin = platform.admin;
    // The terminal's shell runs on this machine (fake exec): the "pod's" filesystem is its home.
    const entry = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name }, spec: { image: platform.workspaceImage, ...spec } });
    await admin.create(RESOURCES.workspaceImage, entry('ubuntu', { displayName: 'Ubuntu 24.04', description: 'Everyday Linux', tags: ['linux'], homePath: platform.podRoot }));
    await admin.create(RESOURCES.workspaceImage, entry('python', { displayName: 'Python 3.12', tags: ['python', 'linux'], deprecateAt: '2099-01-31T00:00:00Z' }));
    await admin.create(RESOURCES.workspaceImage, entry('legacy', { displayName: 'Legacy CentOS', deprecated: true }));
    await admin.create(RESOURCES.workspaceImage, entry('hostile', { displayName: '<img src=x onerror=alert(1)>', description: '<script>alert(2)</script>' }));
    for (const name of ['alice', 'root']) {
      await eventually(async () => ((await admin.get(RESOURCES.userSpace, name)).status as { phase?: string } | undefined)?.phase === 'Ready', `UserSpace ${name} Ready`, platform.convergeMs);
    }
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

  it('refuses a sign-in form posted from another site (login CSRF), showing why, and nobody is signed in', async () => {
    // The attacker's own pair, from their own visit: useless without the cookie only Den's page gets.
    const attacker = await openLoginForm(platform.baseUrl);
    const site = await hostileSite(`${platform.baseUrl}/login`, { _csrf: attacker.csrf, next: '/', username: 'alice', password: PASSWORD });
    const victim = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    try {
      const tab = await victim.newPage();
      await tab.goto(`${platform.baseUrl}/login`);
      const own = (await victim.cookies()).find((c) => c.name === 'svc_login_csrf');
      expect(own, 'the sign-in page sets its CSRF cookie').to.deep.include({ httpOnly: true, sameSite: 'Lax', path: '/' });
      await tab.goto(site.url);
      await tab.getByRole('button', { name: 'Claim your prize' }).click();
      await tab.waitForURL(`${platform.baseUrl}/login`);
      expect(await tab.locator('#login-error').textContent()).to.contain('This sign-in form did not come from this Den sign-in page, or it has expired; nobody was signed in.');
      expect((await victim.cookies()).map((c) => c.name)).not.to.include('svc_session');
      await tab.goto(`${platform.baseUrl}/`);
      expect(new URL(tab.url()).pathname, 'still signed out').to.equal('/login');
    } finally {
      await victim.close();
      await site.close();
    }
  });

  it('labels every control of the sign-in form', async () => {
    const fresh = await browser.newContext();
    try {
      const tab = await fresh.newPage();
      await tab.goto(`${platform.baseUrl}/login`);
      for (const label of ['Username', 'Password']) expect(await tab.getByLabel(label, { exact: true }).count(), label).to.equal(1);
      expect(await unlabelledControls(tab)).to.deep.equal([]);
    } finally {
      await fresh.close();
    }
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
    expect(error).to.match(/^This is not an SSH public key Den can use \(.+\)\. Paste the one line of your public key file/);
    // The cluster's own words stay at hand, folded.
    expect(await page.locator('#ssh_public_key-cluster').getAttribute('open')).to.equal(null);
    expect(await page.locator('#ssh_public_key-cluster p').textContent()).to.match(/denied the request/).and.match(/sshAuthorizedKeys/);
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
    expect(await page.locator('[data-workspace="dev"] code').textContent()).to.equal(`ssh -p ${platform.ssh.port} dev@127.0.0.1`);
    await shot('dashboard');
  });

  it("shows the pod's log in the Logs tab with the chosen number of lines, and the start's events in the Events tab", async () => {
    platform.api.setPodLog('svc-alice', 'dev-0', Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    await page.goto(`${platform.baseUrl}/w/dev`);
    const logLines = async () => ((await page.locator('#logs').textContent()) ?? '').trimEnd().split('\n');
    await eventually(async () => (await logLines()).at(-1) === 'line 300', 'the log shown', 10_000);
    expect(await logLines(), 'the default tail of 200 lines').to.have.length(200);
    expect(await page.locator('#logs-state').textContent()).to.equal('Last 200 lines, refreshed every 5 seconds.');
    await page.getByLabel('Lines').selectOption('100');
    await eventually(async () => (await logLines())[0] === 'line 201', 'the last 100 lines', 10_000);
    expect(await logLines()).to.have.length(100);
    await shot('workspace-logs');

    await page.getByRole('tab', { name: 'Events' }).click();
    expect(await page.locator('#panel-logs').isHidden()).to.equal(true);
    const rows = page.locator('#panel-events tbody tr');
    const reasons = await Promise.all((await rows.all()).map((r) => r.locator('td').nth(3).textContent()));
    expect(reasons.slice(0, 2)).to.deep.equal(['Scheduled', 'Pulled']);
    expect(reasons).to.include.members(['Created', 'Started']);
    expect(await page.locator('#panel-events').textContent()).to.contain('Successfully assigned svc-alice/dev-0 to harness-node');
    expect(await page.locator('#status-card ol.progress').textContent(), 'the start as progress on the status card').to.match(/Started: Started container \S+/);
    await shot('workspace-events');

    // The tabs by keyboard: arrows move between them and open the panel.
    await page.getByRole('tab', { name: 'Events' }).focus();
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByRole('tab', { name: 'Logs' }).getAttribute('aria-selected')).to.equal('true');
    expect(await page.locator('#panel-logs').isVisible()).to.equal(true);
  });

  it('fits a 375 px wide phone screen without sideways scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    try {
      for (const path of ['/', '/catalog', '/new', '/w/dev']) {
        await page.goto(`${platform.baseUrl}${path}`);
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
        expect(scrollWidth, `${path}: page width ${scrollWidth} in a ${innerWidth} px window`).to.be.at.most(innerWidth);
      }
      await page.goto(`${platform.baseUrl}/w/dev`);
      for (const tab of ['Events', 'YAML']) {
        await page.getByRole('tab', { name: tab }).click();
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth, `/w/dev ${tab} tab`).to.be.at.most(375);
      }
      await shot('phone-workspace');
    } finally {
      await page.setViewportSize({ width: 1200, height: 900 });
    }
  });

  it('can be used with the keyboard alone: the skip link first, then the header and its navigation, and labelled controls', async () => {
    await page.goto(`${platform.baseUrl}/`);
    const focused = async () => page.evaluate(() => {
      const el = document.activeElement;
      return { text: el?.textContent?.trim() ?? '', inNav: Boolean(el?.closest('nav')), tag: el?.tagName ?? '' };
    });
    await page.keyboard.press('Tab');
    expect(await focused()).to.deep.include({ text: 'Skip to content', tag: 'A' });
    expect(await page.locator('a.skip').isVisible(), 'the skip link shows when focused').to.equal(true);
    const order: string[] = [];
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      const f = await focused();
      order.push(f.inNav ? `nav:${f.text}` : f.text);
    }
    expect(order).to.deep.equal(['Den', 'nav:Dashboard', 'nav:Catalog', 'nav:New', 'nav:Profile']);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id), 'the skip link moves focus to the content').to.equal('main');

    await page.goto(`${platform.baseUrl}/new`);
    for (const label of ['Name', 'Image', 'CPU', 'Memory', 'GPUs', 'Home volume', 'SSH public key', 'Save this key to my profile for my next workspaces']) {
      expect(await page.getByLabel(label, { exact: true }).count(), label).to.equal(1);
    }
    for (const path of ['/new', '/catalog', '/w/dev', '/']) {
      await page.goto(`${platform.baseUrl}${path}`);
      expect(await unlabelledControls(page), path).to.deep.equal([]);
    }
  });

  it('reports no Content-Security-Policy violation on any page, the terminal running a command and the admin pages included', async () => {
    const found: string[] = [];
    const contexts: BrowserContext[] = [];
    const tabOf = async () => {
      const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 }, colorScheme: 'light' });
      contexts.push(ctx);
      const tab = await ctx.newPage();
      return { tab, csp: await watchCsp(tab) };
    };
    const check = async (tab: Page, csp: { take(): Promise<string[]> }, what: string) => {
      // Late work (polls, the terminal's styles) has a moment to run into the policy.
      await tab.waitForTimeout(300);
      found.push(...(await csp.take()).map((v) => `${what}: ${v}`));
    };
    try {
      const person = await tabOf();
      await person.tab.goto(`${platform.baseUrl}/login`);
      await check(person.tab, person.csp, '/login');
      await signIn(PASSWORD, person.tab);
      await person.tab.waitForURL(`${platform.baseUrl}/`);
      for (const path of ['/', '/catalog', '/catalog?deprecated=1', '/new', '/profile', '/admin/overview', '/no-such-page']) {
        await person.tab.goto(`${platform.baseUrl}${path}`);
        await check(person.tab, person.csp, path);
      }

      const { tab, csp } = person;
      await tab.goto(`${platform.baseUrl}/profile`);
      await shot('profile', tab);
      await tab.goto(`${platform.baseUrl}/w/dev`);
      await tab.locator('#status-card .badge[data-phase="Running"]').waitFor();
      for (const name of ['Events', 'YAML', 'Logs']) await tab.getByRole('tab', { name }).click();
      await tab.getByRole('tab', { name: 'Terminal' }).click();
      await tab.locator('#terminal .xterm-rows').waitFor();
      await eventually(async () => /[$#] *$/m.test(await terminalText(tab)), 'the shell prompt', 15_000);
      await tab.keyboard.type('echo "den says $((6*7))"\n');
      await eventually(async () => (await terminalText(tab)).includes('den says 42'), "the command's output in the terminal", 15_000);
      await check(tab, csp, '/w/dev with the terminal open');
      await shot('workspace-terminal', tab);

      const admin = await tabOf();
      await signIn(PASSWORD, admin.tab, 'root');
      await admin.tab.waitForURL(`${platform.baseUrl}/`);
      for (const section of ['overview', 'users', 'quota', 'catalog', 'workspaces', 'settings']) {
        await admin.tab.goto(`${platform.baseUrl}/admin/${section}`);
        expect(await admin.tab.locator('h1').textContent(), section).not.to.equal('Not allowed');
        await check(admin.tab, admin.csp, `/admin/${section}`);
      }
      await admin.tab.goto(`${platform.baseUrl}/admin/workspaces?sort=owner`);
      expect(await admin.tab.locator('#workspaces tbody tr').count()).to.be.at.least(1);
      await shot('admin-workspaces', admin.tab);
    } finally {
      for (const ctx of contexts) await ctx.close();
    }
    expect(found).to.deep.equal([]);
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
    await page.getByLabel('To delete it with its volume, type its name, scratch').fill('scratch');
    await page.getByRole('button', { name: 'Delete scratch' }).click();
    await page.waitForURL(`${platform.baseUrl}/`);
    expect(await gone(platform.admin.get(RESOURCES.workspace, 'scratch', 'svc-alice'))).to.equal(true);
    expect(await gone(platform.admin.get(RESOURCES.persistentVolumeClaim, 'home-scratch-0', 'svc-alice'))).to.equal(true);
  });
});
