// A person's daily loop on the workspace page, in Chromium against the whole platform (the
// manager's webhooks check every change, two server replicas behind a proxy): what the
// workspace is, how to reach it on the gateway's own port, a resize the quota refuses in
// the cluster's words beside the field, a change of image, and a delete that asks for the
// name before it takes the home volume and then says what it deleted.
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { KubeApiError } from '../../../kube/errors.js';
import { RESOURCES } from '../../../kube/resources.js';
import { eventually, gone, LocalPlatform, runDen } from '../../support/platform.js';
import { launchChromium } from '../../support/web.js';

const PASSWORD = 'correct horse battery staple';
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop';

describe("a person's daily loop on the workspace page", function () {
  this.timeout(90_000);
  const platform = new LocalPlatform();
  let browser: Browser;
  let page: Page;
  const entry = (name: string, displayName: string) => ({ apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name }, spec: { image: platform.workspaceImage, displayName } });
  const spec = async () => (await platform.admin.get(RESOURCES.workspace, 'dev', 'svc-alice')).spec as Record<string, any>;

  before(async () => {
    await platform.start();
    const added = await runDen(['users', 'add', 'alice', '--owner', 'alice@example.com', '--password-stdin', '--kubeconfig', platform.kubeconfig], { stdin: `${PASSWORD}\n` });
    expect(added.code, added.stderr).to.equal(0);
    await platform.admin.create(RESOURCES.workspaceImage, entry('ubuntu', 'Ubuntu 24.04'));
    await platform.admin.create(RESOURCES.workspaceImage, entry('python', 'Python 3.12'));
    await eventually(async () => ((await platform.admin.get(RESOURCES.userSpace, 'alice')).status as { phase?: string } | undefined)?.phase === 'Ready', 'UserSpace alice Ready', platform.convergeMs);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${platform.baseUrl}/login`);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${platform.baseUrl}/`);
    await page.goto(`${platform.baseUrl}/new?image=ubuntu`);
    await page.getByLabel('Name').fill('dev');
    await page.getByLabel('CPU').fill('1');
    await page.getByLabel('Memory').fill('1Gi');
    await page.getByLabel('Home volume').fill('5Gi');
    await page.getByLabel('SSH public key').fill(KEY);
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.waitForURL(`${platform.baseUrl}/w/dev`);
    await page.locator('#status-card .badge[data-phase="Running"]').waitFor({ timeout: 30_000 });
  });

  after(async () => {
    await browser?.close();
    await platform.stop();
  });

  it('says what the workspace is, and how to reach it on the gateway’s port: the command, VS Code and a ~/.ssh/config block', async () => {
    await page.goto(`${platform.baseUrl}/w/dev`);
    const facts = await page.locator('#facts').innerText();
    expect(facts).to.contain('Ubuntu 24.04 (ubuntu)');
    expect(facts).to.match(/CPU\s+1\n/).and.match(/Memory\s+1Gi\n/);
    expect(facts).to.contain('5Gi (its size cannot change)');
    expect(facts).to.match(/Idle timeout\s+4h: with no SSH session or terminal open it would stop around \d\d:\d\d UTC/);
    expect(facts).to.match(/Created\s+just now by alice@example\.com/);
    const port = platform.ssh.port;
    expect(await page.locator('.copy code').first().textContent()).to.equal(`ssh -p ${port} dev@127.0.0.1`);
    expect(await page.getByRole('link', { name: 'Open in VS Code (Remote-SSH)' }).getAttribute('href')).to.match(new RegExp(`^vscode://vscode-remote/ssh-remote\\+dev@127\\.0\\.0\\.1:${port}/`));
    await page.locator('#ssh-config summary').click();
    expect(await page.locator('#ssh-config pre').textContent()).to.equal(`Host dev.den\n  HostName 127.0.0.1\n  Port ${port}\n  User dev\n  IdentityFile ~/.ssh/id_ed25519\n  IdentitiesOnly yes`);
  });

  it('resizes CPU and memory and changes the idle timeout; more than the quota is refused beside the CPU field and changes nothing', async () => {
    await page.goto(`${platform.baseUrl}/w/dev`);
    await page.getByText('Change size, idle timeout or image…').click();
    expect(await page.getByLabel('CPU', { exact: true }).inputValue(), 'the form starts from the workspace').to.equal('1');
    await page.getByLabel('CPU', { exact: true }).fill('2');
    await page.getByLabel('Memory', { exact: true }).fill('2Gi');
    await page.getByLabel('Idle timeout').fill('90m');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(`${platform.baseUrl}/w/dev`);
    expect(await page.locator('#notice').textContent()).to.equal("Saved: CPU 2, memory 2Gi, idle timeout 90m. A running workspace's pod restarts with it; the home folder stays.");
    const resized = await spec();
    expect(resized.resources).to.deep.equal({ requests: { cpu: '2', memory: '2Gi' }, limits: { cpu: '2', memory: '2Gi' } });
    expect(resized.idleTimeout).to.equal('90m');
    expect(resized.storage).to.equal('5Gi');

    await page.getByText('Change size, idle timeout or image…').click();
    await page.getByLabel('CPU', { exact: true }).fill('64');
    await page.getByRole('button', { name: 'Save changes' }).click();
    // In the person's words beside the field, with what to do; the cluster's text folded under it.
    expect(await page.locator('#change-cpu-error').textContent()).to.equal(
      'This needs 64 of CPU, but your space has 4 left of 4: ask for less, stop a workspace you are not using, or ask an administrator for a larger quota.',
    );
    expect(await page.locator('#change-cpu-cluster p').textContent()).to.contain('exceeded quota of UserSpace "alice" (spec.quota.cpu): requested 64, used 0, limited 4');
    expect(await page.getByLabel('CPU', { exact: true }).inputValue(), 'what was typed stays').to.equal('64');
    expect(await page.getByLabel('CPU', { exact: true }).getAttribute('aria-invalid')).to.equal('true');
    expect((await spec()).resources.limits.cpu).to.equal('2');

    await page.getByLabel('CPU', { exact: true }).fill('not-a-size');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(await page.locator('#change-cpu-error').textContent()).to.equal('"not-a-size" is not an amount of CPU: write cores, such as 2 or 500m.');
    expect((await spec()).resources.limits.cpu).to.equal('2');
  });

  it('changes GPUs too: beyond the quota refused beside the field in words; within it given as request and limit', async () => {
    await page.goto(`${platform.baseUrl}/w/dev`);
    expect(await page.locator('#facts').innerText()).to.match(/GPUs\s+none\n/);
    await page.getByText('Change size, idle timeout or image…').click();
    await page.getByLabel('GPUs', { exact: true }).fill('1');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(await page.locator('#change-gpu-error').textContent()).to.equal(
      'This needs 1 of GPUs, but your space has 0 left of 0: ask for less, stop a workspace you are not using, or ask an administrator for a larger quota.',
    );
    expect(await page.locator('#change-gpu-cluster p').textContent()).to.contain('(spec.quota.gpu): requested 1, used 0, limited 0');
    expect((await spec()).resources.limits).to.not.have.property('nvidia.com/gpu');

    await platform.admin.patch(RESOURCES.userSpace, 'alice', { spec: { quota: { gpu: 1 } } });
    // The webhooks read the quota from their cache: try again until it has the new one.
    await eventually(async () => {
      await page.goto(`${platform.baseUrl}/w/dev`);
      await page.getByText('Change size, idle timeout or image…').click();
      await page.getByLabel('GPUs', { exact: true }).fill('1');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('#notice, #change-gpu-error').first().waitFor();
      return (await page.locator('#notice').count()) > 0;
    }, 'the GPU change saved', 15_000, 300);
    expect(await page.locator('#notice').textContent()).to.equal("Saved: GPUs 1. A running workspace's pod restarts with it; the home folder stays.");
    expect((await spec()).resources).to.deep.equal({ requests: { cpu: '2', memory: '2Gi', 'nvidia.com/gpu': '1' }, limits: { cpu: '2', memory: '2Gi', 'nvidia.com/gpu': '1' } });
    expect(await page.locator('#facts').innerText()).to.match(/GPUs\s+1\n/);
    expect(await page.getByLabel('GPUs', { exact: true }).inputValue(), 'the form starts from the workspace').to.equal('1');

    // Not a whole number: refused beside the field in words, before anything reaches the cluster.
    await page.getByText('Change size, idle timeout or image…').click();
    await page.getByLabel('GPUs', { exact: true }).fill('1.5');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(await page.locator('#change-gpu-error').textContent()).to.equal('"1.5" is not a number of GPUs: write a whole number, such as 1, or 0 for none.');
    expect(await page.getByLabel('GPUs', { exact: true }).getAttribute('aria-invalid')).to.equal('true');
    expect(await page.getByLabel('GPUs', { exact: true }).inputValue(), 'what was typed stays').to.equal('1.5');
    expect((await spec()).resources.limits['nvidia.com/gpu']).to.equal('1');

    // 0 gives the GPU back: the resource is gone from the workspace, and the facts say none.
    await page.getByLabel('GPUs', { exact: true }).fill('0');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(`${platform.baseUrl}/w/dev`);
    expect(await page.locator('#notice').textContent()).to.equal("Saved: GPUs 0. A running workspace's pod restarts with it; the home folder stays.");
    expect((await spec()).resources).to.deep.equal({ requests: { cpu: '2', memory: '2Gi' }, limits: { cpu: '2', memory: '2Gi' } });
    expect(await page.locator('#facts').innerText()).to.match(/GPUs\s+none\n/);
    // 0 again asks for what it has: nothing to save.
    await page.getByText('Change size, idle timeout or image…').click();
    await page.getByLabel('GPUs', { exact: true }).fill('0');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(await page.locator('#notice').textContent()).to.equal('Nothing was changed: the values are the ones the workspace has.');
  });

  it('changes only the idle timeout, and says nothing of a restart (the pod does not carry it)', async () => {
    await page.goto(`${platform.baseUrl}/w/dev`);
    await page.getByText('Change size, idle timeout or image…').click();
    await page.getByLabel('Idle timeout').fill('2h');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(`${platform.baseUrl}/w/dev`);
    expect(await page.locator('#notice').textContent()).to.equal('Saved: idle timeout 2h.');
    expect((await spec()).idleTimeout).to.equal('2h');
  });

  it('refuses, beside the image, an entry withdrawn while the form was open: what happened and what to do, the cluster’s text folded', async () => {
    await platform.admin.create(RESOURCES.workspaceImage, entry('fortran', 'Fortran 77'));
    await page.goto(`${platform.baseUrl}/w/dev`);
    await page.getByText('Change size, idle timeout or image…').click();
    await page.getByLabel('Image', { exact: true }).selectOption('fortran');
    await platform.admin.patch(RESOURCES.workspaceImage, 'fortran', { spec: { deprecated: true } });
    // Until the webhooks' cache has seen the withdrawal (a dry run creates nothing).
    const probe = { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'probe' }, spec: { imageRef: { name: 'fortran' }, storage: '1Gi', running: false } };
    await eventually(() => platform.admin.create(RESOURCES.workspace, probe, 'svc-alice', { dryRun: 'All' }).then(() => false, (err) => err instanceof KubeApiError && err.status === 422), 'the webhook refuses fortran', 10_000);
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(await page.locator('#change-image-error').textContent()).to.equal('The catalog entry fortran is withdrawn: it is no longer offered for a new workspace or a change of image. Choose another image from the catalog.');
    expect(await page.locator('#change-image-cluster').isVisible()).to.equal(true);
    expect(await page.locator('#change-image-cluster p').isVisible(), 'folded').to.equal(false);
    await page.locator('#change-image-cluster summary').click();
    expect(await page.locator('#change-image-cluster p').textContent()).to.contain('spec.imageRef.name: WorkspaceImage "fortran" is deprecated and no longer offered for new workspaces');
    expect((await spec()).imageRef).to.deep.equal({ name: 'ubuntu' });
  });

  it('refuses, beside the name, a new workspace whose name is taken, saying what to do', async () => {
    await page.goto(`${platform.baseUrl}/new?image=ubuntu`);
    await page.getByLabel('Name').fill('dev');
    await page.getByLabel('Home volume').fill('1Gi');
    await page.getByLabel('SSH public key').fill(KEY);
    await page.getByRole('button', { name: 'Create workspace' }).click();
    expect(await page.locator('#name-error').textContent()).to.equal('You already have a workspace named dev: pick another name, or open that one from the dashboard.');
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).to.equal('true');
    await page.locator('#name-cluster summary').click();
    expect(await page.locator('#name-cluster p').textContent()).to.contain('metadata.name: a Workspace named "dev" already exists in namespace svc-alice');
  });

  it('changes the image to another catalog entry, and the page names it by its title', async () => {
    await page.goto(`${platform.baseUrl}/w/dev`);
    await page.getByText('Change size, idle timeout or image…').click();
    await page.getByLabel('Image', { exact: true }).selectOption('python');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(`${platform.baseUrl}/w/dev`);
    expect(await page.locator('#notice').textContent()).to.contain('Saved: image python.');
    expect((await spec()).imageRef).to.deep.equal({ name: 'python' });
    expect(await page.locator('#facts').innerText()).to.contain('Python 3.12 (python)');
  });

  it('deletes with the home volume only once the name is typed, and then says what it deleted', async () => {
    await eventually(() => platform.admin.get(RESOURCES.persistentVolumeClaim, 'home-dev-0', 'svc-alice'), 'the home volume', 30_000);
    await page.goto(`${platform.baseUrl}/w/dev`);
    await page.getByText('Delete this workspace…').click();
    expect(await page.getByLabel('Also delete the volume home-dev-0').isChecked(), 'checked by default').to.equal(true);
    await page.getByLabel('To delete it with its volume, type its name, dev').fill('dve');
    await page.getByRole('button', { name: 'Delete dev' }).click();
    expect(await page.locator('#confirm-name-error').textContent()).to.equal('"dve" is not this workspace\'s name. Type dev to delete it with its home volume, or uncheck the volume to keep it. Nothing was deleted.');
    expect(await gone(platform.admin.get(RESOURCES.workspace, 'dev', 'svc-alice'))).to.equal(false);

    await page.getByLabel('To delete it with its volume, type its name, dev').fill('dev');
    await page.getByRole('button', { name: 'Delete dev' }).click();
    await page.waitForURL(`${platform.baseUrl}/`);
    expect(await page.locator('#notice').textContent()).to.equal('Deleted the workspace dev and its home volume home-dev-0, with everything in its home folder.');
    expect(await gone(platform.admin.get(RESOURCES.workspace, 'dev', 'svc-alice'))).to.equal(true);
    expect(await gone(platform.admin.get(RESOURCES.persistentVolumeClaim, 'home-dev-0', 'svc-alice'))).to.equal(true);
  });
});
