// The administration pages in Chromium, as an administrator (everything written with their
// minted token reaches the cluster) and as a person without the rights (the page names the
// missing right in the cluster's words). The admin workspace list's filter and sort are also
// checked as a pure function.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { workspaceLines } from '../../../server/pages/admin-workspaces.js';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';
import { login } from '../core/cluster.js';

function workspace(name: string, namespace: string, phase: string, minutesAgo: number): KubeObject {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'Workspace',
    metadata: { name, namespace, creationTimestamp: new Date(Date.now() - minutesAgo * 60_000).toISOString() },
    spec: { imageRef: { name: 'ubuntu' }, storage: '1Gi', running: phase !== 'Suspended' },
    status: { phase },
  };
}

function homeVolume(workspaceName: string, namespace: string): KubeObject {
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: `home-${workspaceName}-0`, namespace }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
}

describe('the administration pages in Chromium', function () {
  this.timeout(90_000);
  let world: BrowserDen;
  let root: Page;

  before(async () => {
    world = await startBrowserDen({ root: { admin: true }, alice: {}, bob: {} }, (api) => {
      api.seed(
        workspace('web', 'svc-alice', 'Running', 30),
        workspace('batch', 'svc-bob', 'Suspended', 10),
        workspace('api', 'svc-bob', 'Running', 60),
        homeVolume('batch', 'svc-bob'),
        workspace('scratch', 'svc-bob', 'Suspended', 5),
        homeVolume('scratch', 'svc-bob'),
        { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'ubuntu' }, spec: { displayName: 'Ubuntu', image: 'ubuntu:24.04' } },
      );
    });
    root = await world.signedIn('root', '/admin/overview');
  });
  after(() => world?.close());

  it('shows the overview to an administrator', async () => {
    expect(await root.locator('[data-count="people"]').textContent()).to.equal('3');
    expect(await root.locator('[data-count="workspaces"]').textContent()).to.equal('4');
    expect(await root.locator('#overview').textContent()).to.contain('2 Running, 2 Suspended');
  });

  it('creates a person, changes their role and disables them, and creates a local user who can sign in', async () => {
    await root.goto(`${world.den.url}/admin/users`);
    await root.fill('#person-name', 'carol');
    await root.fill('#person-owner', 'carol@example.com');
    await root.selectOption('#person-role', 'admin');
    await root.click('form[action="/admin/users"] button[type="submit"]');
    expect(await root.locator('#done').textContent()).to.equal('The person was created.');
    const carol = world.api.object(RESOURCES.userSpace, 'carol')!;
    expect(carol.spec).to.deep.include({ owner: 'carol@example.com' });
    expect(carol.metadata?.labels?.['den.dev/role']).to.equal('admin');
    const create = world.api.requests.find((r) => r.method === 'POST' && r.path.endsWith('/userspaces'));
    expect(create?.user).to.equal('system:serviceaccount:svc-root:session');

    const row = root.locator('tr[data-person="carol"]');
    await row.locator('select').selectOption('user');
    await row.locator('input[type="checkbox"]').check();
    await row.locator('button').click();
    expect(await root.locator('#done').textContent()).to.equal('The membership was saved.');
    expect(world.api.object(RESOURCES.userSpace, 'carol')?.metadata?.labels).to.include({ 'den.dev/role': 'user', 'den.dev/disabled': 'true' });

    await root.fill('#local-username', 'alice2');
    await root.fill('#local-password', 'alice2-password');
    await root.fill('#local-owner', 'alice@example.com');
    await root.click('form[action="/admin/users/local"] button[type="submit"]');
    expect(await root.locator('#done').textContent()).to.equal('The local user was created.');
    expect(await root.locator('tr[data-local-user="alice2"]').count()).to.equal(1);
    await login(world.den, 'alice2', 'alice2-password');
  });

  it('refuses a bad person beside the form with what was typed, creating nothing', async () => {
    await root.goto(`${world.den.url}/admin/users`);
    await root.fill('#person-name', 'Not_A_Name');
    await root.fill('#person-owner', 'x@example.com');
    await root.click('form[action="/admin/users"] button[type="submit"]');
    expect(await root.locator('#error-person').textContent()).to.match(/^name /);
    expect(await root.inputValue('#person-name')).to.equal('Not_A_Name');
    expect(world.api.objects(RESOURCES.userSpace).map((u) => u.metadata?.name)).to.not.include('Not_A_Name');
  });

  it('refuses a local user with a too short password, keeping the other fields but never writing the password back into the page', async () => {
    await root.goto(`${world.den.url}/admin/users`);
    await root.fill('#local-username', 'dave');
    await root.fill('#local-password', 'short!');
    await root.fill('#local-owner', 'alice@example.com');
    const [answer] = await Promise.all([root.waitForResponse((r) => r.url().endsWith('/admin/users/local')), root.click('form[action="/admin/users/local"] button[type="submit"]')]);
    expect(await root.locator('#error-local').textContent()).to.contain('password');
    expect(await root.inputValue('#local-username')).to.equal('dave');
    expect(await root.inputValue('#local-owner')).to.equal('alice@example.com');
    expect(await root.inputValue('#local-password')).to.equal('');
    expect(await answer.text()).not.to.contain('short!');
    expect(await root.locator('tr[data-local-user="dave"]').count()).to.equal(0);
  });

  it('edits a quota, and refuses a quantity that is not one', async () => {
    await root.goto(`${world.den.url}/admin/quota`);
    const row = root.locator('tr[data-quota="alice"]');
    const quota = row.locator('details:has(form[action="/admin/quota/alice"])');
    expect(await row.locator('td').first().textContent()).to.match(/\/ 3$/);
    await quota.locator('summary').click();
    await quota.locator('input[name="cpu"]').fill('lots');
    await quota.locator('button[type="submit"]').click();
    expect(await root.locator('#error-quota-alice').textContent()).to.contain('cpu');
    expect((world.api.object(RESOURCES.userSpace, 'alice')?.spec as any).quota.cpu).to.equal('4');

    const again = root.locator('tr[data-quota="alice"] form[action="/admin/quota/alice"]');
    await again.locator('input[name="cpu"]').fill('8');
    await again.locator('input[name="workspaces"]').fill('5');
    await again.locator('button[type="submit"]').click();
    expect(await root.locator('#done').textContent()).to.equal('The quota was saved.');
    expect((world.api.object(RESOURCES.userSpace, 'alice')?.spec as any).quota).to.include({ cpu: '8', workspaces: 5 });
  });

  it("sets a space's schedule limit and defaults, keeps what was typed beside a refusal, and removes one emptied", async () => {
    await root.goto(`${world.den.url}/admin/quota`);
    const cell = () => root.locator('tr[data-quota="bob"] td').last();
    expect(await cell().textContent()).to.match(/^none/);
    await cell().getByText('Edit').click();
    await root.fill('#schedules-bob-max_running_limit', '10h');
    await root.fill('#schedules-bob-default_autostop', 'weekdays 19:00');
    await root.fill('#schedules-bob-time_zone', 'Europe/Berlln');
    await root.click('button[aria-label="Save the schedules of bob"]');
    expect(await root.locator('#error-schedules-bob').textContent()).to.contain('time_zone must be an IANA time zone');
    expect(await root.inputValue('#schedules-bob-default_autostop')).to.equal('weekdays 19:00');
    expect((world.api.object(RESOURCES.userSpace, 'bob')?.spec as any).schedules).to.equal(undefined);

    await root.fill('#schedules-bob-time_zone', 'Europe/Berlin');
    await root.click('button[aria-label="Save the schedules of bob"]');
    expect(await root.locator('#done').textContent()).to.equal('The schedules were saved.');
    expect((world.api.object(RESOURCES.userSpace, 'bob')?.spec as any).schedules).to.deep.equal({ maxRunningLimit: '10h', defaultAutostop: { days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], time: '19:00', timeZone: 'Europe/Berlin' } });
    expect(await cell().textContent()).to.match(/^runs at most 10h; stops weekdays 19:00 Europe\/Berlin unless a workspace says otherwise/);

    await cell().getByText('Edit').click();
    expect(await root.inputValue('#schedules-bob-max_running_limit')).to.equal('10h');
    await root.fill('#schedules-bob-max_running_limit', '');
    await root.click('button[aria-label="Save the schedules of bob"]');
    expect((world.api.object(RESOURCES.userSpace, 'bob')?.spec as any).schedules).to.deep.equal({ defaultAutostop: { days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], time: '19:00', timeZone: 'Europe/Berlin' } });
  });

  it('creates, edits and deprecates a catalog entry, and creates and force-syncs a registry', async () => {
    await root.goto(`${world.den.url}/admin/catalog`);
    await root.click('summary:has-text("Add an entry")');
    await root.fill('#image-name', 'python');
    await root.fill('#image-image', 'python:3.12');
    await root.fill('#image-tags', 'python, data');
    await root.click('form[action="/admin/catalog/images"] button[type="submit"]');
    expect(await root.locator('#done').textContent()).to.equal('The entry was created.');
    expect(world.api.object(RESOURCES.workspaceImage, 'python')?.spec).to.deep.include({ image: 'python:3.12', displayName: 'python', tags: ['python', 'data'] });

    const row = root.locator('tr[data-image="python"]');
    await row.locator('summary').click();
    await row.locator('input[name="display_name"]').fill('Python 3.12');
    await row.locator('form[action="/admin/catalog/images/python"] button[type="submit"]').click();
    expect((world.api.object(RESOURCES.workspaceImage, 'python')?.spec as any).displayName).to.equal('Python 3.12');

    await root.locator('tr[data-image="python"] button:has-text("Deprecate")').click();
    expect((world.api.object(RESOURCES.workspaceImage, 'python')?.spec as any).deprecated).to.equal(true);
    expect(await root.locator('tr[data-image="python"]').textContent()).to.contain('deprecated');

    await root.click('summary:has-text("Add a registry")');
    await root.fill('#registry-name', 'ecr-main');
    await root.fill('#registry-region', 'eu-west-1');
    await root.fill('#registry-interval_seconds', '600');
    // A pattern RE2 cannot read is refused above the form, naming the field, with what to write instead.
    await root.fill('#registry-include', '^team/(?!tmp).*');
    await root.click('form[action="/admin/catalog/registries"] button[type="submit"]');
    expect(await root.locator('#error-registry').textContent()).to.match(/^include\[0\] is not a valid RE2 pattern: .+\. Den reads patterns as RE2, which has no lookahead, lookbehind or backreferences: rewrite it, such as \^team\/\.\*\$\.$/);
    expect(world.api.object(RESOURCES.imageRegistry, 'ecr-main'), 'nothing created').to.equal(undefined);
    expect(await root.inputValue('#registry-region'), 'what was typed stays').to.equal('eu-west-1');
    await root.fill('#registry-include', '^team/.*');
    await root.click('form[action="/admin/catalog/registries"] button[type="submit"]');
    expect(await root.locator('#done').textContent()).to.equal('The registry was created.');
    expect(world.api.object(RESOURCES.imageRegistry, 'ecr-main')?.spec).to.deep.include({ provider: 'cloud-registry', cloud: { region: 'eu-west-1' } });
    expect((world.api.object(RESOURCES.imageRegistry, 'ecr-main')?.spec as any).sync).to.deep.include({ intervalSeconds: 600, include: ['^team/.*'] });

    await root.locator('tr[data-registry="ecr-main"] button:has-text("Sync now")').click();
    expect(await root.locator('#done').textContent()).to.contain('A sync was requested');
    expect(world.api.object(RESOURCES.imageRegistry, 'ecr-main')?.metadata?.annotations?.['den.dev/force-sync']).to.be.a('string');
  });

  it('lists every workspace in the cluster with its owner, filtered by phase and owner and sorted on the server', async () => {
    await root.goto(`${world.den.url}/admin/workspaces`);
    const names = () => root.locator('#workspaces tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-workspace')));
    expect(await names()).to.deep.equal(['svc-bob/api', 'svc-bob/batch', 'svc-bob/scratch', 'svc-alice/web']);
    expect(await root.locator('tr[data-workspace="svc-alice/web"] td').nth(2).textContent()).to.equal('alice@example.com');
    await root.getByLabel('Phase').selectOption('Running');
    await root.selectOption('#sort', 'age');
    await root.click('#workspace-filter button');
    expect(new URL(root.url()).search).to.equal('?owner=&phase=Running&sort=age');
    expect(await names()).to.deep.equal(['svc-alice/web', 'svc-bob/api']);
    await root.getByLabel('Owner').selectOption('bob@example.com');
    await root.click('#workspace-filter button');
    expect(await names()).to.deep.equal(['svc-bob/api']);
    expect(await root.locator('#workspace-count').textContent()).to.equal('1 workspace of bob@example.com in phase Running.');
  });

  it("stops someone's workspace with the administrator's own token, keeping the list's filter, and links to its page", async () => {
    await root.goto(`${world.den.url}/admin/workspaces?owner=bob%40example.com`);
    const dialogs: string[] = [];
    root.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
    await root.getByRole('button', { name: 'Stop svc-bob/api' }).click();
    await root.waitForURL(/done=workspace-stopped/);
    expect(await root.locator('#done').textContent()).to.equal('The workspace was asked to stop; its home volume is kept.');
    expect(new URL(root.url()).searchParams.get('owner')).to.equal('bob@example.com');
    expect((world.api.object(RESOURCES.workspace, 'api', 'svc-bob')?.spec as any).running).to.equal(false);
    const patch = world.api.requests.find((r) => r.method === 'PATCH' && r.path.endsWith('/namespaces/svc-bob/workspaces/api'));
    expect(patch?.user).to.equal('system:serviceaccount:svc-root:session');
    expect(dialogs[0]).to.equal('Stop api of bob@example.com? Their sessions end; the home volume is kept.');

    await root.getByRole('link', { name: 'batch', exact: true }).click();
    await root.waitForURL(`${world.den.url}/w/batch?namespace=svc-bob`);
    expect(await root.locator('h1').textContent()).to.equal('batch');
    expect(await root.getByRole('tab', { name: 'Terminal' }).count(), "no terminal into someone else's workspace").to.equal(0);
    await root.goBack();

  });

  it("deletes someone's workspace with its home volume only once its name is typed, with the administrator's own token, then says what went", async () => {
    await root.goto(`${world.den.url}/admin/workspaces?owner=bob%40example.com`);
    await root.getByRole('link', { name: 'Delete svc-bob/batch…' }).click();
    await root.waitForURL(/\/admin\/workspaces\/svc-bob\/batch\/delete\?owner=bob%40example\.com/);
    expect(await root.getByLabel('Also delete the volume home-batch-0').isChecked(), 'checked by default').to.equal(true);
    expect(await root.locator('#delete-volume-kept').textContent()).to.equal("Unchecked, the volume home-batch-0 is kept: a new workspace named batch starts with it, and it still counts against the space's storage quota.");
    await root.getByRole('button', { name: 'Delete batch' }).click();
    expect(await root.locator('#confirm-name-error').textContent()).to.equal('The name was not typed. Type batch to delete it with its home volume, or uncheck the volume to keep it. Nothing was deleted.');
    expect(world.api.object(RESOURCES.workspace, 'batch', 'svc-bob')).to.not.equal(undefined);

    await root.getByLabel('To delete it with its volume, type its name, batch').fill('batch');
    await root.getByRole('button', { name: 'Delete batch' }).click();
    await root.waitForURL(/done=workspace-deleted-with-volume/);
    expect(await root.locator('#done').textContent()).to.equal('The workspace was deleted with its home volume and everything in its home folder.');
    expect(new URL(root.url()).searchParams.get('owner'), "the list's filter stays").to.equal('bob@example.com');
    expect(world.api.object(RESOURCES.workspace, 'batch', 'svc-bob')).to.equal(undefined);
    expect(world.api.object(RESOURCES.persistentVolumeClaim, 'home-batch-0', 'svc-bob')).to.equal(undefined);
    const deletes = world.api.requests.filter((r) => r.method === 'DELETE' && r.path.includes('/namespaces/svc-bob/'));
    expect(deletes.map((r) => r.user)).to.deep.equal(['system:serviceaccount:svc-root:session', 'system:serviceaccount:svc-root:session']);
    expect(await root.locator('tr[data-workspace="svc-bob/batch"]').count()).to.equal(0);

    await root.getByRole('link', { name: 'Delete svc-bob/scratch…' }).click();
    await root.getByLabel('Also delete the volume home-scratch-0').uncheck();
    await root.getByRole('button', { name: 'Delete scratch' }).click();
    await root.waitForURL(/done=workspace-deleted(&|$)/);
    expect(await root.locator('#done').textContent()).to.equal('The workspace was deleted; its home volume was kept.');
    expect(world.api.object(RESOURCES.workspace, 'scratch', 'svc-bob')).to.equal(undefined);
    expect(world.api.object(RESOURCES.persistentVolumeClaim, 'home-scratch-0', 'svc-bob')).to.not.equal(undefined);
  });

  it("refuses a person's attempt to stop someone else's workspace in the cluster's words", async () => {
    const alice = await world.signedIn('alice', '/');
    const csrf = (await alice.locator('input[name="_csrf"]').first().getAttribute('value'))!;
    const answer = await alice.request.post(`${world.den.url}/admin/workspaces/svc-bob/api/start`, { form: { _csrf: csrf } });
    expect(answer.status()).to.equal(403);
    expect(await answer.text()).to.contain('cannot patch resource &quot;workspaces&quot; in API group &quot;den.dev&quot; in the namespace &quot;svc-bob&quot;');
    expect((world.api.object(RESOURCES.workspace, 'api', 'svc-bob')?.spec as any).running).to.equal(false);
  });

  it('shows the settings read-only', async () => {
    await root.goto(`${world.den.url}/admin/settings`);
    const text = await root.locator('#settings').textContent();
    expect(text).to.contain('nvidia.com/gpu');
    expect(text).to.contain('on (username and password)');
  });

  it("tells someone without the rights which right is missing, in the cluster's words", async () => {
    const alice = await world.signedIn('alice', '/');
    expect(await alice.locator('nav a[href="/admin/overview"]').count()).to.equal(0);
    const answer = await alice.goto(`${world.den.url}/admin/users`);
    expect(answer?.status()).to.equal(403);
    const alert = await alice.locator('[role="alert"]').textContent();
    expect(await alice.locator('#advice').textContent()).to.equal('Your account does not have the right to do this. If you need it, ask an administrator; the cluster names the missing right below.');
    expect(alert).to.contain('userspaces.den.dev is forbidden: User "system:serviceaccount:svc-alice:session" cannot list resource "userspaces" in API group "den.dev" at the cluster scope');
    const settings = await alice.goto(`${world.den.url}/admin/settings`);
    expect(settings?.status()).to.equal(403);
    expect(await alice.locator('[role="alert"]').textContent()).to.contain('administrator rights are needed');
    expect(await alice.content()).to.not.match(/at \S+\.ts:\d+/);
  });
});

describe('workspaceLines (the admin workspace list)', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  const ws = (name: string, namespace: string, phase: string, created: string): KubeObject => ({ metadata: { name, namespace, creationTimestamp: created }, spec: { imageRef: { name: 'x' } }, status: { phase } });
  const people: KubeObject[] = [
    { metadata: { name: 'zed' }, spec: { owner: 'zed@example.com' }, status: { namespace: 'svc-zed' } },
    { metadata: { name: 'amy' }, spec: { owner: 'amy@example.com' } },
  ];
  const items = [ws('b', 'svc-zed', 'Failed', '2026-11-22T11:00:00Z'), ws('a', 'svc-amy', 'Running', '2026-11-20T11:00:00Z'), ws('c', 'svc-amy', 'Running', '2026-11-22T11:59:00Z')];

  it('sorts by owner, then namespace and name', () => {
    expect(workspaceLines(items, people, { owner: '', phase: '', sort: 'owner', now }).map((l) => `${l.owner}:${l.name}`)).to.deep.equal(['amy@example.com:a', 'amy@example.com:c', 'zed@example.com:b']);
  });

  it('sorts by age newest first and keeps only one phase, or one owner, when asked', () => {
    expect(workspaceLines(items, people, { owner: '', phase: 'Running', sort: 'age', now }).map((l) => l.name)).to.deep.equal(['c', 'a']);
    expect(workspaceLines(items, people, { owner: 'zed@example.com', phase: '', sort: 'name', now }).map((l) => l.name)).to.deep.equal(['b']);
  });
});
