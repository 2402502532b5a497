// The pages follow the cluster without a reload, in real Chromium against the whole platform
// (two den server replicas behind the round-robin proxy, the real manager, the harness kubelet):
// the workspace page becomes connectable, follows a stop made in another tab and reads out only
// what changed; dashboard cards and the admin list appear and go; a Failed workspace says why
// once, offers what to do, no connection and no log polling, and restarts once its entry is fixed.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { RESOURCES } from '../../../kube/resources.js';
import { eventually, gone, LocalPlatform, runDen, UNPULLABLE_REGISTRY } from '../../support/platform.js';
import { launchChromium } from '../../support/web.js';

const PASSWORD = 'correct horse battery staple';
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop';
/** Long enough for two rounds of the 3 s poll. */
const TWO_POLLS_MS = 6_500;

// What the functions given to page.evaluate use of the page (they run in Chromium; the tests' own types have no DOM).
interface Observed {
  observe(target: unknown, options: { childList?: boolean; characterData?: boolean; subtree?: boolean }): void;
}
declare const document: { querySelector(selector: string): { textContent: string | null } | null; activeElement: { getAttribute(name: string): string | null } | null };
declare const MutationObserver: new (callback: () => void) => Observed;
declare const window: { denMark?: string; denSaid?: string[]; denSwaps?: number };

/** Marks the document, so that a reload (which would clear the mark) is noticed. */
async function mark(page: Page): Promise<void> {
  await page.evaluate(() => {
    window.denMark = 'not reloaded';
  });
}

async function marked(page: Page): Promise<boolean> {
  return (await page.evaluate(() => window.denMark)) === 'not reloaded';
}

/** Records every text the status line reads out, and every swap of the live part. */
async function listen(page: Page): Promise<void> {
  await page.evaluate(() => {
    window.denSaid = [];
    window.denSwaps = 0;
    const announcer = document.querySelector('#live-announcer')!;
    new MutationObserver(() => window.denSaid!.push(announcer.textContent ?? '')).observe(announcer, { childList: true, characterData: true, subtree: true });
    new MutationObserver(() => {
      window.denSwaps! += 1;
    }).observe(document.querySelector('#live'), { childList: true });
  });
}

async function heard(page: Page): Promise<{ said: string[]; swaps: number }> {
  return page.evaluate(() => ({ said: [...(window.denSaid ?? [])], swaps: window.denSwaps ?? 0 }));
}

describe('live pages in Chromium', function () {
  this.timeout(120_000);
  const platform = new LocalPlatform();
  let browser: Browser;
  let alice: BrowserContext;
  let root: BrowserContext;
  let page: Page;
  const consoleErrors: string[] = [];

  async function signedIn(username: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const tab = await context.newPage();
    await tab.goto(`${platform.baseUrl}/login`);
    await tab.getByLabel('Username').fill(username);
    await tab.getByLabel('Password').fill(PASSWORD);
    await Promise.all([tab.waitForURL(`${platform.baseUrl}/`), tab.getByRole('button', { name: 'Sign in' }).click()]);
    return { context, page: tab };
  }

  async function create(tab: Page, name: string, image: string): Promise<void> {
    const answer = await tab.goto(`${platform.baseUrl}/new?image=${image}`);
    expect(`${answer?.status()} ${tab.url()}`, await tab.locator('main').innerText().catch(() => 'no main')).to.equal(`200 ${platform.baseUrl}/new?image=${image}`);
    await tab.getByLabel('Name').fill(name);
    await tab.getByLabel('Home volume').fill('1Gi');
    await tab.getByLabel('SSH public key').fill(KEY);
    await Promise.all([tab.waitForURL(`${platform.baseUrl}/w/${name}`), tab.getByRole('button', { name: 'Create workspace' }).click()]);
  }

  async function remove(tab: Page, name: string): Promise<void> {
    await tab.goto(`${platform.baseUrl}/w/${name}`);
    await tab.getByText('Delete this workspace…').click();
    await tab.locator('#confirm-name').fill(name);
    await Promise.all([tab.waitForURL(`${platform.baseUrl}/`), tab.getByRole('button', { name: `Delete ${name}` }).click()]);
  }

  const badge = (tab: Page, phase: string) => tab.locator(`#status-card .badge[data-phase="${phase}"]`);

  before(async () => {
    await platform.start();
    for (const [name, admin] of [['alice', false], ['root', true]] as const) {
      const added = await runDen(['users', 'add', name, '--owner', `${name}@example.com`, ...(admin ? ['--admin'] : []), '--password-stdin', '--kubeconfig', platform.kubeconfig], { stdin: `${PASSWORD}\n` });
      expect(added.code, added.stderr).to.equal(0);
    }
    const entry = (name: string, displayName: string, image: string) => ({ apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name }, spec: { image, displayName } });
    await platform.admin.create(RESOURCES.workspaceImage, entry('ubuntu', 'Ubuntu 24.04', platform.workspaceImage));
    await platform.admin.create(RESOURCES.workspaceImage, entry('broken', 'Broken image', `${UNPULLABLE_REGISTRY}/team/broken:1`));
    for (const name of ['alice', 'root']) {
      await eventually(async () => ((await platform.admin.get(RESOURCES.userSpace, name)).status as { phase?: string } | undefined)?.phase === 'Ready', `UserSpace ${name} Ready`, platform.convergeMs);
    }
    browser = await launchChromium();
    ({ context: alice, page } = await signedIn('alice'));
    ({ context: root } = await signedIn('root'));
    alice.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`${m.location().url}: ${m.text()}`);
    });
  });

  after(async () => {
    await browser?.close();
    await platform.stop();
  });

  it('turns the page of a new workspace connectable without a reload, and then says nothing while nothing changes', async () => {
    // The controller's StatefulSet write waits a moment, as on a busy cluster: the page is surely drawn before the workspace runs.
    platform.api.slowDown('PATCH', /\/statefulsets\/live(\?|$)/, 3_000);
    const first = page.waitForResponse((r) => new URL(r.url()).pathname === '/w/live' && r.request().method() === 'GET');
    await create(page, 'live', 'ubuntu');
    expect(await (await first).text(), 'drawn before the workspace ran').not.to.contain('data-phase="Running"');
    await mark(page);
    await listen(page);
    await page.getByRole('button', { name: 'Stop live' }).focus();

    await page.locator('#connect-card .copy code').waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'focus stays on its button across the swaps').to.equal('Stop live');
    expect(await page.locator('#connect-card .copy code').textContent()).to.equal(`ssh -p ${platform.ssh.port} live@127.0.0.1`);
    expect(await page.getByRole('link', { name: 'Open in VS Code (Remote-SSH)' }).getAttribute('href')).to.satisfy((href: string) => href.startsWith(`vscode://vscode-remote/ssh-remote+live@127.0.0.1:${platform.ssh.port}/`));
    expect(await badge(page, 'Running').count()).to.equal(1);
    expect(await page.getByRole('button', { name: 'Start live' }).isDisabled()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Stop live' }).isEnabled()).to.equal(true);
    expect(await page.locator('#status-card ol.progress').textContent()).to.match(/\+\d+ s Started: Started container/);
    expect(await marked(page), 'the same document').to.equal(true);
    expect((await heard(page)).said.at(-1)).to.match(/^live is Running\./);
    // The Details card follows too: where its pod runs (read on the polls that read the pod) and its SSH address.
    await eventually(async () => /Pod\s+live-0\nNode\s+harness-node/.test(await page.locator('#facts').innerText()), 'the Details card names the pod and its node', 10_000);
    expect(await page.locator('#facts').innerText()).to.contain(`SSH address\nlive@127.0.0.1, port ${platform.ssh.port}\n`);

    const settled = await heard(page);
    await page.waitForTimeout(TWO_POLLS_MS);
    expect(await heard(page), 'no swap and nothing read out while the workspace stays as it is').to.deep.equal(settled);
    expect(await page.locator('#live [aria-live]').count(), 'the swapped part is not itself a live region').to.equal(0);
  });

  it('follows a change made elsewhere in the Details card, the Events tab and the YAML tab, reading none of it out', async () => {
    await page.goto(`${platform.baseUrl}/w/live`);
    await badge(page, 'Running').waitFor();
    await mark(page);
    await listen(page);
    await page.getByRole('tab', { name: 'Events' }).click();
    await platform.admin.patch(RESOURCES.workspace, 'live', { spec: { idleTimeout: '45m' } }, { namespace: 'svc-alice' });
    const note = { kind: 'Workspace', name: 'live', namespace: 'svc-alice' };
    await platform.admin.create(RESOURCES.event, { apiVersion: 'v1', kind: 'Event', metadata: { name: 'live.backup', namespace: 'svc-alice' }, involvedObject: note, type: 'Normal', reason: 'BackupTaken', message: 'the nightly backup of the home folder finished', lastTimestamp: new Date().toISOString(), count: 1 }, 'svc-alice');

    await eventually(async () => /Idle timeout\s+45m/.test(await page.locator('#facts').innerText()), 'the Details card shows the new idle timeout', 10_000);
    await eventually(async () => (await page.locator('#panel-events').innerText()).includes('BackupTaken'), 'the Events tab lists the new event', 10_000);
    await page.getByRole('tab', { name: 'YAML' }).click();
    expect(await page.locator('#yaml').textContent()).to.contain('idleTimeout: 45m');
    expect(await marked(page), 'the same document').to.equal(true);
    const { said } = await heard(page);
    expect(said.filter((s) => s.includes('45m') || s.includes('BackupTaken')), 'the details are not read out').to.deep.equal([]);
  });

  it('follows a stop made in a second tab: the first tab and the dashboard change without a reload', async () => {
    const dashboard = await alice.newPage();
    await dashboard.goto(`${platform.baseUrl}/`);
    await mark(dashboard);
    await page.goto(`${platform.baseUrl}/w/live`);
    await badge(page, 'Running').waitFor();
    await mark(page);
    await listen(page);

    const second = await alice.newPage();
    await second.goto(`${platform.baseUrl}/w/live`);
    await second.getByRole('button', { name: 'Stop live' }).click();

    await badge(page, 'Suspended').waitFor({ timeout: 15_000 });
    await eventually(async () => (await page.locator('#connect-card .connect-state').textContent()) === 'Stopped: start it to connect over SSH or VS Code.', 'the Connect card of a stopped workspace', 10_000);
    expect(await page.locator('#connect-card code').count(), 'no ssh command for a stopped workspace').to.equal(0);
    expect(await page.getByRole('button', { name: 'Start live' }).isEnabled()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Stop live' }).isDisabled()).to.equal(true);
    await dashboard.locator('[data-workspace="live"] .badge[data-phase="Suspended"]').waitFor({ timeout: 10_000 });
    expect(await dashboard.getByRole('button', { name: 'Start live' }).isEnabled()).to.equal(true);
    await eventually(async () => /Pod\s+none while it is stopped\nNode\s+–/.test(await page.locator('#facts').innerText()), 'the Details card says a stopped workspace has no pod', 10_000);
    expect(await marked(page)).to.equal(true);
    expect(await marked(dashboard)).to.equal(true);

    const { said } = await heard(page);
    expect(said.length, said.join(' | ')).to.be.within(1, 2);
    expect(said.every((s) => s.startsWith('live is Suspended.')), said.join(' | ')).to.equal(true);
    await dashboard.close();
    await second.close();
  });

  it('asks nothing while its tab is hidden, and catches up as soon as it is shown', async () => {
    const tab = await alice.newPage();
    await tab.goto(`${platform.baseUrl}/`);
    const polls: number[] = [];
    tab.on('request', (r) => {
      if (r.headers()['x-den-fragment'] === 'live') polls.push(Date.now());
    });
    const seem = (state: string) => `Object.defineProperty(document, 'visibilityState', { configurable: true, get() { return '${state}'; } }); document.dispatchEvent(new Event('visibilitychange'));`;
    await tab.evaluate(seem('hidden'));
    await tab.waitForTimeout(TWO_POLLS_MS);
    expect(polls, 'no poll from a hidden tab').to.deep.equal([]);
    const shown = Date.now();
    await tab.evaluate(seem('visible'));
    await eventually(() => polls.length > 0, 'a poll once shown', 2_000);
    expect(polls[0]! - shown, 'at once, not at the next 3 s tick').to.be.below(1_000);
    await tab.close();
  });

  it('adds, changes and removes dashboard cards and admin list rows without a reload', async () => {
    const dashboard = await alice.newPage();
    await dashboard.goto(`${platform.baseUrl}/`);
    await mark(dashboard);
    const admin = await root.newPage();
    await admin.goto(`${platform.baseUrl}/admin/workspaces`);
    await mark(admin);
    expect(await admin.locator('#workspaces tbody tr').count()).to.equal(1);

    const second = await alice.newPage();
    await create(second, 'extra', 'ubuntu');
    await dashboard.locator('[data-workspace="extra"] .badge[data-phase="Running"]').waitFor({ timeout: 30_000 });
    await admin.locator('tr[data-workspace="svc-alice/extra"] .badge.Running').waitFor({ timeout: 10_000 });
    expect(await admin.locator('#workspace-count').textContent()).to.equal('2 workspaces.');

    const watching = await alice.newPage();
    await watching.goto(`${platform.baseUrl}/w/extra`);
    await remove(second, 'extra');
    await dashboard.locator('[data-workspace="extra"]').waitFor({ state: 'detached', timeout: 15_000 });
    await eventually(async () => (await dashboard.locator('#live-announcer').textContent())?.includes('extra is no longer listed.'), 'the dashboard saying the card went', 5_000);
    await watching.locator('#live').getByText('This no longer exists: it was deleted, or you may no longer see it.').waitFor({ timeout: 10_000 });
    expect(await watching.getByRole('link', { name: 'Back to the dashboard' }).getAttribute('href')).to.equal('/');
    await admin.locator('tr[data-workspace="svc-alice/extra"]').waitFor({ state: 'detached', timeout: 15_000 });
    expect(await dashboard.locator('article.workspace').count()).to.equal(1);
    expect(await marked(dashboard)).to.equal(true);
    expect(await marked(admin)).to.equal(true);
    expect(await gone(platform.admin.get(RESOURCES.workspace, 'extra', 'svc-alice'))).to.equal(true);
    await Promise.all([dashboard.close(), admin.close(), second.close(), watching.close()]);
  });

  it('says once, in a sentence, why a workspace cannot start, offers what to do and no connection, and polls no log', async () => {
    const logRequests: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.endsWith('/logs')) logRequests.push(r.url());
    });
    consoleErrors.splice(0);
    await create(page, 'wonky', 'broken');
    await mark(page);
    await badge(page, 'Failed').waitFor({ timeout: 30_000 });

    const sentence = 'wonky cannot start: the image of the catalog entry "Broken image" (broken) cannot be downloaded.';
    expect(await page.locator('#failure-sentence').textContent()).to.equal(sentence);
    const shown = await page.locator('main').innerText();
    const onScreen = await page.locator('#live').innerText();
    expect(onScreen.split(sentence).length - 1, 'the sentence once').to.equal(1);
    // Read out when the page saw it change; a page that loaded after the failure has nothing to announce.
    expect(['', `wonky is Failed. ${sentence}`], 'and read out once, if at all').to.include(await page.locator('#live-announcer').textContent());
    expect(shown, "the kubelet's words are folded").not.to.contain('no such host');
    expect(await page.locator('#failure .remedies').innerText()).to.contain('Ask an administrator to check the catalog entry "Broken image" (broken)').and.contain('Restart');
    expect(await page.getByRole('link', { name: 'create a workspace from another catalog entry' }).getAttribute('href')).to.equal('/catalog');
    await page.getByText('What the cluster says').click();
    expect(await page.locator('#failure .raw').innerText()).to.contain('no such host').and.contain('WorkspaceImage "broken"');

    expect(await page.locator('#connect-card code').count(), 'no ssh command').to.equal(0);
    expect(await page.locator('a[href^="vscode:"]').count(), 'no VS Code link').to.equal(0);
    expect(await page.locator('#connect-card .connect-state').textContent()).to.equal('SSH and VS Code cannot connect while this workspace cannot start.');
    expect(await page.getByRole('button', { name: 'Restart wonky' }).isEnabled()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Stop wonky' }).isEnabled()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Start wonky', exact: true }).count()).to.equal(0);

    await page.waitForTimeout(TWO_POLLS_MS);
    expect(await page.locator('#logs-state').textContent()).to.equal('The log appears here while the workspace is running.');
    expect(logRequests, 'the log is not asked for').to.deep.equal([]);
    expect(consoleErrors).to.deep.equal([]);
    expect(await page.locator('details[data-fold="failure-detail"]').getAttribute('open'), 'the fold stays open across polls').to.equal('');

    await page.goto(`${platform.baseUrl}/`);
    const card = page.locator('[data-workspace="wonky"]');
    expect(await card.locator('.reason').textContent()).to.equal(sentence);
    expect(await card.innerText()).not.to.contain('no such host');
    expect(await card.locator('code').count()).to.equal(0);
  });

  it("restarts a failed workspace once its entry is fixed, showing the new start's steps with times and the old warning folded", async () => {
    await platform.admin.patch(RESOURCES.workspaceImage, 'broken', { spec: { image: platform.workspaceImage } }, { type: 'merge' });
    await page.goto(`${platform.baseUrl}/w/wonky`);
    await Promise.all([page.waitForURL(`${platform.baseUrl}/w/wonky`), page.getByRole('button', { name: 'Restart wonky' }).click()]);
    await mark(page);
    await page.locator('#connect-card .copy code').waitFor({ timeout: 30_000 });
    expect(await page.locator('#connect-card .copy code').textContent()).to.equal(`ssh -p ${platform.ssh.port} wonky@127.0.0.1`);
    expect(await page.locator('#failure').count()).to.equal(0);

    const steps = page.locator('ol.progress[aria-label="Steps of the latest start"] li');
    const texts = await steps.allInnerTexts();
    expect(texts.map((t) => t.replace(/^(just now|\+\d+ s|\d+ \w+ ago) /, '').split(':')[0])).to.deep.equal(['Scheduled', 'Pulled', 'Created', 'Started']);
    expect(await steps.locator('time').count(), 'every step with its time').to.equal(4);
    const history = page.locator('details[data-fold="history"]');
    expect(await history.locator('summary').textContent()).to.equal('Warnings of earlier starts (1)');
    expect(await history.locator('li').innerText({ timeout: 1000 }).catch(() => ''), 'folded').to.equal('');
    await history.locator('summary').click();
    expect(await history.locator('li').innerText()).to.contain('Failed').and.contain('no such host');
    expect(await marked(page)).to.equal(true);
    await remove(page, 'wonky');
  });
});
