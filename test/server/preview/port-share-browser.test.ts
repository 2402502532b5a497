// Sharing a port from the workspace page, in real Chromium at `*.localhost`: alice shares port
// 3000 with every signed-in person in the Apps and ports card, bob opens it at its own origin,
// a browser signed in to nothing is sent to sign in, and alice stops sharing it. Without
// host-based previews the card says that only the owner can open a port, and why.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';
import { APP_PORT, podWithApps, seedRunningWorkspace, type PodWithApps } from './world.js';

describe('sharing a port from the workspace page, in Chromium', function () {
  this.timeout(90_000);
  let world: BrowserDen;
  let pathOnly: BrowserDen;
  let pod: PodWithApps;
  let home: string;
  const appOrigin = () => `http://${APP_PORT}--dev--alice.localhost:${new URL(world.den.url).port}`;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'den-port-share-browser-'));
    world = await startBrowserDen(
      { alice: {}, bob: {} },
      async (api) => {
        pod = await podWithApps(api, home);
        seedRunningWorkspace(api, 'dev', 'svc-alice');
      },
      { appsDomain: 'localhost', previewLimits: { targetCacheMs: 0 } },
    );
    pathOnly = await startBrowserDen({ alice: {} }, (api) => seedRunningWorkspace(api, 'dev', 'svc-alice'));
  });
  after(async () => {
    await world.close();
    await pathOnly.close();
    await pod.close();
    await rm(home, { recursive: true, force: true });
  });

  it('shares a port with every signed-in person: bob opens it at its own origin, a stranger is sent to sign in, and stopping ends it', async () => {
    const page = await world.signedIn('alice', '/w/dev');
    expect(await page.textContent('#port-shares')).to.equal('No port is shared: only you can open them.');
    expect(await page.locator('#share-level option').allTextContents()).to.deep.equal(['only you', 'every signed-in person of this Den', 'the people named']);
    await page.fill('#share-port', String(APP_PORT));
    await page.selectOption('#share-level', 'authenticated');
    await Promise.all([page.waitForURL((u) => u.pathname === '/w/dev'), page.click('#port-share-form button[type="submit"]')]);
    expect(await page.textContent('.notice')).to.include(`Port ${APP_PORT} is shared with every signed-in person of this Den at ${appOrigin()}/.`);
    expect(await page.textContent(`[data-shared-port="${APP_PORT}"]`)).to.include(`Port ${APP_PORT}: every signed-in person of this Den`);
    expect(await page.getAttribute(`[data-shared-port="${APP_PORT}"] a`, 'href')).to.equal(`${appOrigin()}/`);

    const asBob = await world.signedIn('bob', '/');
    await asBob.goto(`${appOrigin()}/`);
    await asBob.locator('#greeting', { hasText: 'hello from the app' }).waitFor();
    expect(asBob.url()).to.equal(`${appOrigin()}/`);

    const stranger = await (await world.browser.newContext()).newPage();
    await stranger.goto(`${appOrigin()}/`);
    expect(new URL(stranger.url()).pathname).to.equal('/login');
    await stranger.context().close();

    await Promise.all([page.waitForURL((u) => u.pathname === '/w/dev'), page.click(`[data-shared-port="${APP_PORT}"] button`)]);
    expect(await page.textContent('.notice')).to.include(`Port ${APP_PORT} is no longer shared: only you can open it.`);
    await asBob.goto(`${appOrigin()}/`);
    expect(await asBob.textContent('body')).to.include('cannot get resource "workspaces"');
  });

  it('says why a public share is refused on an install that does not allow it, beside nothing shared', async () => {
    const page = await world.signedIn('alice', '/w/dev');
    // The form offers no public level here; a request made by hand is refused in words.
    const answer = await page.evaluate(async (csrf) => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = '/w/dev/shared-ports';
      for (const [name, value] of [['_csrf', csrf], ['port', '3000'], ['level', 'public']]) {
        const input = document.createElement('input');
        input.name = name!;
        input.value = value!;
        form.appendChild(input);
      }
      document.body.appendChild(form);
      form.submit();
      return 'submitted';
    }, await page.getAttribute('input[name="_csrf"]', 'value'));
    expect(answer).to.equal('submitted');
    await page.waitForURL((u) => u.pathname === '/w/dev');
    await page.locator('.notice').waitFor();
    expect(await page.textContent('.notice')).to.include('Port not shared: level: public ports are not allowed on this Den: an administrator must set server.apps.allowPublicPorts: true');
  });

  it('says, without host-based previews, that only the owner can open a port, and offers no sharing', async () => {
    const page = await pathOnly.signedIn('alice', '/w/dev');
    expect(await page.textContent('#port-sharing')).to.include('path-based previews run an app\'s pages on Den\'s own address, so they serve only the workspace\'s owner');
    expect(await page.locator('#port-share-form').count()).to.equal(0);
  });
});

declare const document: {
  createElement(tag: 'form'): { method: string; action: string; appendChild(child: unknown): void; submit(): void };
  createElement(tag: 'input'): { name: string; value: string };
  body: { appendChild(child: unknown): void };
};
