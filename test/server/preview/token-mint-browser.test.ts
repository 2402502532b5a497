// An app's script on a path-based preview runs on Den's own origin: in real Chromium it reads the
// session's CSRF token as any same-origin script can, then tries to mint an API token as the
// viewer (REST, and the profile page's form route by fetch) and to read a Den page it opens. Den
// refuses both mints (fetch metadata: a browser's cookie mints only by a top-level form
// navigation), and its pages' Cross-Origin-Opener-Policy, which the preview never lets an app
// answer with, keeps the opened page out of the app's reach.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';
import { call } from '../core/cluster.js';
import { APP_PORT, podWithApps, seedRunningWorkspace, type PodWithApps } from './world.js';

describe("an app's script on a path-based preview, in Chromium", function () {
  this.timeout(60_000);
  let world: BrowserDen;
  let pod: PodWithApps;
  let home: string;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'den-preview-mint-'));
    world = await startBrowserDen({ alice: {} }, async (api) => {
      pod = await podWithApps(api, home);
      seedRunningWorkspace(api, 'dev', 'svc-alice');
    });
  });
  after(async () => {
    await world.close();
    await pod.close();
    await rm(home, { recursive: true, force: true });
  });

  for (const [variant, query] of [['with no opener policy of its own', ''], ["with the opener policy of Den's pages", '?coop=1']] as const) {
    it(`cannot mint an API token as the viewer, by REST or by the profile form, nor read a Den page it opens (${variant})`, async () => {
      const page = await world.signedIn('alice', `/w/dev/ports/${APP_PORT}/mint${query}`);
      await page.locator('#opened', { hasText: 'opened' }).waitFor({ timeout: 20_000 });
      const rest = await page.textContent('#rest');
      expect(rest).to.match(/^rest 403 /);
      expect(rest).to.include("a page's script cannot mint an API token with the browser's session");
      expect(await page.textContent('#form')).to.equal('form 403 no token');
      expect(await page.textContent('#opened')).to.match(/^opened could not read/);
      // Nothing was minted: alice's tokens are none of the script's.
      const cookie = (await page.context().cookies()).filter((c) => c.name === 'svc_session').map((c) => `${c.name}=${c.value}`).join('; ');
      const listed = await call(world.den, 'GET', '/tokens', { headers: { Cookie: cookie } });
      expect(listed.status).to.equal(200);
      expect(listed.body.items.map((t: { name: string }) => t.name)).not.to.include.members(['stolen-rest', 'stolen-form']);
      expect(listed.body.items.map((t: { name: string }) => t.name).filter((n: string) => n.startsWith('stolen'))).to.deep.equal([]);
    });
  }

  it("still mints a token from the profile page's own form, submitted by the person", async () => {
    const page = await world.signedIn('alice', '/profile');
    await page.fill('#token-name', 'laptop');
    await Promise.all([page.waitForLoadState('load'), page.click('form[action="/profile/tokens"] button[type="submit"]')]);
    expect(await page.textContent('body')).to.match(/svc_[A-Za-z0-9_-]{20,}/);
  });
});
