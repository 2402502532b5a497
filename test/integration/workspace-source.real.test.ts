// spec.source on a real kube-apiserver with Den installed (the shared harness): the webhook
// refuses a repository Den cannot clone in words, the CRD keeps a sound one, and the StatefulSet
// the manager renders with its clone init container is one the API server accepts.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { KubeClient } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { userNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { realClient } from '../support/real-kube/cluster.js';
import { sharedRealKube } from '../support/real-kube/shared.js';
import { eventually } from '../support/platform.js';
import { summarizeDevcontainer } from '../../source/devcontainer.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop';

describe('a workspace from a repository on a real API server (issue 34)', function () {
  this.timeout(180_000);
  const suffix = randomBytes(3).toString('hex');
  const person = `src-${suffix}`;
  const image = `ubuntu-${suffix}`;
  const namespace = userNamespace(person);
  let admin: KubeClient;

  before(async () => {
    admin = realClient((await sharedRealKube()).kube);
    await admin.create(RESOURCES.workspaceImage, { apiVersion: RESOURCES.workspaceImage.apiVersion, kind: 'WorkspaceImage', metadata: { name: image }, spec: { displayName: 'Ubuntu', image: 'docker.io/library/ubuntu:24.04' } });
    await admin.create(RESOURCES.userSpace, {
      apiVersion: RESOURCES.userSpace.apiVersion,
      kind: 'UserSpace',
      metadata: { name: person },
      spec: { owner: `${person}@example.com`, quota: { cpu: '4', memory: '8Gi', storage: '50Gi', workspaces: 3 }, networkPolicy: 'Isolated' },
    });
    await eventually(async () => (await admin.get<{ status?: { phase?: string } }>(RESOURCES.userSpace, person)).status?.phase === 'Ready', `UserSpace ${person} Ready`, 90_000);
  });

  after(async () => {
    await admin.delete(RESOURCES.userSpace, person).catch(() => undefined);
    await admin.delete(RESOURCES.workspaceImage, image).catch(() => undefined);
  });

  function workspace(name: string, source: unknown) {
    return admin.create(RESOURCES.workspace, {
      apiVersion: RESOURCES.workspace.apiVersion,
      kind: 'Workspace',
      metadata: { name, namespace },
      spec: { imageRef: { name: image }, storage: '1Gi', sshAuthorizedKeys: [KEY], source },
    }, namespace);
  }

  it('refuses an SSH URL carrying a password and a path outside the home with the webhook\'s words, and stores nothing', async () => {
    const refused = (await workspace('bad', { git: { url: 'ssh://git:pw@github.com/team/api.git', path: '../x' } }).catch((e: unknown) => e)) as KubeApiError;
    expect(refused).to.be.instanceOf(KubeApiError);
    expect(refused.status).to.equal(422);
    expect(refused.message).to.contain('spec.source.git.url: must not carry a password');
    expect(refused.message).to.contain('spec.source.git.path: "../x" must name a folder inside the home');
    expect((await admin.list(RESOURCES.workspace, { namespace })).items).to.deep.equal([]);
  });

  it('admits an SSH address in either form, as the webhook\'s rule says, and stores it as given', async () => {
    for (const [name, url] of [['scp', 'git@github.com:team/api.git'], ['sshurl', 'ssh://git@git.example.com:2222/team/api.git']]) {
      await workspace(name!, { git: { url } });
      expect((await admin.get<{ spec: { source: unknown } }>(RESOURCES.workspace, name!, namespace)).spec.source).to.deep.equal({ git: { url } });
      await admin.delete(RESOURCES.workspace, name!, namespace);
    }
  });

  it('refuses a source without a url by the CRD schema', async () => {
    const refused = (await workspace('nourl', { git: { ref: 'main' } }).catch((e: unknown) => e)) as KubeApiError;
    expect(refused.status).to.equal(422);
    expect(refused.message).to.match(/spec\.source\.git\.url: Required value/);
  });

  it('keeps a sound source, and the manager\'s StatefulSet with the clone init container is accepted; the status says the clone is to come', async () => {
    await workspace('api', { git: { url: 'https://git.example.com/team/api.git', ref: 'main' } });
    const stored = await admin.get<{ spec: { source: unknown } }>(RESOURCES.workspace, 'api', namespace);
    expect(stored.spec.source).to.deep.equal({ git: { url: 'https://git.example.com/team/api.git', ref: 'main' } });
    const set = await eventually(() => admin.get<any>(RESOURCES.statefulSet, 'api', namespace).catch(() => false), 'the StatefulSet api', 60_000);
    const [clone] = set.spec.template.spec.initContainers;
    expect(clone).to.deep.include({ name: 'clone', args: ['clone-source'], terminationMessagePolicy: 'FallbackToLogsOnError' });
    expect(clone.env).to.deep.include({ name: 'DEN_SOURCE_DIRECTORY', value: 'api' });
    const cloned = await eventually(async () => {
      const ws = await admin.get<{ status?: { conditions?: { type: string; reason: string; message: string }[] } }>(RESOURCES.workspace, 'api', namespace);
      return ws.status?.conditions?.find((c) => c.type === 'Cloned') ?? false;
    }, 'a Cloned condition', 60_000);
    expect(cloned).to.include({ reason: 'NotYetCloned', message: 'https://git.example.com/team/api.git is cloned into ~/api when the workspace first starts.' });
    await admin.delete(RESOURCES.workspace, 'api', namespace);
  });

  it('refuses a devcontainer configuration outside the repository with the webhook\'s words', async () => {
    const refused = (await workspace('baddc', { git: { url: 'https://git.example.com/team/api.git' }, devcontainer: '../elsewhere.json' }).catch((e: unknown) => e)) as KubeApiError;
    expect(refused).to.be.instanceOf(KubeApiError);
    expect(refused.status).to.equal(422);
    expect(refused.message).to.contain('spec.source.devcontainer: "../elsewhere.json" must stay inside the repository');
  });

  it('keeps what the clone step reported in status.devcontainer and renders a pod the API server accepts: the lifecycle init container, the wrapped command', async () => {
    await workspace('dc', { git: { url: 'https://git.example.com/team/api.git' }, devcontainer: 'python' });
    const set = await eventually(() => admin.get<any>(RESOURCES.statefulSet, 'dc', namespace).catch(() => false), 'the StatefulSet dc', 60_000);
    expect(set.spec.template.spec.initContainers[0].env).to.deep.include({ name: 'DEN_SOURCE_DEVCONTAINER', value: 'python' });
    const summary = summarizeDevcontainer(
      { containerEnv: { GREETING: 'hello' }, postCreateCommand: 'npm ci', postStartCommand: 'npm run dev &', forwardPorts: [3000], portsAttributes: { 3000: { label: 'Web' } }, remoteUser: 'ubuntu', build: {} },
      '.devcontainer/python/devcontainer.json',
      '/home/dev',
      'api',
    );
    const report = JSON.stringify({ message: 'Cloned https://git.example.com/team/api.git (branch main) into ~/api.', devcontainer: summary });
    // No node runs the pod here: the kubelet's report of the clone step is written as the kubelet would.
    await eventually(() => admin.get<any>(RESOURCES.pod, 'dc-0', namespace).then(() => true, () => false), 'the pod dc-0', 60_000);
    await admin.patch(RESOURCES.pod, 'dc-0', {
      status: { initContainerStatuses: [{ name: 'clone', image: 'den', imageID: '', ready: true, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed', message: report } } }] },
    }, { namespace, type: 'merge', subresource: 'status' });
    const stored = await eventually(async () => (await admin.get<any>(RESOURCES.workspace, 'dc', namespace)).status?.devcontainer ?? false, 'status.devcontainer', 60_000);
    expect(stored).to.deep.equal(summary);
    const applied = await eventually(async () => {
      const s = await admin.get<any>(RESOURCES.statefulSet, 'dc', namespace);
      return s.spec.template.spec.initContainers.length === 2 ? s.spec.template : false;
    }, 'the lifecycle init container', 60_000);
    const [, lifecycle] = applied.spec.initContainers;
    expect(lifecycle).to.deep.include({ name: 'lifecycle', image: 'docker.io/library/ubuntu:24.04', terminationMessagePolicy: 'File' });
    expect(lifecycle.command.slice(0, 2)).to.deep.equal(['/bin/sh', '-c']);
    expect(lifecycle.command.slice(3)).to.deep.equal(['den-lifecycle', '/home/dev/api', '', 'npm ci', 'remoteUser=ubuntu', '']);
    expect(applied.spec.containers[0].command.slice(3)).to.deep.equal(['den-start', '/home/dev/api', 'npm run dev &', 'sleep', 'infinity']);
    expect(applied.spec.containers[0].env).to.deep.include({ name: 'GREETING', value: 'hello' });
    expect(applied.metadata.annotations['den.dev/devcontainer-applied']).to.match(/^[0-9a-f]{16}$/);
    const ws = await admin.get<any>(RESOURCES.workspace, 'dc', namespace);
    const said = ws.status.conditions.find((c: { type: string }) => c.type === 'Devcontainer');
    expect(said).to.include({ status: 'True', reason: 'PartlyApplied' });
    expect(said.message).to.contain('forwardPorts: 3000 (Web) are the workspace\'s apps.').and.contain('Not applied: build (Den builds no images');
    await admin.delete(RESOURCES.workspace, 'dc', namespace);
  });

  it("runs the image devcontainer.json names where another catalog entry offers it, as the manager's cache of entries says", async () => {
    const offered = `registry.example/dev-${suffix}:1`;
    const entry = `dev-${suffix}`;
    await admin.create(RESOURCES.workspaceImage, { apiVersion: RESOURCES.workspaceImage.apiVersion, kind: 'WorkspaceImage', metadata: { name: entry }, spec: { displayName: 'Dev', image: offered } });
    try {
      await workspace('img', { git: { url: 'https://git.example.com/team/api.git' } });
      await eventually(() => admin.get<any>(RESOURCES.pod, 'img-0', namespace).then(() => true, () => false), 'the pod img-0', 60_000);
      const summary = summarizeDevcontainer({ image: offered }, '.devcontainer/devcontainer.json', '/home/dev', 'api');
      const report = JSON.stringify({ message: 'Cloned https://git.example.com/team/api.git (branch main) into ~/api.', devcontainer: summary });
      await admin.patch(RESOURCES.pod, 'img-0', {
        status: { initContainerStatuses: [{ name: 'clone', image: 'den', imageID: '', ready: true, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed', message: report } } }] },
      }, { namespace, type: 'merge', subresource: 'status' });
      const template = await eventually(async () => {
        const s = await admin.get<any>(RESOURCES.statefulSet, 'img', namespace);
        return s.spec.template.spec.containers[0].image === offered ? s.spec.template : false;
      }, 'the StatefulSet running the offered image', 60_000);
      expect(template.spec.containers[0].image).to.equal(offered);
      const ws = await admin.get<any>(RESOURCES.workspace, 'img', namespace);
      const said = ws.status.conditions.find((c: { type: string }) => c.type === 'Devcontainer');
      expect(said.message).to.contain(`image ${offered}: offered by catalog entry "${entry}", so the workspace runs it`);
    } finally {
      await admin.delete(RESOURCES.workspace, 'img', namespace).catch(() => undefined);
      await admin.delete(RESOURCES.workspaceImage, entry).catch(() => undefined);
    }
  });
});
