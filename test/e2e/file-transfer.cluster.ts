// scp and sftp through Den's SSH gateway into a pod that really runs, on the one-node
// Kubernetes 1.25 of ../shared/kube/cluster/up.sh, whose exec speaks only v4.channel.k8s.io
// (no stdin close): the real OpenSSH clients, up and down, must exit 0 within seconds. Den's
// CRDs and chart objects are applied to that cluster and its processes run on this machine
// (test/support/real-kube/den.ts); the workspace image is up.sh's localhost/dev-base:bookworm.
// Optional (`npm run test:cluster`), not part of `npm test`: it needs root and the cluster.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isNotFound } from '../../kube/errors.js';
import { homeClaimName, SYSTEM_NAMESPACE, userNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { localUserSecretName } from '../../server/auth/local-users.js';
import { eventually, runDen, type CommandResult } from '../support/platform.js';
import { applyAll, realClient, type RealKubeAddress } from '../support/real-kube/cluster.js';
import { installCrds, RealDen } from '../support/real-kube/den.js';
import { installChartObjects, KC, runBounded, upShCluster } from './up-sh.js';
import { importDenImage } from '../support/real-kube/den-image.js';

const execFileAsync = promisify(execFile);

const IMAGE = 'localhost/dev-base:bookworm';
/** "Within seconds": a hang (the v4 bug) runs into it and fails with the elapsed time. */
const BOUND_MS = 20_000;
/** Scheduling, the home claim and the container's start on a busy two-core machine. */
const CONVERGE_MS = 180_000;

/** Den's own image, built from this checkout: it runs the clone step of every workspace pod. */
const CLONE_IMAGE = 'localhost/den:cluster-test';

describe('scp and sftp through the gateway on a real one-node Kubernetes 1.25 (exec v4)', function () {
  this.timeout(CONVERGE_MS + 120_000);
  const suffix = Math.random().toString(36).slice(2, 8);
  const person = `xfer-${suffix}`;
  const namespace = userNamespace(person);
  const workspaceName = `files-${suffix}`;
  const imageName = `dev-base-${suffix}`;
  let address: RealKubeAddress;
  let admin: KubeClient;
  let den: RealDen | undefined;
  let local = '';
  let key = '';

  const sshOptions = () => ['-F', '/dev/null', '-i', key, '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'ConnectTimeout=10'];
  const remote = () => `${workspaceName}@${den!.ssh.host}`;

  /** Runs an OpenSSH client; it must exit 0 within BOUND_MS. */
  async function transfer(program: 'scp' | 'sftp' | 'ssh', args: string[]): Promise<CommandResult> {
    const portFlag = program === 'ssh' ? '-p' : '-P';
    const started = Date.now();
    const result = await runBounded(program, [...sshOptions(), portFlag, String(den!.ssh.port), ...args], BOUND_MS);
    const elapsed = Date.now() - started;
    const said = `${program} ${args.join(' ')}: exit ${result.code} after ${elapsed} ms; stderr: ${result.stderr.trim()}`;
    expect(result.code, `${said} (null: killed at the ${BOUND_MS} ms bound, it hung)`).to.equal(0);
    console.log(`      ${program} ${args[0] === '-O' ? '-O ' : ''}exit 0 in ${elapsed} ms`);
    return result;
  }

  before(async () => {
    address = await upShCluster();
    admin = realClient(address);
    // Every workspace pod runs Den's clone step (the person's dotfiles), so the node needs Den's image.
    await importDenImage(CLONE_IMAGE, join(KC, 'containerd', 'containerd.sock'));
    await installCrds(admin);
    await installChartObjects(admin);
    den = await new RealDen(address, { replicas: 1, managerFlags: ['--clone-image', CLONE_IMAGE, '--clone-image-pull-policy', 'Never'] }).start();
    local = await mkdtemp(join(tmpdir(), 'den-cluster-files-'));
    key = join(local, 'id_ed25519');
    await execFileAsync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${person}@cluster-test`, '-f', key]);

    const added = await runDen(['users', 'add', person, '--owner', `${person}@example.com`, '--password-stdin', '--kubeconfig', den.kubeconfig], { stdin: `pass-${suffix}-word\n`, timeoutMs: 60_000 });
    expect(added.code, added.stderr).to.equal(0);
    await applyAll(admin, [{ apiVersion: RESOURCES.workspaceImage.apiVersion, kind: 'WorkspaceImage', metadata: { name: imageName }, spec: { displayName: 'Debian (up.sh)', image: IMAGE } } as KubeObject]);
    await eventually(async () => (await admin.get<any>(RESOURCES.userSpace, person)).status?.phase === 'Ready', `UserSpace ${person} Ready`, CONVERGE_MS, 500);
    const publicKey = (await readFile(`${key}.pub`, 'utf8')).trim();
    await eventually(
      async () =>
        admin.create(
          RESOURCES.workspace,
          {
            apiVersion: RESOURCES.workspace.apiVersion,
            kind: 'Workspace',
            metadata: { name: workspaceName, namespace },
            spec: { imageRef: { name: imageName }, storage: '1Gi', resources: { requests: { cpu: '100m', memory: '128Mi' } }, sshAuthorizedKeys: [publicKey] },
          } as KubeObject,
          namespace,
        ),
      `Workspace ${workspaceName} created`,
      60_000,
      1000,
    );
    await eventually(async () => (await admin.get<any>(RESOURCES.workspace, workspaceName, namespace)).status?.phase === 'Running', `Workspace ${workspaceName} Running`, CONVERGE_MS, 1000).catch(async (err: Error) => {
      err.message += `\n${await admin.get<any>(RESOURCES.workspace, workspaceName, namespace).then((w) => JSON.stringify(w.status), (e: Error) => e.message)}\n${den!.diagnostics()}`;
      throw err;
    });
    // The first session proves the way in (key, pod, exec) before any transfer is timed.
    await eventually(async () => (await runBounded('ssh', [...sshOptions(), '-p', String(den!.ssh.port), remote(), 'true'], BOUND_MS)).code === 0, 'a first ssh session', 60_000, 1000);
  });

  after(async function () {
    this.timeout(CONVERGE_MS);
    const attempt = async (what: string, op: () => Promise<unknown>) => op().catch((err: unknown) => (isNotFound(err) ? undefined : console.log(`      clean-up of ${what}: ${(err as Error).message}`)));
    if (admin) {
      await attempt('the Workspace', () => admin.delete(RESOURCES.workspace, workspaceName, namespace));
      await attempt('the home claim', () => admin.delete(RESOURCES.persistentVolumeClaim, homeClaimName(workspaceName), namespace));
      await attempt('the WorkspaceImage', () => admin.delete(RESOURCES.workspaceImage, imageName));
      await attempt('the UserSpace', () => admin.delete(RESOURCES.userSpace, person));
      await attempt('the local user', () => admin.delete(RESOURCES.secret, localUserSecretName(person), SYSTEM_NAMESPACE));
      // The manager finishes the UserSpace (its namespace goes first): it must still run until then.
      if (den) await attempt('the UserSpace', () => eventually(async () => !(await admin.getIfExists(RESOURCES.userSpace, person)), `UserSpace ${person} gone`, CONVERGE_MS - 10_000, 1000));
    }
    await den?.stop();
    if (local) await rm(local, { recursive: true, force: true });
    if (address?.dir) await rm(address.dir, { recursive: true, force: true });
  });

  it('scp uploads and downloads (SFTP protocol), exit 0 each', async function () {
    this.timeout(3 * BOUND_MS);
    const payload = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 251));
    await writeFile(join(local, 'up.bin'), payload);
    await transfer('scp', [join(local, 'up.bin'), `${remote()}:up.bin`]);
    await transfer('scp', [`${remote()}:up.bin`, join(local, 'down.bin')]);
    expect((await readFile(join(local, 'down.bin'))).equals(payload), 'the bytes that came back').to.equal(true);
  });

  it('sftp puts and gets in a batch, exit 0', async function () {
    this.timeout(3 * BOUND_MS);
    await writeFile(join(local, 'put.txt'), `put by sftp ${suffix}\n`);
    await writeFile(join(local, 'batch'), `put ${join(local, 'put.txt')} put.txt\nget put.txt ${join(local, 'got.txt')}\nmkdir made-${suffix}\n`);
    await transfer('sftp', ['-b', join(local, 'batch'), remote()]);
    expect(await readFile(join(local, 'got.txt'), 'utf8')).to.equal(`put by sftp ${suffix}\n`);
  });

  it('legacy scp -O uploads and downloads, exit 0 each', async function () {
    this.timeout(3 * BOUND_MS);
    await writeFile(join(local, 'legacy.txt'), `by the scp protocol ${suffix}\n`);
    await transfer('scp', ['-O', join(local, 'legacy.txt'), `${remote()}:legacy.txt`]);
    await transfer('scp', ['-O', `${remote()}:legacy.txt`, join(local, 'legacy-back.txt')]);
    expect(await readFile(join(local, 'legacy-back.txt'), 'utf8')).to.equal(`by the scp protocol ${suffix}\n`);
  });

  it('went through exec v4, and leaves no sftp-server or scp running in the pod', async function () {
    this.timeout(3 * BOUND_MS);
    const started = den!.replicasOf('gateway').flatMap((p) => p.log).filter((l) => l.includes('exec started'));
    expect(started.length, 'exec started lines in the gateway log').to.be.greaterThan(0);
    expect(started.filter((l) => !l.includes('v4.channel.k8s.io')), 'sessions on another protocol than v4').to.deep.equal([]);
    await eventually(
      async () => (await transfer('ssh', [remote(), "ps -eo comm= | grep -cE '^(sftp-server|scp)$' || true"])).stdout.trim() === '0',
      'no sftp-server or scp process left in the pod',
      15_000,
      1000,
    );
  });
});
