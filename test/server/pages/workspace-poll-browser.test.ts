// What the workspace page's one 3 s poll reads and shows, in real Chromium against one den server
// and the fake API server: a stopped workspace's poll reads no catalog entry, yet the Image fact
// follows a change of image made elsewhere; the Apps and ports card asks nothing of its own.
import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';

const ENTRY_READS = /^\/apis\/den\.dev\/v1alpha1\/workspaceimages(\/|$)/;

function entry(name: string, displayName: string): KubeObject {
  return { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name }, spec: { image: `${name}:1`, displayName, apps: [{ name: 'Notebook', port: 8888 }] } } as KubeObject;
}

describe('the workspace page poll in Chromium', function () {
  this.timeout(60_000);
  let world: BrowserDen;

  before(async () => {
    world = await startBrowserDen({ alice: {} }, (api) => {
      api.seed(entry('ubuntu', 'Ubuntu 24.04'), entry('python', 'Python 3.12'), {
        apiVersion: 'den.dev/v1alpha1',
        kind: 'Workspace',
        metadata: { name: 'dev', namespace: 'svc-alice', creationTimestamp: new Date().toISOString() },
        spec: { imageRef: { name: 'ubuntu' }, running: false, storage: '1Gi' },
        status: { phase: 'Suspended' },
      } as KubeObject);
    });
  });
  after(() => world.close());

  it("reads no catalog entry for a stopped workspace, and still names a new image set elsewhere by its title, without a reload", async () => {
    const page = await world.signedIn('alice', '/w/dev');
    const asked: string[] = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    expect(await page.locator('#facts').innerText()).to.contain('Ubuntu 24.04 (ubuntu)');
    expect(await page.textContent('#ports-state')).to.equal('The ports listening in the workspace are shown while it is Running.');
    expect(await page.textContent('[data-app-state="8888"]')).to.equal('unknown');

    const from = world.api.requests.length;
    await page.waitForResponse((r) => r.url().includes('/w/dev/status'));
    await page.waitForResponse((r) => r.url().includes('/w/dev/status'));
    const mine = () => world.api.requests.slice(from).filter((r) => r.user === 'system:serviceaccount:svc-alice:session');
    expect(mine().filter((r) => ENTRY_READS.test(r.path)), 'two polls, no entry read').to.deep.equal([]);
    expect(mine().length, 'the Workspace and its Events, per poll').to.equal(4);
    expect(await page.locator('#facts').innerText(), 'the Image fact kept').to.contain('Ubuntu 24.04 (ubuntu)');

    await world.api.client().patch(RESOURCES.workspace, 'dev', { spec: { imageRef: { name: 'python' } } }, { namespace: 'svc-alice' });
    await page.locator('#facts', { hasText: 'Python 3.12 (python)' }).waitFor({ timeout: 8_000 });
    // Chromium fetches the favicon on its own.
    expect([...new Set(asked.filter((p) => !p.startsWith('/assets/')))], 'one request per poll, nothing else').to.deep.equal(['/w/dev/status']);
  });
});
