// The Terminal tab in real Chromium: xterm.js on the workspace page, through den server's
// relay, to a shell run by the fake exec; its script fetched only when the tab opens; Shift+Esc
// leaves it while Tab and Esc reach the shell; full screen; resizing the window resizes the
// pty; a page of another origin cannot open the terminal with the person's cookie.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LABELS } from '../../../kube/group.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { FakeExec } from '../../support/fake-exec.js';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';
import { until } from '../core/cluster.js';

function seedWorkspace(api: FakeApiServer, name: string, home: string, phase = 'Running'): void {
  api.seed(
    { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'shell' }, spec: { displayName: 'Shell', image: 'debian:12', shell: '/bin/sh', homePath: home } },
    {
      apiVersion: 'den.dev/v1alpha1',
      kind: 'Workspace',
      metadata: { name, namespace: 'svc-alice' },
      spec: { imageRef: { name: 'shell' }, storage: '1Gi', running: phase === 'Running', sshAuthorizedKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl a@b'] },
      status: { phase, podName: `${name}-0`, endpoint: `${name}@ssh.den.test` },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${name}-0`, namespace: 'svc-alice', labels: { [LABELS.workspace]: name } },
      spec: { containers: [{ name: 'workspace', image: 'debian:12' }] },
      status: { phase: 'Running' },
    },
  );
}

/** What xterm.js shows, row by row, without the padding of each row. */
async function screenText(page: Page): Promise<string> {
  const rows = await page.$eval('#terminal .xterm-rows', (el) => [...el.children].map((r) => r.textContent ?? ''));
  return rows.map((r) => r.replace(/\u00a0/g, ' ').trimEnd()).join('\n');
}

const PROMPT = /[$#]$/m;

async function openTerminalTab(page: Page): Promise<void> {
  await page.click('#tab-terminal');
  await page.waitForSelector('#terminal .xterm-rows');
}

describe('the Terminal tab in Chromium', function () {
  this.timeout(60_000);
  let world: BrowserDen;
  let exec: FakeExec;
  /** The terminals' execs (a tty each); the page's Apps and ports card also runs one without a tty every few seconds. */
  const shells = () => exec.execs.filter((e) => e.tty);
  let home: string;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'den-terminal-browser-'));
    exec = new FakeExec({ cwd: home, env: { PS1: '$ ', ENV: '' } });
    world = await startBrowserDen({ alice: {} }, (api) => {
      seedWorkspace(api, 'dev', home);
      seedWorkspace(api, 'asleep', home, 'Suspended');
      exec.attachTo(api);
    });
  });
  after(async () => {
    await world?.close();
    await exec.close();
    await rm(home, { recursive: true, force: true });
  });

  it("opens only when the tab is opened, runs a command and shows its output", async () => {
    const page = await world.signedIn('alice', '/w/dev');
    // Nothing connects before the tab is opened: the page loaded again, its scripts run, no WebSocket made.
    const sockets: string[] = [];
    const assets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    page.on('request', (request) => assets.push(new URL(request.url()).pathname));
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector('#tab-terminal');
    expect(sockets).to.deep.equal([]);
    expect(shells().length).to.equal(0);
    expect(assets.filter((a) => a.startsWith('/assets/terminal.')), "xterm.js and its styles are not fetched with the page").to.deep.equal([]);
    await openTerminalTab(page);
    expect(assets.filter((a) => a.startsWith('/assets/terminal.')).map((a) => a.replace(/\.[A-Z0-9]{8}\./, '.'))).to.have.members(['/assets/terminal.js', '/assets/terminal.css']);
    await until(async () => sockets.length === 1, 'the terminal WebSocket', 10_000);
    await until(async () => PROMPT.test(await screenText(page)), 'the prompt', 10_000);
    await page.keyboard.type('echo "answer=$((6*7))"\n');
    await until(async () => (await screenText(page)).includes('answer=42'), 'the command output in xterm', 10_000);
    expect(shells()).to.have.length(1);
    expect(shells()[0]).to.include({ namespace: 'svc-alice', pod: 'dev-0', tty: true });
    await page.close();
  });

  it('keeps Tab and Esc for the shell, and Shift+Esc leaves the terminal for the Full screen button', async () => {
    const page = await world.signedIn('alice', '/w/dev');
    await openTerminalTab(page);
    await until(async () => PROMPT.test(await screenText(page)), 'the prompt', 10_000);
    expect(await page.locator('#terminal-help').textContent()).to.contain('Shift+Esc leaves it');
    const focused = () => page.evaluate(() => (globalThis as any).document.activeElement?.closest('#terminal') ? 'terminal' : (globalThis as any).document.activeElement?.id);
    expect(await focused()).to.equal('terminal');
    // Tab (completion) and Esc (vi) are the program's: cat -vT shows them as it got them, and focus stays.
    await page.keyboard.type('cat -vT\n');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Escape');
    await page.keyboard.type('x\n');
    await until(async () => (await screenText(page)).includes('^I^[x'), 'Tab and Esc as cat got them', 10_000);
    expect(await focused()).to.equal('terminal');
    await page.keyboard.press('Shift+Escape');
    expect(await focused()).to.equal('terminal-fullscreen');
    // Back in with a click, the same program is there.
    await page.click('#terminal .xterm-screen');
    await page.keyboard.type('back\n');
    await until(async () => (await screenText(page)).includes('back\nback'), 'cat echoing after the return', 10_000);
    await page.keyboard.press('Control+D');
    await page.close();
  });

  it('goes full screen and back: the terminal fills the window, then Shift+Esc returns it to the page', async () => {
    const page = await world.signedIn('alice', '/w/dev');
    await page.setViewportSize({ width: 1280, height: 800 });
    await openTerminalTab(page);
    await until(async () => PROMPT.test(await screenText(page)), 'the prompt', 10_000);
    const box = async () => (await page.locator('#terminal').boundingBox())!;
    const inPage = await box();
    const button = page.getByRole('button', { name: 'Full screen' });
    expect(await button.getAttribute('aria-pressed')).to.equal('false');
    await button.click();
    const full = page.getByRole('button', { name: 'Exit full screen' });
    expect(await full.getAttribute('aria-pressed')).to.equal('true');
    const filled = await box();
    expect(filled.width).to.be.above(1200);
    expect(filled.height).to.be.above(700).and.above(inPage.height);
    const record = exec.execs.at(-1)!;
    await until(() => record.resizes.length > 1 && record.resizes.at(-1)!.Height > record.resizes[0]!.Height, 'the pty to grow with the terminal', 10_000);
    await page.click('#terminal .xterm-screen');
    await page.keyboard.press('Shift+Escape');
    expect(await page.getByRole('button', { name: 'Full screen' }).getAttribute('aria-pressed')).to.equal('false');
    expect((await box()).height).to.be.closeTo(inPage.height, 2);
    await page.close();
  });

  it('resizes the shell when the window changes size', async () => {
    const page = await world.signedIn('alice', '/w/dev');
    await page.setViewportSize({ width: 1200, height: 900 });
    await openTerminalTab(page);
    await until(async () => PROMPT.test(await screenText(page)), 'the prompt', 10_000);
    const record = shells().at(-1)!;
    const first = record.resizes[0]!;
    await page.setViewportSize({ width: 700, height: 700 });
    await until(() => record.resizes.length > 1 && record.resizes.at(-1)!.Width < first.Width && record.resizesApplied === record.resizes.length, 'a smaller size to reach the exec', 10_000);
    const last = record.resizes.at(-1)!;
    await page.keyboard.type('stty size\n');
    await until(async () => (await screenText(page)).includes(`${last.Height} ${last.Width}`), 'stty to report the new size', 10_000);
    await page.close();
  });

  it('says why when the workspace is not running, and offers to reconnect', async () => {
    const page = await world.signedIn('alice', '/w/asleep');
    await openTerminalTab(page);
    const overlay = page.locator('#terminal .terminal-overlay');
    await overlay.waitFor({ state: 'visible' });
    expect(await overlay.textContent()).to.contain('workspace asleep is Suspended; start it first');
    expect(await overlay.locator('button').textContent()).to.equal('Reconnect');
    await page.close();
  });

  it('shows the reconnect overlay when the connection drops, and reconnecting starts a new shell', async () => {
    const page = await world.signedIn('alice', '/w/dev');
    await openTerminalTab(page);
    await until(async () => PROMPT.test(await screenText(page)), 'the prompt', 10_000);
    const before = shells().length;
    await world.den.terminals.close();
    const overlay = page.locator('#terminal .terminal-overlay');
    await overlay.waitFor({ state: 'visible' });
    expect(await overlay.textContent()).to.contain('den server is restarting');
    await overlay.locator('button').click();
    await until(() => shells().length === before + 1, 'a new exec', 10_000);
    await until(async () => PROMPT.test(await screenText(page)), 'the new prompt', 10_000);
    await page.keyboard.type('echo again-$((1+1))\n');
    await until(async () => (await screenText(page)).includes('again-2'), 'output of the new shell', 10_000);
    await page.close();
  });

  it("refuses a websocket opened by another origin's page, even with the person's cookie and CSRF token", async () => {
    const page = await world.signedIn('alice', '/w/dev');
    const csrf = await page.$eval('#terminal', (el) => el.getAttribute('data-csrf') ?? '');
    const evil = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>evil</title>'));
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      // Same site (127.0.0.1), another port: the browser sends the SameSite=Lax cookie along.
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      const before = shells().length;
      const outcome = await page.evaluate(
        ({ url, csrf }) =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(url, ['den.terminal.v1', `csrf.${csrf}`]);
            ws.onopen = () => resolve('open');
            ws.onclose = (e) => resolve(`closed ${e.code}`);
          }),
        { url: `${world.den.url.replace('http:', 'ws:')}/w/dev/terminal/ws`, csrf },
      );
      expect(outcome).to.equal('closed 1006');
      expect(shells().length).to.equal(before);
    } finally {
      await new Promise<void>((resolve) => evil.close(() => resolve()));
      await page.close();
    }
  });
});
