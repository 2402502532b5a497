// A workspace from a repository on a real one-node Kubernetes 1.25 (../shared/kube/cluster/up.sh):
// Den's own image (built from this checkout, test/support/real-kube/den-image.ts) runs
// `den clone-source` as the pod's init container against a real `git http-backend` that this
// machine serves on the address pods reach it at (10.250.0.1); the workspace image is up.sh's
// Debian, which has no git. What a person sees: the clone in the home over SSH, the Cloned
// condition and Events, a stop and start that does not clone again, a bad address in words, and
// a private repository cloned with the person's kept credential beside their secret variable.
// Optional (`npm run test:cluster`), not part of `npm test`: it needs root and the cluster.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isNotFound } from '../../kube/errors.js';
import { homeClaimName, SYSTEM_NAMESPACE, userNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { localUserSecretName } from '../../server/auth/local-users.js';
import { makeRepository, startGitHttpServer, type GitHttpServer } from '../support/git-http-server.js';
import { eventually, runDen } from '../support/platform.js';
import { applyAll, realClient, type RealKubeAddress } from '../support/real-kube/cluster.js';
import { importDenImage } from '../support/real-kube/den-image.js';
import { installCrds, RealDen } from '../support/real-kube/den.js';
import { installChartObjects, KC, runBounded, upShCluster } from './up-sh.js';

const execFileAsync = promisify(execFile);
const WORKSPACE_IMAGE = 'localhost/dev-base:bookworm';
const DEN_IMAGE = 'localhost/den:cluster-test';
/** This machine as the pods see it (up.sh's side of the node's veth). */
const HOST_ADDRESS = '10.250.0.1';
const CONVERGE_MS = 240_000;
const BOUND_MS = 20_000;

type Json = Record<string, any>;

describe('a workspace from a repository on a real one-node Kubernetes 1.25', function () {
  this.timeout(CONVERGE_MS + 120_000);
  const suffix = Math.random().toString(36).slice(2, 8);
  const person = `src-${suffix}`;
  const namespace = userNamespace(person);
  const imageName = `dev-base-${suffix}`;
  const workspaces: string[] = [];
  let address: RealKubeAddress;
  let admin: KubeClient;
  let den: RealDen | undefined;
  let git: GitHttpServer | undefined;
  let local = '';
  let key = '';
  let publicKey = '';
  let apiToken = '';

  /** REST as the person, with an API token they issued after signing in with their password. */
  async function rest(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${den!.baseUrl}/api/v1${path}`, { method, headers: { Authorization: `Bearer ${apiToken}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  const ssh = (workspace: string, command: string) =>
    runBounded('ssh', ['-F', '/dev/null', '-i', key, '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'ConnectTimeout=10', '-p', String(den!.ssh.port), `${workspace}@${den!.ssh.host}`, command], BOUND_MS);
  const workspace = (name: string) => admin.get<Json>(RESOURCES.workspace, name, namespace);
  const condition = async (name: string, type: string) => ((await workspace(name)).status?.conditions ?? []).find((c: Json) => c.type === type);
  const eventsOf = async (name: string) =>
    ((await admin.list<Json>(RESOURCES.event, { namespace })).items ?? []).filter((e: Json) => e.involvedObject?.kind === 'Workspace' && e.involvedObject?.name === name);

  async function createWorkspace(name: string, source: Json): Promise<void> {
    workspaces.push(name);
    await eventually(
      async () =>
        admin.create(
          RESOURCES.workspace,
          {
            apiVersion: RESOURCES.workspace.apiVersion,
            kind: 'Workspace',
            metadata: { name, namespace },
            spec: { imageRef: { name: imageName }, storage: '1Gi', resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '512Mi' } }, sshAuthorizedKeys: [publicKey], source },
          } as KubeObject,
          namespace,
        ),
      `Workspace ${name} created`,
      60_000,
      1000,
    );
  }

  async function phaseIs(name: string, phase: string): Promise<void> {
    await eventually(async () => (await workspace(name)).status?.phase === phase, `Workspace ${name} ${phase}`, CONVERGE_MS, 1000).catch(async (err: Error) => {
      err.message += `\n${await workspace(name).then((w) => JSON.stringify(w.status), (e: Error) => e.message)}\n${den!.diagnostics()}`;
      throw err;
    });
  }

  before(async () => {
    address = await upShCluster();
    admin = realClient(address);
    await importDenImage(DEN_IMAGE, join(KC, 'containerd', 'containerd.sock'));
    await installCrds(admin);
    await installChartObjects(admin);
    git = await startGitHttpServer('person:secret', HOST_ADDRESS);
    den = await new RealDen(address, { replicas: 1, managerFlags: ['--clone-image', DEN_IMAGE, '--clone-image-pull-policy', 'Never'] }).start();
    local = await mkdtemp(join(tmpdir(), 'den-cluster-source-'));
    key = join(local, 'id_ed25519');
    await execFileAsync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${person}@cluster-test`, '-f', key]);
    publicKey = (await readFile(`${key}.pub`, 'utf8')).trim();
    const added = await runDen(['users', 'add', person, '--owner', `${person}@example.com`, '--password-stdin', '--kubeconfig', den.kubeconfig], { stdin: `pass-${suffix}-word\n`, timeoutMs: 150_000 });
    expect(added.code, added.stderr).to.equal(0);
    await applyAll(admin, [{ apiVersion: RESOURCES.workspaceImage.apiVersion, kind: 'WorkspaceImage', metadata: { name: imageName }, spec: { displayName: 'Debian (up.sh)', image: WORKSPACE_IMAGE } } as KubeObject]);
    await eventually(async () => (await admin.get<Json>(RESOURCES.userSpace, person)).status?.phase === 'Ready', `UserSpace ${person} Ready`, CONVERGE_MS, 500);
    const login = await fetch(`${den.baseUrl}/api/v1/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: person, password: `pass-${suffix}-word` }) });
    expect(login.status, await login.clone().text()).to.equal(204);
    const issued = await fetch(`${den.baseUrl}/api/v1/tokens?name=cluster-test`, { method: 'POST', headers: { Cookie: login.headers.getSetCookie()[0]!.split(';')[0]!, 'X-CSRF-Token': login.headers.get('x-csrf-token')! } });
    apiToken = ((await issued.json()) as { token: string }).token;
  });

  after(async function () {
    this.timeout(CONVERGE_MS);
    const attempt = async (what: string, op: () => Promise<unknown>) => op().catch((err: unknown) => (isNotFound(err) ? undefined : console.log(`      clean-up of ${what}: ${(err as Error).message}`)));
    if (admin) {
      for (const name of workspaces) {
        await attempt(`Workspace ${name}`, () => admin.delete(RESOURCES.workspace, name, namespace));
        await attempt(`the home claim of ${name}`, () => admin.delete(RESOURCES.persistentVolumeClaim, homeClaimName(name), namespace));
      }
      await attempt('the WorkspaceImage', () => admin.delete(RESOURCES.workspaceImage, imageName));
      await attempt('the UserSpace', () => admin.delete(RESOURCES.userSpace, person));
      await attempt('the local user', () => admin.delete(RESOURCES.secret, localUserSecretName(person), SYSTEM_NAMESPACE));
      if (den) await attempt('the UserSpace', () => eventually(async () => !(await admin.getIfExists(RESOURCES.userSpace, person)), `UserSpace ${person} gone`, CONVERGE_MS - 10_000, 1000));
    }
    await den?.stop();
    await git?.close();
    if (local) await rm(local, { recursive: true, force: true });
    if (address?.dir) await rm(address.dir, { recursive: true, force: true });
  });

  it('clones the repository into the home before the workspace is Running, with an image that has no git', async () => {
    await createWorkspace(`app-${suffix}`, { git: { url: `${git!.base}/app.git` } });
    await phaseIs(`app-${suffix}`, 'Running');
    expect(await condition(`app-${suffix}`, 'Cloned')).to.include({ status: 'True', reason: 'Cloned', message: `Cloned ${git!.base}/app.git (branch main) into ~/app.` });
    const listed = await ssh(`app-${suffix}`, 'ls -a ~/app; cat ~/app/README.md; command -v git || echo no-git');
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.stdout.split('\n')).to.include.members(['.git', 'README.md', 'second.txt', 'main', 'no-git']);
    // A clone of a small repository lands in about a second: the manager may never see the step
    // running, so Cloning is not promised; Cloned is, once.
    expect((await eventsOf(`app-${suffix}`)).filter((e) => e.reason === 'Cloned').map((e) => e.message)).to.deep.equal([`Cloned ${git!.base}/app.git (branch main) into ~/app.`]);
  });

  it('after a stop and a start, neither clones again nor touches the clone', async () => {
    const name = `app-${suffix}`;
    const wrote = await ssh(name, 'echo mine > ~/app/mine.txt && rm ~/app/second.txt');
    expect(wrote.code, wrote.stderr).to.equal(0);
    await admin.patch(RESOURCES.workspace, name, { spec: { running: false } }, { namespace, type: 'merge' });
    await phaseIs(name, 'Suspended');
    await admin.patch(RESOURCES.workspace, name, { spec: { running: true } }, { namespace, type: 'merge' });
    await phaseIs(name, 'Running');
    const cloned = await condition(name, 'Cloned');
    expect(cloned).to.include({ status: 'True' });
    expect(cloned.message).to.match(/^The repository was cloned on an earlier start/);
    const seen = await ssh(name, 'cat ~/app/mine.txt; ls ~/app');
    expect(seen.stdout.split('\n')).to.include('mine').and.not.to.include('second.txt');
    expect((await eventsOf(name)).filter((e) => e.reason === 'Cloned').map((e) => e.count ?? 1)).to.deep.equal([1]);
  });

  it('says in words that an address has no repository, and the workspace is Failed', async () => {
    const name = `missing-${suffix}`;
    await createWorkspace(name, { git: { url: `${git!.base}/missing.git` } });
    await phaseIs(name, 'Failed');
    const cloned = await condition(name, 'Cloned');
    expect(cloned).to.include({ status: 'False', reason: 'CloneFailed' });
    expect(cloned.message).to.contain('has no repository at this address (HTTP 404)');
    const warning = (await eventsOf(name)).find((e) => e.reason === 'CloneFailed');
    expect(warning?.type).to.equal('Warning');
  });

  it("clones a private repository with the person's kept git credential, and gives the session their secret variable, in no Event or log line", async () => {
    const secretValue = `npm-${suffix}-${Math.random().toString(36).slice(2)}`;
    const variable = await rest('PUT', '/profile/env/NPM_TOKEN', { value: secretValue, secret: true });
    expect(variable.status, await variable.clone().text()).to.equal(200);
    const host = new URL(git!.base).host;
    const credential = await rest('PUT', `/profile/git-credentials/${encodeURIComponent(host)}`, { token: 'secret', username: 'person', protocol: 'http' });
    expect(credential.status, await credential.clone().text()).to.equal(200);
    const name = `private-${suffix}`;
    await createWorkspace(name, { git: { url: `${git!.base}/private/secret.git` } });
    await phaseIs(name, 'Running');
    expect(await condition(name, 'Cloned')).to.include({ status: 'True', message: `Cloned ${git!.base}/private/secret.git (branch main) into ~/secret.` });
    const session = await ssh(name, 'echo "token=$NPM_TOKEN"; cat ~/secret/README.md; grep -c person ~/secret/.git/config || true');
    expect(session.code, session.stderr).to.equal(0);
    expect(session.stdout.split('\n')).to.deep.equal([`token=${secretValue}`, 'main', '0', '']);
    const events = (await admin.list<Json>(RESOURCES.event, { namespace })).items ?? [];
    expect(events.filter((e: Json) => JSON.stringify(e).includes(secretValue))).to.deep.equal([]);
    expect(den!.processes.flatMap((p) => p.log).filter((line) => line.includes(secretValue) || line.includes('person:secret'))).to.deep.equal([]);
  });

  it("applies the repository's devcontainer.json and the person's dotfiles: env in the session, postCreateCommand and install.sh once, postStartCommand each start, the port among the apps", async () => {
    // The person may have 3 workspaces: the failed one of the test before makes room (when it ran).
    await admin.delete(RESOURCES.workspace, `missing-${suffix}`, namespace).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
    await eventually(async () => !(await admin.getIfExists(RESOURCES.workspace, `missing-${suffix}`, namespace)), `Workspace missing-${suffix} gone`, 60_000, 1000);
    const dotfiles = await rest('PUT', '/profile/dotfiles', { url: `${git!.base}/dotfiles-script.git` });
    expect(dotfiles.status, await dotfiles.clone().text()).to.equal(200);
    makeRepository(git!.root, 'dc', {
      '.devcontainer.json': JSON.stringify({
        image: WORKSPACE_IMAGE,
        containerEnv: { GREETING: 'hello' },
        remoteEnv: { EDITOR: 'vim' },
        postCreateCommand: 'echo post-create ran; echo created >> ~/post-create.txt',
        postStartCommand: 'echo started >> ~/started.txt',
        forwardPorts: [3000],
        portsAttributes: { 3000: { label: 'Web' } },
        features: {},
      }),
    });
    const name = `dc-${suffix}`;
    await createWorkspace(name, { git: { url: `${git!.base}/dc.git` } });
    await phaseIs(name, 'Running');
    expect(await condition(name, 'Devcontainer')).to.include({ status: 'True', reason: 'PartlyApplied' });
    expect(await condition(name, 'Lifecycle')).to.include({ status: 'True', reason: 'Ran' });
    expect(await condition(name, 'Dotfiles')).to.include({ status: 'True', reason: 'Cloned' });
    const first = await ssh(name, 'echo "$GREETING $EDITOR"; pwd; cat ~/post-create.txt ~/installed.txt; wc -l < ~/.den/logs/dotfiles.log');
    expect(first.code, first.stderr).to.equal(0);
    // A command over SSH starts in the home, as with sshd (an interactive shell starts in the clone).
    expect(first.stdout.split('\n').slice(0, 5)).to.deep.equal(['hello vim', '/home/dev', 'created', 'installed', '1']);
    await eventually(async () => (await ssh(name, 'cat ~/started.txt')).stdout === 'started\n', 'postStartCommand ran', 30_000, 1000);
    const logs = await rest('GET', `/workspaces/${name}/logs`);
    expect(((await logs.json()) as { lines: string }).lines).to.contain('den: running postCreateCommand').and.contain('post-create ran');
    const apps = (await (await rest('GET', `/workspaces/${name}/apps`)).json()) as { apps: { name: string; port: number }[] };
    expect(apps.apps.map((a) => [a.name, a.port])).to.deep.include(['Web', 3000]);

    await admin.patch(RESOURCES.workspace, name, { spec: { running: false } }, { namespace, type: 'merge' });
    await phaseIs(name, 'Suspended');
    await admin.patch(RESOURCES.workspace, name, { spec: { running: true } }, { namespace, type: 'merge' });
    await phaseIs(name, 'Running');
    await eventually(async () => (await ssh(name, 'cat ~/started.txt')).stdout === 'started\nstarted\n', 'postStartCommand ran again', 30_000, 1000);
    const again = await ssh(name, 'cat ~/post-create.txt; wc -l < ~/.den/logs/dotfiles.log');
    expect(again.stdout).to.equal('created\n1\n');
  });
});
