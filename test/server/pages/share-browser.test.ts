// Sharing a workspace from its page in Chromium (docs/sharing.md): alice shares dev with bob on
// the workspace page, bob's dashboard shows it under "Shared with you" with his ssh command
// (dev.alice), a refused share says why and changes nothing, and Remove takes it away again.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { shareObjectName } from '../../../contract/share.js';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';
import { untilSharesCached } from '../core/cluster.js';

describe('sharing a workspace from its page, in Chromium', function () {
  this.timeout(60_000);
  let world: BrowserDen;
  let alice: Page;
  let bob: Page;
  const logs: { msg: string; fields?: Record<string, unknown> }[] = [];
  const audits = (act: string) => logs.filter((l) => l.msg === 'audit' && l.fields?.audit === act).map((l) => l.fields!);

  before(async () => {
    world = await startBrowserDen({ alice: {}, bob: {} }, (api) => {
      api.seed(
        { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'python' }, spec: { displayName: 'Python', image: 'python:3.12' } } as KubeObject,
        { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev', namespace: 'svc-alice' }, spec: { imageRef: { name: 'python' }, storage: '1Gi', sshAuthorizedKeys: [], running: true }, status: { phase: 'Running', endpoint: 'dev@ssh.example.com' } } as KubeObject,
      );
    }, { log: (msg, fields) => logs.push({ msg, fields }) });
    [alice, bob] = await Promise.all([world.signedIn('alice', '/w/dev'), world.signedIn('bob', '/')]);
  });
  after(() => world?.close());

  const binding = () => world.api.object(RESOURCES.roleBinding, shareObjectName('dev', 'bob'), 'svc-alice');

  it("shows alice's workspace page a Sharing card, not shared with anyone yet, saying how a guest connects", async () => {
    expect(await alice.locator('#shares-none').textContent()).to.equal('Not shared with anyone.');
    expect(await alice.locator('#sharing').textContent()).to.contain('as dev.alice (den ssh dev.alice)');
    expect(await bob.locator('#shared-with-you').count()).to.equal(0);
  });

  it('refuses a share with nobody beside nothing changed, in the notice', async () => {
    await alice.getByLabel('Share with').fill('carol');
    await alice.click('#sharing button:has-text("Share")');
    expect(await alice.locator('#notice').textContent()).to.equal('Nothing was changed: there is no person "carol" in this Den: use their Den user name.');
    expect(await alice.locator('#shares-none').count()).to.equal(1);
  });

  it('shares dev with bob: the notice says how he connects, the card lists him, and the RoleBinding names his session identity', async () => {
    await alice.getByLabel('Share with').fill('bob');
    await alice.click('#sharing button:has-text("Share")');
    expect(await alice.locator('#notice').textContent()).to.equal('Shared with bob: they connect with their own key as dev.alice (den ssh dev.alice).');
    expect(await alice.locator('#shares li[data-guest="bob"] strong').textContent()).to.equal('bob');
    expect(binding()).to.not.equal(undefined);
    expect(audits('share-granted').map((a) => [a.guest, a.via])).to.deep.equal([['bob', 'web']]);
  });

  it("shows bob's dashboard the workspace under Shared with you, with the ssh command as dev.alice and no Start button", async () => {
    await untilSharesCached(world.den, 'bob', 1);
    await bob.reload();
    const card = bob.locator('#shared-with-you article[data-shared="dev.alice"]');
    expect(await card.locator('h3').textContent()).to.equal('dev of alice');
    expect(await card.locator('code').first().textContent()).to.equal('ssh dev.alice@ssh.example.com');
    expect(await card.locator('button:has-text("Start")').count()).to.equal(0);
    expect(await bob.locator('#empty-state').count(), 'his own empty state stays').to.equal(1);
  });

  it('removes the share with its Remove button: the card says not shared, the objects are gone, and bob no longer sees it', async () => {
    await alice.click('#shares li[data-guest="bob"] button:has-text("Remove")');
    expect(await alice.locator('#notice').textContent()).to.equal('dev is no longer shared with bob; their open sessions end within seconds.');
    expect(await alice.locator('#shares-none').textContent()).to.equal('Not shared with anyone.');
    expect(binding()).to.equal(undefined);
    expect(audits('share-removed').map((a) => [a.guest, a.via])).to.deep.equal([['bob', 'web']]);
    await untilSharesCached(world.den, 'bob', 0);
    await bob.reload();
    expect(await bob.locator('#shared-with-you').count()).to.equal(0);
  });
});
