// Working together and on a schedule on a real one-node Kubernetes 1.25 (../shared/kube/cluster/up.sh),
// with pods that really run: alice shares a workspace with bob, whose own profile key opens an SSH
// session to it through the gateway as bob (the exec runs as his identity, the Workspace's Event
// names him); he cannot delete it; when alice removes the share his open session ends within 10 s
// and a new one is refused. A workspace with an autostart a minute ahead starts by itself, and
// one with an autostop stops, each once. Optional (`npm run test:cluster`): needs root and the cluster.
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
import { eventually, runDen } from '../support/platform.js';
import { applyAll, realClient, type RealKubeAddress } from '../support/real-kube/cluster.js';
import { importDenImage } from '../support/real-kube/den-image.js';
import { installCrds, RealDen } from '../support/real-kube/den.js';
import { installChartObjects, KC, runBounded, upShCluster } from './up-sh.js';

const execFileAsync = promisify(execFile);
const WORKSPACE_IMAGE = 'localhost/dev-base:bookworm';
/** Every workspace pod runs Den's clone step (it clones the person's dotfiles): Den's own image, built from this checkout. */
const DEN_IMAGE = 'localhost/den:cluster-test';
const CONVERGE_MS = 240_000;
const BOUND_MS = 20_000;

type Json = Record<string, any>;

interface Person {
  name: string;
  key: string;
  publicKey: string;
  token: string;
}

describe('working together and on a schedule on a real one-node Kubernetes 1.25', function () {
  this.timeout(CONVERGE_MS + 180_000);
  const suffix = Math.random().toString(36).slice(2, 8);
  const imageName = `dev-base-${suffix}`;
  const people: Person[] = [];
  const created: { name: string; namespace: string }[] = [];
  let address: RealKubeAddress;
  let admin: KubeClient;
  let den: RealDen | undefined;
  let local = '';

  const alice = () => people[0]!;
  const bob = () => people[1]!;
  const sshArgs = (who: Person, user: string, command: string) => ['-F', '/dev/null', '-i', who.key, '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'ConnectTimeout=10', '-p', String(den!.ssh.port), `${user}@${den!.ssh.host}`, command];
  const rest = (who: Person, method: string, path: string, body?: unknown) =>
    fetch(`${den!.baseUrl}/api/v1${path}`, { method, headers: { Authorization: `Bearer ${who.token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const workspace = (name: string, namespace: string) => admin.get<Json>(RESOURCES.workspace, name, namespace);
  const eventsOf = async (name: string, namespace: string) =>
    ((await admin.list<Json>(RESOURCES.event, { namespace })).items ?? []).filter((e: Json) => e.involvedObject?.kind === 'Workspace' && e.involvedObject?.name === name);

  async function addPerson(name: string): Promise<Person> {
    const key = join(local, `${name}_ed25519`);
    await execFileAsync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${name}@cluster-test`, '-f', key]);
    const added = await runDen(['users', 'add', name, '--owner', `${name}@example.com`, '--password-stdin', '--kubeconfig', den!.kubeconfig], { stdin: `pass-${name}-word\n`, timeoutMs: 150_000 });
    expect(added.code, added.stderr).to.equal(0);
    await eventually(async () => (await admin.get<Json>(RESOURCES.userSpace, name)).status?.phase === 'Ready', `UserSpace ${name} Ready`, CONVERGE_MS, 500);
    const login = await fetch(`${den!.baseUrl}/api/v1/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: name, password: `pass-${name}-word` }) });
    expect(login.status).to.equal(204);
    const issued = await fetch(`${den!.baseUrl}/api/v1/tokens?name=cluster-test`, { method: 'POST', headers: { Cookie: login.headers.getSetCookie()[0]!.split(';')[0]!, 'X-CSRF-Token': login.headers.get('x-csrf-token')! } });
    return { name, key, publicKey: (await readFile(`${key}.pub`, 'utf8')).trim(), token: ((await issued.json()) as { token: string }).token };
  }

  async function createWorkspace(owner: Person, name: string, extra: Json = {}): Promise<void> {
    const namespace = userNamespace(owner.name);
    created.push({ name, namespace });
    await eventually(
      async () =>
        admin.create(
          RESOURCES.workspace,
          {
            apiVersion: RESOURCES.workspace.apiVersion,
            kind: 'Workspace',
            metadata: { name, namespace },
            spec: { imageRef: { name: imageName }, storage: '1Gi', resources: { requests: { cpu: '100m', memory: '128Mi' } }, sshAuthorizedKeys: [owner.publicKey], ...extra },
          } as KubeObject,
          namespace,
        ),
      `Workspace ${name} created`,
      60_000,
      1000,
    );
  }

  async function phaseIs(name: string, namespace: string, phase: string, within = CONVERGE_MS): Promise<void> {
    await eventually(async () => (await workspace(name, namespace)).status?.phase === phase, `Workspace ${name} ${phase}`, within, 1000).catch(async (err: Error) => {
      err.message += `\n${await workspace(name, namespace).then((w) => JSON.stringify(w.status), (e: Error) => e.message)}\n${den!.diagnostics()}`;
      throw err;
    });
  }

  before(async () => {
    address = await upShCluster();
    admin = realClient(address);
    await installCrds(admin);
    await installChartObjects(admin);
    await importDenImage(DEN_IMAGE, join(KC, 'containerd', 'containerd.sock'));
    den = await new RealDen(address, { replicas: 2, managerFlags: ['--clone-image', DEN_IMAGE, '--clone-image-pull-policy', 'Never'] }).start();
    local = await mkdtemp(join(tmpdir(), 'den-cluster-together-'));
    await applyAll(admin, [{ apiVersion: RESOURCES.workspaceImage.apiVersion, kind: 'WorkspaceImage', metadata: { name: imageName }, spec: { displayName: 'Debian (up.sh)', image: WORKSPACE_IMAGE } } as KubeObject]);
    people.push(await addPerson(`alice-${suffix}`), await addPerson(`bob-${suffix}`));
  });

  after(async function () {
    this.timeout(CONVERGE_MS);
    const attempt = async (what: string, op: () => Promise<unknown>) => op().catch((err: unknown) => (isNotFound(err) ? undefined : console.log(`      clean-up of ${what}: ${(err as Error).message}`)));
    if (admin) {
      for (const { name, namespace } of created) {
        await attempt(`Workspace ${name}`, () => admin.delete(RESOURCES.workspace, name, namespace));
        await attempt(`the home claim of ${name}`, () => admin.delete(RESOURCES.persistentVolumeClaim, homeClaimName(name), namespace));
      }
      await attempt('the WorkspaceImage', () => admin.delete(RESOURCES.workspaceImage, imageName));
      for (const person of people) {
        await attempt(`UserSpace ${person.name}`, () => admin.delete(RESOURCES.userSpace, person.name));
        await attempt(`the local user ${person.name}`, () => admin.delete(RESOURCES.secret, localUserSecretName(person.name), SYSTEM_NAMESPACE));
      }
      if (den) for (const person of people) await attempt(`UserSpace ${person.name}`, () => eventually(async () => !(await admin.getIfExists(RESOURCES.userSpace, person.name)), `UserSpace ${person.name} gone`, CONVERGE_MS / 2, 1000));
    }
    await den?.stop();
    if (local) await rm(local, { recursive: true, force: true });
    if (address?.dir) await rm(address.dir, { recursive: true, force: true });
  });

  it("lets bob into alice's shared workspace with his own key, as bob, not to delete it, and ends his session when the share goes", async () => {
    const namespace = userNamespace(alice().name);
    const name = `dev-${suffix}`;
    const guestUser = `${name}.${alice().name}`;
    await createWorkspace(alice(), name);
    await phaseIs(name, namespace, 'Running');
    const keyAdded = await rest(bob(), 'POST', '/profile/ssh-keys', { key: bob().publicKey });
    expect(keyAdded.status, await keyAdded.clone().text()).to.equal(200);

    const before = await runBounded('ssh', sshArgs(bob(), guestUser, 'true'), BOUND_MS);
    expect(before.code).to.not.equal(0);
    expect(before.stderr).to.contain(`is not shared with you (${bob().name})`);

    const shared = await rest(alice(), 'PUT', `/workspaces/${name}/shares/${bob().name}`);
    expect([200, 201], await shared.clone().text()).to.include(shared.status);
    await eventually(async () => (await runBounded('ssh', sshArgs(bob(), guestUser, 'echo in-$((6*7))'), BOUND_MS)).stdout === 'in-42\n', 'bob in through the share', 30_000, 1000);
    const opened = (await eventsOf(name, namespace)).filter((e) => e.reason === 'SSHSessionOpened');
    expect(opened.map((e) => e.message).join('\n')).to.contain(bob().name);

    const deleted = await rest(bob(), 'DELETE', `/workspaces/${name}`);
    expect(deleted.status).to.be.oneOf([403, 404]);
    expect((await workspace(name, namespace)).metadata?.deletionTimestamp).to.equal(undefined);

    const { spawn } = await import('node:child_process');
    const open = spawn('ssh', sshArgs(bob(), guestUser, 'echo open; sleep 120'), { stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    open.stdout.on('data', (c: Buffer) => (said += c.toString()));
    open.stderr.on('data', (c: Buffer) => (said += c.toString()));
    const ended = new Promise<number | null>((resolve) => open.on('close', resolve));
    await eventually(() => said.includes('open'), 'the open session', 30_000, 200);
    const removedAt = Date.now();
    const removed = await rest(alice(), 'DELETE', `/workspaces/${name}/shares/${bob().name}`);
    expect(removed.status, await removed.clone().text()).to.be.oneOf([200, 204]);
    const code = await Promise.race([ended, new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 15_000))]);
    if (code === 'still open') open.kill('SIGKILL');
    expect(code, said).to.not.equal('still open');
    expect(Date.now() - removedAt).to.be.below(10_000);
    expect(said).to.contain(`no longer shares workspace ${name} with you`);
    const after = await runBounded('ssh', sshArgs(bob(), guestUser, 'true'), BOUND_MS);
    expect(after.code).to.not.equal(0);
    expect(after.stderr).to.contain(`is not shared with you (${bob().name})`);
  });

  it('starts a workspace by its autostart a minute ahead and stops one by its autostop, each once', async function () {
    this.timeout(CONVERGE_MS + 180_000);
    const namespace = userNamespace(alice().name);
    const at = new Date(Date.now() + 70_000);
    const hhmm = `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
    const starting = `up-${suffix}`;
    const stopping = `down-${suffix}`;
    await createWorkspace(alice(), starting, { running: false, schedule: { timeZone: 'UTC', autostart: { time: hhmm } } });
    await createWorkspace(alice(), stopping, { schedule: { timeZone: 'UTC', autostop: { time: hhmm } } });
    await phaseIs(stopping, namespace, 'Running');
    expect((await workspace(starting, namespace)).spec.running).to.equal(false);
    await phaseIs(starting, namespace, 'Running', CONVERGE_MS + 90_000);
    await phaseIs(stopping, namespace, 'Suspended', 120_000);
    // A while after: still one start and one stop, each naming its schedule.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const started = (await eventsOf(starting, namespace)).filter((e) => /by its schedule/.test(e.message ?? ''));
    expect(started.map((e) => [e.reason, e.count ?? 1, e.message])).to.deep.equal([['Started', 1, `Started by its schedule daily ${hhmm} UTC.`]]);
    const stopped = (await eventsOf(stopping, namespace)).filter((e) => /by its schedule/.test(e.message ?? ''));
    expect(stopped.map((e) => [e.reason, e.count ?? 1])).to.deep.equal([['Stopped', 1]]);
    expect((await workspace(stopping, namespace)).spec.running).to.equal(false);
  });
});
