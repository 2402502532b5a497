// The workspace page's Dev container card (issue 34 part 2), server-rendered from the
// Workspace's status.devcontainer and its Devcontainer and Lifecycle conditions.
import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { fetchPage, postLoginForm } from '../../support/web.js';
import { startWith, stopAll, type Den } from '../core/cluster.js';

function workspace(name: string): KubeObject {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'Workspace',
    metadata: { name, namespace: 'svc-alice', creationTimestamp: new Date(Date.now() - 7_200_000).toISOString() },
    spec: { imageRef: { name: 'ubuntu' }, running: true, storage: '10Gi', sshAuthorizedKeys: ['ssh-ed25519 AAAA x'] },
  };
}

describe('the workspace page shows the repository\'s devcontainer.json', function () {
  this.timeout(30_000);
  let api: FakeApiServer;
  let den: Den;
  let alice: { cookie: string };

  before(async () => {
    ({ api, den } = await startWith({ alice: {} }, (a) => {
      a.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'ubuntu' }, spec: { displayName: 'Ubuntu', image: 'registry.example.com/ubuntu:1' } });
    }));
    const answer = await postLoginForm(den.url, { username: 'alice', password: 'alice-password' });
    alice = { cookie: answer.headers.getSetCookie().find((c) => c.startsWith('svc_session='))!.split(';')[0]! };
  });
  after(() => stopAll(den, api));

  it('shows what the repository\'s devcontainer.json changed, its failed command, its extensions as VS Code links, its ports as apps, and opens VS Code in its folder', async () => {
    const ws = workspace('dc');
    const said = 'From ~/api/.devcontainer/devcontainer.json: containerEnv: GREETING set in the workspace container. Not applied: build (Den builds no images: the catalog is the administrators\' gate; ask for a catalog entry with this image).';
    const failed = 'postCreateCommand failed (exit 3): about to fail. Its output is in ~/.den/logs/postCreateCommand.log and the workspace log; the workspace runs anyway.';
    api.seed({ ...ws, spec: { ...(ws.spec as object), source: { git: { url: 'https://git.example.com/team/api.git' } } }, status: {
      phase: 'Running', endpoint: 'dc@ssh.den.test',
      devcontainer: { file: 'api/.devcontainer/devcontainer.json', workspaceFolder: '/home/dev/api', extensions: ['dbaeumer.vscode-eslint', '"><script>'], ports: [{ port: 3000, label: 'Web <b>' }, { port: 8080 }] },
      conditions: [
        { type: 'Ready', status: 'True', reason: 'PodReady', message: 'ready', lastTransitionTime: '2030-01-01T00:00:00Z' },
        { type: 'Devcontainer', status: 'True', reason: 'PartlyApplied', message: said, lastTransitionTime: '2030-01-01T00:00:00Z' },
        { type: 'Lifecycle', status: 'False', reason: 'CommandFailed', message: failed, lastTransitionTime: '2030-01-01T00:00:00Z' },
      ] } } as KubeObject);
    try {
      const page = await fetchPage(`${den.url}/w/dc`, { cookie: alice.cookie });
      expect(page.status).to.equal(200);
      expect(page.text).to.contain('<p id="devcontainer-said">containerEnv: GREETING set in the workspace container. Not applied: build (Den builds no images: the catalog is the administrators&#39; gate');
      expect(page.text).to.contain(`<p id="lifecycle-said" class="error">${failed}</p>`);
      expect(page.text).to.contain('<li><a href="vscode:extension/dbaeumer.vscode-eslint">dbaeumer.vscode-eslint</a></li>');
      expect(page.text).not.to.contain('<script>"');
      expect(page.text).to.contain('href="vscode://vscode-remote/ssh-remote+dc@ssh.den.test/home/dev/api"');
      expect(page.text).to.contain('Web &lt;b&gt;').and.contain('Port 8080');
    } finally {
      api.remove(RESOURCES.workspace, 'dc', 'svc-alice');
    }
  });

});
