// Port preview in real Chromium: a page of an app in the workspace loads with its script and
// stylesheet through Den, a websocket app answers, Den's cookie never reaches the app, the
// app's cookies stay inside the preview's path, and another person reaches nothing.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net, { type AddressInfo } from 'node:net';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';
import { APP_PORT, CLOSED_PORT, podWithApps, seedRunningWorkspace, WS_PORT, type PodWithApps } from './world.js';

const PREVIEW = `/w/dev/ports/${APP_PORT}`;

// What the functions given to page.evaluate use of the page (they run in Chromium; the tests' own types have no DOM).
declare const location: { host: string };
declare const document: { querySelector(selector: string): { textContent: string | null } | null; activeElement: { getAttribute(name: string): string | null } | null };
declare const window: { denSaid?: string[] };
declare const MutationObserver: new (callback: () => void) => { observe(target: unknown, options: { childList?: boolean; characterData?: boolean; subtree?: boolean }): void };
declare function getComputedStyle(el: unknown): { color: string };
declare class WebSocket {
  constructor(url: string);
  onmessage: (e: { data: unknown }) => void;
  onerror: () => void;
  send(data: string): void;
  close(): void;
}

describe('port preview in Chromium', function () {
  this.timeout(60_000);
  let world: BrowserDen;
  let pod: PodWithApps;
  let home: string;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'den-preview-browser-'));
    world = await startBrowserDen({ alice: {}, bob: {} }, async (api) => {
      pod = await podWithApps(api, home);
      seedRunningWorkspace(api, 'dev', 'svc-alice', { apps: [{ name: 'Web app', port: pod.apps.httpPort }, { name: 'Notebook', port: CLOSED_PORT, path: '/lab' }] });
    });
  });
  after(async () => {
    await world.close();
    await pod.close();
    await rm(home, { recursive: true, force: true });
  });

  it("loads the app's page with its script and stylesheet, and the app never sees Den's session cookie", async () => {
    const page = await world.signedIn('alice', `${PREVIEW}/`);
    expect(new URL(page.url()).pathname).to.equal(`${PREVIEW}/`);
    await page.locator('#cookies', { hasText: 'app saw cookie' }).waitFor();
    expect(await page.textContent('#greeting')).to.equal('hello from the app');
    expect(await page.$eval('#greeting', (el) => getComputedStyle(el).color)).to.equal('rgb(1, 2, 3)');
    expect(await page.textContent('#cookies')).to.equal('app saw cookie: none');
    const session = (await page.context().cookies()).find((c) => c.name === 'svc_session');
    expect(session?.value).to.have.length(43);
    const fetched = pod.apps.seen.filter((s) => ['/', '/app.js', '/style.css', '/echo'].includes(s.url)).map((s) => s.url);
    expect(fetched).to.include.members(['/', '/app.js', '/style.css', '/echo']);
    expect(JSON.stringify(pod.apps.seen)).not.to.include(session!.value);
  });

  it('relays a websocket app opened by a page of the preview', async () => {
    const page = await world.signedIn('alice', `${PREVIEW}/`);
    const said = await page.evaluate(async (port) => {
      const ws = new WebSocket(`ws://${location.host}/w/dev/ports/${port}/chat`);
      const messages: string[] = [];
      await new Promise<void>((resolve, reject) => {
        ws.onmessage = (e) => {
          messages.push(String(e.data));
          if (messages.length === 1) ws.send('hello');
          if (messages.length === 2) resolve();
        };
        ws.onerror = () => reject(new Error('websocket failed'));
      });
      ws.close();
      return messages;
    }, WS_PORT);
    const hello = JSON.parse(said[0]!);
    expect(hello).to.include({ path: '/chat', cookie: null, prefix: `/w/dev/ports/${WS_PORT}` });
    expect(hello.origin).to.equal(world.den.url);
    expect(said[1]).to.equal('echo: hello');
  });

  it("keeps a cookie the app sets inside the preview's path: Den's own pages never get it, and Den's session is untouched", async () => {
    const page = await world.signedIn('alice', '/');
    const before = (await page.context().cookies()).find((c) => c.name === 'svc_session')!.value;
    await page.goto(`${world.den.url}${PREVIEW}/set-cookies`);
    expect(await page.textContent('body')).to.equal('cookies set');
    const jar = await page.context().cookies();
    expect(jar.filter((c) => c.name === 'app_choice').map((c) => c.path)).to.deep.equal([`${PREVIEW}/`]);
    expect(jar.filter((c) => c.name === 'svc_session').map((c) => c.value)).to.deep.equal([before]);
    expect(jar.map((c) => c.name)).not.to.include('__Host-root');
    const atDen = await page.context().cookies(`${world.den.url}/`);
    expect(atDen.map((c) => c.name)).to.deep.equal(['svc_session']);
    const atApi = await page.context().cookies(`${world.den.url}/api/v1/session`);
    expect(atApi.map((c) => c.name)).to.deep.equal(['svc_session']);
    await page.goto(`${world.den.url}/`);
    expect(await page.textContent('h1')).not.to.equal('Not allowed');
    expect(new URL(page.url()).pathname).to.equal('/');
  });

  it("lists the ports listening in the workspace on its page through the status poll alone, each linked to its preview, and notices a new one while the page is open, keeping focus and reading nothing out", async () => {
    const page = await world.signedIn('alice', '/w/dev');
    const asked: string[] = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await page.evaluate(() => {
      const announcer = document.querySelector('#live-announcer')!;
      window.denSaid = [];
      new MutationObserver(() => window.denSaid!.push(announcer.textContent ?? '')).observe(announcer, { childList: true, characterData: true, subtree: true });
    });
    const link = page.locator(`#ports a[data-port="${pod.apps.httpPort}"]`);
    await link.waitFor();
    expect(await link.getAttribute('href')).to.equal(`/w/dev/ports/${pod.apps.httpPort}/`);
    expect(await page.textContent('#ports-state')).to.match(/ports? listens? in the workspace:$/);
    await link.focus();
    const late = net.createServer();
    await new Promise<void>((resolve) => late.listen(0, '127.0.0.1', resolve));
    const port = (late.address() as AddressInfo).port;
    try {
      // Two status polls make a round of the ports: it shows within 6 s and a poll's time (a
      // poll answered slowly on a loaded machine skips a round; the margin allows for two).
      await page.locator(`#ports a[data-port="${port}"]`).waitFor({ timeout: 20_000 });
    } finally {
      await new Promise((resolve) => late.close(resolve));
    }
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-port')), 'the focused port link keeps focus across the swap').to.equal(String(pod.apps.httpPort));
    expect(await page.evaluate(() => window.denSaid), 'nothing is read out').to.deep.equal([]);
    // The Logs tab, open by default, polls its log; the card asks nothing of its own.
    // Chromium fetches the favicon when it likes; assets aside, only the two polls ask anything.
    expect(asked.filter((p) => !p.startsWith('/assets/') && !['/w/dev/status', '/w/dev/logs'].includes(p)), 'the card rides the status poll').to.deep.equal([]);
  });

  it("shows the catalog entry's apps as buttons with their state, and a button opens its app through the preview", async () => {
    const page = await world.signedIn('alice', '/w/dev');
    const web = page.locator(`a.app[data-app-port="${pod.apps.httpPort}"]`);
    expect(await web.textContent()).to.equal(' Open Web app');
    expect(await web.getAttribute('href')).to.equal(`/w/dev/ports/${pod.apps.httpPort}/`);
    expect(await page.locator(`a.app[data-app-port="${CLOSED_PORT}"]`).getAttribute('href')).to.equal(`/w/dev/ports/${CLOSED_PORT}/lab`);
    // The fake pod is this machine: the test app listens on its port here, nothing on CLOSED_PORT.
    await page.locator(`[data-app-state="${pod.apps.httpPort}"]`, { hasText: /^listening$/ }).waitFor();
    await page.locator(`[data-app-state="${CLOSED_PORT}"]`, { hasText: 'not listening' }).waitFor();
    const [opened] = await Promise.all([page.context().waitForEvent('page'), web.click()]);
    await opened.locator('#greeting', { hasText: 'hello from the app' }).waitFor();
    expect(new URL(opened.url()).pathname).to.equal(`/w/dev/ports/${pod.apps.httpPort}/`);
    await opened.close();
  });

  it("refuses another person: bob's browser at alice's preview address gets a page in words, and the app sees nothing", async () => {
    const seen = pod.apps.seen.length;
    const page = await world.signedIn('bob', `${PREVIEW}/`);
    expect(await page.textContent('h1')).to.equal('Not found');
    expect(await page.textContent('[role="alert"]')).to.include('you have no workspace named dev');
    expect(pod.apps.seen.length).to.equal(seen);
  });
});
