// The activity pages in Chromium: an administrator's /admin/activity lists what people did in
// every namespace, newest first, filters it (a GET form: the filter is the page's address) and
// shows new acts while it stays open (its live part); a
// person gets the cluster's refusal in words; the workspace page's Activity tab shows what
// happened to that workspace, live as well. Acts are made through the pages' own forms.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { KubeObject } from '../../../kube/client.js';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';

function workspace(name: string, namespace: string): KubeObject {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'Workspace',
    metadata: { name, namespace },
    spec: { imageRef: { name: 'ubuntu' }, storage: '1Gi', running: true },
    status: { phase: 'Running' },
  };
}

/** The rows of an activity list, each as `namespace/workspace reason person kind`. */
async function rows(page: Page): Promise<string[]> {
  return page.locator('tr[data-activity]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-activity') ?? ''));
}

async function eventually<T>(probe: () => Promise<T>, ok: (value: T) => boolean, what: string, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(value)} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the activity pages in Chromium', function () {
  this.timeout(90_000);
  let world: BrowserDen;
  let root: Page;
  let alice: Page;

  before(async () => {
    world = await startBrowserDen({ root: { admin: true }, alice: {}, bob: {} }, (api) => {
      api.seed(workspace('dev', 'svc-alice'), workspace('web', 'svc-bob'), { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'ubuntu' }, spec: { image: 'ubuntu:24.04' } });
    });
    alice = await world.signedIn('alice', '/w/dev');
    await alice.click('form[action="/w/dev/stop"] button');
    await alice.waitForURL((u) => u.pathname === '/w/dev');
    root = await world.signedIn('root', '/admin/activity');
  });
  after(() => world?.close());

  it('lists what people did for an administrator, with who and how, and keeps the list live while open', async () => {
    expect(await root.locator('nav.subnav a[aria-current="page"]').textContent()).to.equal('Activity');
    expect(await rows(root)).to.deep.equal(['svc-alice/dev Stopped alice lifecycle']);
    expect(await root.locator('tr[data-activity] td').nth(5).innerText()).to.equal('Stopped by alice; the home volume is kept.\nfrom 127.0.0.1');

    const bob = await world.signedIn('bob', '/w/web');
    await bob.click('form[action="/w/web/stop"] button');
    await bob.waitForURL((u) => u.pathname === '/w/web');
    const live = await eventually(() => rows(root), (r) => r.length === 2, 'bob\'s stop on the open page');
    expect(live).to.deep.equal(['svc-bob/web Stopped bob lifecycle', 'svc-alice/dev Stopped alice lifecycle']);
    expect(await root.locator('tr[data-activity] td').nth(1).innerText()).to.equal('web\nsvc-bob');
    expect(await root.locator('tr[data-activity] td').nth(2).textContent()).to.equal('bob');
  });

  it('filters by person, workspace and kind, the filter being the page\'s address', async () => {
    await root.goto(`${world.den.url}/admin/activity`);
    await root.fill('#activity-person', 'bob');
    await Promise.all([root.waitForURL((u) => u.searchParams.get('person') === 'bob'), root.click('#activity-filter button')]);
    expect(await rows(root)).to.deep.equal(['svc-bob/web Stopped bob lifecycle']);
    expect(await root.inputValue('#activity-person')).to.equal('bob');

    await root.fill('#activity-person', '');
    await root.selectOption('#activity-kind', 'terminal');
    await Promise.all([root.waitForURL((u) => u.searchParams.get('kind') === 'terminal'), root.click('#activity-filter button')]);
    expect(await root.locator('#live [data-activity-empty]').count()).to.equal(1);

    await root.goto(`${world.den.url}/admin/activity?workspace=dev&kind=lifecycle`);
    expect(await rows(root)).to.deep.equal(['svc-alice/dev Stopped alice lifecycle']);
    expect(await root.inputValue('#activity-workspace')).to.equal('dev');
    expect(await root.inputValue('#activity-kind')).to.equal('lifecycle');
  });

  it('refuses a bad filter with a page naming the parameter', async () => {
    const answer = await root.goto(`${world.den.url}/admin/activity?kind=keystroke`);
    expect(answer?.status()).to.equal(400);
    expect(await root.locator('[role="alert"]').textContent()).to.contain('kind must be one of shell, exec, sftp, forward, terminal, lifecycle, share');
  });

  it("refuses a person who may not read everyone's Events, in the cluster's words", async () => {
    const answer = await alice.goto(`${world.den.url}/admin/activity`);
    expect(answer?.status()).to.equal(403);
    expect(await alice.locator('[role="alert"]').textContent()).to.contain('events is forbidden: User "system:serviceaccount:svc-alice:session" cannot list resource "events" in API group "" at the cluster scope');
    expect(await alice.content()).to.not.match(/at \S+\.ts:\d+/);
  });

  it("shows a workspace's own activity on its page's Activity tab, live, filtered by kind", async () => {
    await alice.goto(`${world.den.url}/w/dev`);
    await alice.click('#tab-activity');
    expect(await rows(alice)).to.deep.equal(['svc-alice/dev Stopped alice lifecycle']);
    await alice.click('form[action="/w/dev/start"] button');
    await alice.waitForURL((u) => u.pathname === '/w/dev');
    await alice.click('#tab-activity');
    expect(await rows(alice)).to.deep.equal(['svc-alice/dev Started alice lifecycle', 'svc-alice/dev Stopped alice lifecycle']);

    // Someone else's act on the same workspace reaches the open tab without a reload.
    const admin = await world.signedIn('root', '/');
    const csrf = await admin.locator('form[action="/logout"] input[name="_csrf"]').inputValue();
    const stop = await admin.request.post(`${world.den.url}/api/v1/workspaces/dev/stop?namespace=svc-alice`, { headers: { 'X-CSRF-Token': csrf } });
    expect(stop.status()).to.equal(200);
    await eventually(() => rows(alice), (r) => r.length === 3, 'the administrator\'s stop on the open tab');
    expect(await alice.locator('tr[data-activity] td').nth(4).innerText()).to.equal('Stopped by root (administrator); the home volume is kept.\nfrom 127.0.0.1');

    await alice.selectOption('#activity-kind', 'terminal');
    await alice.click('#activity-filter button');
    await eventually(() => alice.locator('#activity [data-activity-empty]').count(), (n) => n === 1, 'nothing of kind terminal');
    expect(new URL(alice.url()).pathname).to.equal('/w/dev');
  });
});
