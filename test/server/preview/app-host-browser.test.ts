// Host-based previews in real Chromium, which resolves `*.localhost` to this machine: an app at
// `<port>--dev--alice.localhost:<port of Den>` loads with its assets after one hop through Den,
// a websocket app answers at its own host, Den's session cookie never reaches the app, the
// app's cookies stay on its host, another person reads the cluster's refusal, and the
// workspace page's buttons and port links open apps at their own origins.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';
import { APP_PORT, podWithApps, seedRunningWorkspace, WS_PORT, type PodWithApps } from './world.js';

declare const location: { host: string };
declare function getComputedStyle(el: unknown): { color: string };
declare class WebSocket {
  constructor(url: string);
  onmessage: (e: { data: unknown }) => void;
  onerror: () => void;
  send(data: string): void;
  close(): void;
}

describe('host-based port preview in Chromium', function () {
  this.timeout(60_000);
  let world: BrowserDen;
  let pod: PodWithApps;
  let home: string;
  const appOrigin = (port: number) => `http://${port}--dev--alice.localhost:${new URL(world.den.url).port}`;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'den-app-host-browser-'));
    world = await startBrowserDen(
      { alice: {}, bob: {} },
      async (api) => {
        pod = await podWithApps(api, home);
        seedRunningWorkspace(api, 'dev', 'svc-alice', { apps: [{ name: 'Web app', port: pod.apps.httpPort }] });
      },
      { appsDomain: 'localhost' },
    );
  });
  after(async () => {
    await world.close();
    await pod.close();
    await rm(home, { recursive: true, force: true });
  });

  it("loads the app's page with its script and stylesheet at its own origin, after one hop through Den, and the app never sees Den's session cookie", async () => {
    const page = await world.signedIn('alice', '/');
    const hops: string[] = [];
    page.on('request', (r) => r.isNavigationRequest() && hops.push(new URL(r.url()).pathname));
    await page.goto(`${appOrigin(APP_PORT)}/`);
    expect(page.url()).to.equal(`${appOrigin(APP_PORT)}/`);
    expect(hops).to.deep.equal(['/', '/apps/open', '/__den/auth', '/']);
    await page.locator('#cookies', { hasText: 'app saw cookie' }).waitFor();
    expect(await page.textContent('#greeting')).to.equal('hello from the app');
    expect(await page.$eval('#greeting', (el) => getComputedStyle(el).color)).to.equal('rgb(1, 2, 3)');
    expect(await page.textContent('#cookies')).to.equal('app saw cookie: none');
    const jar = await page.context().cookies();
    const session = jar.find((c) => c.name === 'svc_session')!;
    const appCookie = jar.find((c) => c.name === 'svc_app')!;
    expect(appCookie).to.deep.include({ domain: `${APP_PORT}--dev--alice.localhost`, path: '/', httpOnly: true, sameSite: 'Lax' });
    expect(JSON.stringify(pod.apps.seen)).not.to.include(session.value);
    expect(JSON.stringify(pod.apps.seen)).not.to.include(appCookie.value);
  });

  it('relays a websocket app opened by a page of its own host', async () => {
    const page = await world.signedIn('alice', '/');
    await page.goto(`${appOrigin(WS_PORT)}/`);
    expect(await page.textContent('body')).to.equal('websockets only');
    const said = await page.evaluate(async () => {
      const ws = new WebSocket(`ws://${location.host}/chat`);
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
    });
    expect(JSON.parse(said[0]!)).to.deep.equal({ path: '/chat', cookie: null, origin: appOrigin(WS_PORT), prefix: null });
    expect(said[1]).to.equal('echo: hello');
  });

  it("keeps a cookie the app sets on the app's host: Den's origin never gets it and Den's session is untouched", async () => {
    const page = await world.signedIn('alice', '/');
    const before = (await page.context().cookies(world.den.url)).map((c) => `${c.name}=${c.value}`);
    await page.goto(`${appOrigin(APP_PORT)}/set-cookies`);
    expect(await page.textContent('body')).to.equal('cookies set');
    const atApp = await page.context().cookies(`${appOrigin(APP_PORT)}/settings/x`);
    // Chromium counts http://*.localhost as secure, so the app's __Host- cookie is kept too.
    expect(atApp.map((c) => c.name).sort()).to.deep.equal(['__Host-root', 'app_choice', 'svc_app', 'wide']);
    expect(atApp.every((c) => c.domain === `${APP_PORT}--dev--alice.localhost`)).to.equal(true);
    expect((await page.context().cookies(world.den.url)).map((c) => `${c.name}=${c.value}`)).to.deep.equal(before);
    expect(await page.context().cookies(`${appOrigin(WS_PORT)}/`)).to.deep.equal([]);
    await page.goto(`${world.den.url}/`);
    expect(new URL(page.url()).pathname).to.equal('/');
  });

  it("shows another person the cluster's refusal in words at the app's address, and the app sees nothing", async () => {
    const seen = pod.apps.seen.length;
    const page = await world.signedIn('bob', '/');
    await page.goto(`${appOrigin(APP_PORT)}/`);
    expect(await page.textContent('h1')).to.equal('Not allowed');
    const said = await page.textContent('[role="alert"]');
    expect(said).to.include('User "system:serviceaccount:svc-bob:session" cannot get resource "workspaces"');
    expect(said).to.include('"svc-alice"');
    expect(await page.getAttribute('a', 'href')).to.equal(`${world.den.url}/`);
    expect(pod.apps.seen.length).to.equal(seen);
  });

  it("points the workspace page's app buttons and port links at the apps' own origins, and a button opens its app", async () => {
    const page = await world.signedIn('alice', '/w/dev');
    const web = page.locator(`a.app[data-app-port="${pod.apps.httpPort}"]`);
    expect(await web.getAttribute('href')).to.equal(`${appOrigin(pod.apps.httpPort)}/`);
    const link = page.locator(`#ports a[data-port="${pod.apps.httpPort}"]`);
    await link.waitFor();
    expect(await link.getAttribute('href')).to.equal(`${appOrigin(pod.apps.httpPort)}/`);
    const [opened] = await Promise.all([page.context().waitForEvent('page'), web.click()]);
    await opened.locator('#greeting', { hasText: 'hello from the app' }).waitFor();
    expect(opened.url()).to.equal(`${appOrigin(pod.apps.httpPort)}/`);
    await opened.close();
  });
});
