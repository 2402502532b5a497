// The browser terminal of a workspace shared with the viewer, in real Chromium (docs/sharing.md):
// bob opens alice's shared dev from his dashboard, the exec runs as bob's own identity and the
// audit line names him and alice; without the share the page says it is not shared; after alice
// removes the share bob's open terminal closes within 10 s saying why.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { KubeObject } from '../../../kube/client.js';
import { LABELS } from '../../../kube/group.js';
import { RESOURCES } from '../../../kube/resources.js';
import { shareObjectName, shareObjects } from '../../../contract/share.js';
import { FakeExec } from '../../support/fake-exec.js';
import { startBrowserDen, type BrowserDen } from '../../support/browser-den.js';
import { until } from '../core/cluster.js';

async function screenText(page: Page): Promise<string> {
  const rows = await page.$eval('#terminal .xterm-rows', (el) => [...el.children].map((r) => r.textContent ?? ''));
  return rows.map((r) => r.replace(/\u00a0/g, ' ').trimEnd()).join('\n');
}

describe("a shared workspace's browser terminal, in Chromium", function () {
  this.timeout(60_000);
  let world: BrowserDen;
  let exec: FakeExec;
  let home: string;
  const logs: { msg: string; fields?: Record<string, unknown> }[] = [];

  function share(): void {
    const { role, binding } = shareObjects('alice', 'dev', 'bob');
    world.api.seed(role as KubeObject, binding as KubeObject);
  }

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'den-shared-terminal-'));
    exec = new FakeExec({ cwd: home, env: { PS1: '$ ', ENV: '' } });
    world = await startBrowserDen(
      { alice: {}, bob: {} },
      (api) => {
        api.seed(
          { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'shell' }, spec: { displayName: 'Shell', image: 'debian:12', shell: '/bin/sh', homePath: home } } as KubeObject,
          { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev', namespace: 'svc-alice' }, spec: { imageRef: { name: 'shell' }, storage: '1Gi', running: true, sshAuthorizedKeys: [] }, status: { phase: 'Running', podName: 'dev-0', endpoint: 'dev@ssh.den.test' } } as KubeObject,
          { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'dev-0', namespace: 'svc-alice', labels: { [LABELS.workspace]: 'dev' } }, spec: { containers: [{ name: 'workspace', image: 'debian:12' }] }, status: { phase: 'Running' } } as KubeObject,
        );
        exec.attachTo(api);
      },
      { log: (msg, fields) => logs.push({ msg, fields }) },
    );
  });
  after(async () => {
    await world?.close();
    await exec.close();
    await rm(home, { recursive: true, force: true });
  });

  it('says the workspace is not shared with bob before the share, the same as for one that does not exist', async () => {
    const page = await world.signedIn('bob', '/shared/alice/dev');
    expect(await page.textContent('main')).to.contain('workspace dev of alice is not shared with you (bob); ask alice to run: den share dev bob');
    await page.goto(`${world.den.url}/shared/alice/nothing`);
    expect(await page.textContent('main')).to.contain('workspace nothing of alice is not shared with you (bob)');
  });

  it("opens from bob's dashboard, runs a command as bob's own identity, and the audit line names bob and alice", async () => {
    share();
    const page = await world.signedIn('bob', '/');
    await page.click('#shared-with-you a:has-text("Open a terminal")');
    expect(new URL(page.url()).pathname).to.equal('/shared/alice/dev');
    await page.waitForSelector('#terminal .xterm-rows');
    await until(async () => /[$#]$/m.test(await screenText(page)), 'the prompt', 10_000);
    await page.keyboard.type('echo shared-$((6*7))\n');
    await until(async () => (await screenText(page)).includes('shared-42'), 'the output', 10_000);
    const execs = world.api.requests.filter((r) => r.path === '/api/v1/namespaces/svc-alice/pods/dev-0/exec');
    expect(execs.map((r) => r.user)).to.deep.equal(['system:serviceaccount:svc-bob:session']);
    const opened = logs.find((l) => l.msg === 'audit' && l.fields?.audit === 'session-opened');
    expect(opened?.fields).to.include({ userspace: 'bob', owner: 'alice', namespace: 'svc-alice', workspace: 'dev', via: 'terminal' });
  });

  it("closes bob's open terminal within 10 s of the share's removal, saying why", async () => {
    const page = await world.signedIn('bob', '/shared/alice/dev');
    await until(async () => /[$#]$/m.test(await screenText(page).catch(() => '')), 'the prompt', 10_000);
    await world.api.client().delete(RESOURCES.roleBinding, shareObjectName('dev', 'bob'), 'svc-alice');
    const removedAt = Date.now();
    await until(async () => (await page.getAttribute('#terminal', 'data-state')) === 'closed', 'the terminal closed', 10_000);
    expect(Date.now() - removedAt).to.be.below(10_000);
    expect(await page.textContent('#terminal')).to.contain('alice no longer shares workspace dev with you; the terminal is closed');
    expect(logs.some((l) => l.fields?.audit === 'share-ended' && l.fields?.userspace === 'bob')).to.equal(true);
  });
});
