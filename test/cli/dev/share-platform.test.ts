// Sharing a workspace end to end on the whole platform on this machine (the real den server,
// gateway and manager processes under the chart's RBAC): alice runs `den share dev bob` on her
// laptop; bob's `den config-ssh` writes dev.alice, and plain OpenSSH with bob's own key reaches
// alice's workspace through the gateway as bob (the exec as his identity, the Workspace's Event
// naming him); after `den share dev bob --remove` his open session ends within 10 s and the next
// is refused with a clear message.
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { eventually, LocalPlatform, runCommand, runDen } from '../../support/platform.js';
import { laptop, sshFlags, trustGateway, type Laptop } from './support.js';

describe('a workspace shared from one laptop and used from another, through the platform on this machine', function () {
  this.timeout(90_000);
  const platform = new LocalPlatform();
  let alice: Laptop;
  let bob: Laptop;
  let context = '';
  let bobConfig = '';

  async function addPerson(name: string): Promise<void> {
    const added = await runDen(['users', 'add', name, '--owner', `${name}@example.com`, '--password-stdin', '--kubeconfig', platform.kubeconfig], { stdin: `${name}-password\n` });
    expect(added.code, added.stderr).to.equal(0);
    await eventually(() => platform.api.object<any>(RESOURCES.userSpace, name)?.status?.phase === 'Ready', `UserSpace ${name} Ready`, 20_000);
  }

  async function signIn(name: string, on: Laptop): Promise<void> {
    const login = await fetch(`${platform.baseUrl}/api/v1/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: name, password: `${name}-password` }) });
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const issued = await fetch(`${platform.baseUrl}/api/v1/tokens?name=laptop`, { method: 'POST', headers: { Cookie: cookie, 'X-CSRF-Token': login.headers.get('x-csrf-token')! } });
    const { token } = (await issued.json()) as { token: string };
    const run = await on.den(['login', platform.baseUrl, '--token-stdin', '--ssh-port', String(platform.ssh.port)], { stdin: `${token}\n` });
    expect(run.code, run.stderr).to.equal(0);
  }

  const sshAsBob = (remote: string) => runCommand('ssh', [...sshFlags(bobConfig, bob.knownHosts), `dev.alice.${context}`, remote], { timeoutMs: 30_000 });

  before(async function () {
    this.timeout(150_000);
    await platform.start();
    [alice, bob] = await Promise.all([laptop(), laptop()]);
    await addPerson('alice');
    await addPerson('bob');
    await platform.admin.create(RESOURCES.workspaceImage, { apiVersion: RESOURCES.workspaceImage.apiVersion, kind: 'WorkspaceImage', metadata: { name: 'ubuntu' }, spec: { displayName: 'Ubuntu', image: platform.workspaceImage, homePath: platform.podRoot } });
    await signIn('alice', alice);
    await signIn('bob', bob);
    context = `127-0-0-1-${new URL(platform.baseUrl).port}`;
    bobConfig = join(bob.home, 'ssh_config');
    await trustGateway(bob.knownHosts, platform.ssh.host, platform.ssh.port);
    const created = await alice.den(['create', 'dev', '--image', 'ubuntu', '--storage', '1Gi', '--cpu', '500m', '--memory', '512Mi']);
    expect(created.code, created.stderr).to.equal(0);
    await eventually(() => platform.api.object<any>(RESOURCES.workspace, 'dev', 'svc-alice')?.status?.phase === 'Running', 'dev Running', 30_000);
    // bob's own key in his profile: what a shared workspace takes.
    const keyed = await bob.den(['config-ssh', '--file', bobConfig, '--add-key']);
    expect(keyed.code, keyed.stderr).to.equal(0);
  });

  after(async function () {
    this.timeout(30_000);
    await platform.stop();
    for (const l of [alice, bob]) if (l) await rm(l.home, { recursive: true, force: true });
  });

  it("refuses bob's key for dev.alice before the share, saying it is not shared with him", async () => {
    const refused = await runCommand('ssh', [...sshFlags('/dev/null', bob.knownHosts), '-i', bob.keyFile, '-p', String(platform.ssh.port), `dev.alice@${platform.ssh.host}`, 'true'], { timeoutMs: 30_000 });
    expect(refused.code).to.equal(255);
    expect(refused.stderr).to.contain('workspace dev of alice is not shared with you (bob); ask alice to run: den share dev bob');
  });

  it("bob's own key opens alice's shared dev through the gateway as bob, with the Host den config-ssh wrote", async () => {
    const shared = await alice.den(['share', 'dev', 'bob']);
    expect(shared.code, shared.stderr).to.equal(0);
    await eventually(async () => (await bob.den(['ls', '--shared'])).stdout.includes('dev.alice'), "dev.alice in bob's den ls", 10_000);
    const written = await bob.den(['config-ssh', '--file', bobConfig]);
    expect(written.code, written.stderr).to.equal(0);
    expect(await readFile(bobConfig, 'utf8')).to.contain(`Host dev.alice.${context}\n`);

    const run = await sshAsBob('echo hello from $(basename $PWD) as a guest');
    expect(run.stdout, run.stderr).to.equal('hello from pod as a guest\n');
    expect(run.code).to.equal(0);
    const execs = platform.api.requests.filter((r) => r.path === '/api/v1/namespaces/svc-alice/pods/dev-0/exec');
    expect(execs.map((r) => r.user)).to.deep.equal(['system:serviceaccount:svc-bob:session']);
    const opened = await eventually(() => platform.api.objects<KubeObject & { reason: string; message: string }>(RESOURCES.event, 'svc-alice').find((e) => e.reason === 'SSHSessionOpened'), 'the SSHSessionOpened Event', 10_000);
    expect(opened.message).to.match(/^SSH exec session opened by bob from /);
    const shares = platform.api.objects<KubeObject & { reason: string; message: string }>(RESOURCES.event, 'svc-alice').filter((e) => e.reason === 'Shared');
    expect(shares.map((e) => e.message)).to.deep.equal(['Shared with bob by alice: SSH, terminal and apps, not stop, resize or delete.']);
  });

  it("ends bob's open session within 10 s of den share dev bob --remove, and refuses the next with a clear message", async () => {
    const open = spawn('ssh', [...sshFlags(bobConfig, bob.knownHosts), `dev.alice.${context}`, 'echo started; sleep 60; echo finished'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    open.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    open.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => open.on('close', (code) => resolve(code)));
    await eventually(() => stdout.includes('started'), 'the open session to start', 15_000);

    const removed = await alice.den(['share', 'dev', 'bob', '--remove']);
    expect(removed.code, removed.stderr).to.equal(0);
    const removedAt = Date.now();
    const code = await Promise.race([exited, new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 10_000))]);
    open.kill();
    expect(code, `the open session ended within 10 s; stderr: ${stderr}`).not.to.equal('still open');
    expect(Date.now() - removedAt).to.be.below(10_000);
    expect(stdout).not.to.contain('finished');
    expect(stderr, `${stderr}\n${await platform.diagnostics()}`).to.contain('den: alice no longer shares workspace dev with you; the session is closed');

    const next = await sshAsBob('true');
    expect(next.code).to.equal(255);
    expect(next.stderr).to.contain('workspace dev of alice is not shared with you (bob); ask alice to run: den share dev bob');
  });
});
