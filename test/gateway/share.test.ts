// A workspace shared with another person, reached with the real OpenSSH client through the gateway
// (docs/sharing.md): bob's own profile key opens `dev.demo` (demo's workspace dev) as bob, whose
// minted token the fake API server's RBAC checks against the share's Role and RoleBinding; without
// the share he is told so; after its removal a new session is refused and the open one ends.
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { shareObjectName, shareObjects } from '../../contract/share.js';
import { provision } from '../support/userspaces.js';
import { GatewayHarness, makeKey, NAMESPACE, PERSON, pod, workspace, withoutKnownHostsNoise, type UserKey } from './harness.js';

const GUEST = 'bob';
const GUEST_USER = 'system:serviceaccount:svc-bob:session';
const SHARED = `dev.${PERSON}`;

async function waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a workspace shared with another person, through the gateway with OpenSSH', function () {
  this.timeout(40_000);
  let h: GatewayHarness;
  let owner: UserKey;
  let bob: UserKey;

  const audits = (act: string) => h.logs.filter((l) => l.msg === 'audit' && l.fields?.audit === act).map((l) => l.fields!);
  const execUsers = () => h.api.requests.filter((r) => r.path === `/api/v1/namespaces/${NAMESPACE}/pods/dev-0/exec`).map((r) => r.user);

  function share(): void {
    const { role, binding } = shareObjects(PERSON, 'dev', GUEST);
    h.api.seed(role as KubeObject, binding as KubeObject);
  }

  beforeEach(async () => {
    h = await new GatewayHarness().start({ shareCheckMs: 250 });
    owner = await makeKey(h.keys, 'owner');
    bob = await makeKey(h.keys, 'bob');
    provision(h.api, GUEST, 'bob@example.com');
    const person = h.api.object<KubeObject & { spec: Record<string, unknown> }>(RESOURCES.userSpace, GUEST)!;
    h.api.seed({ ...person, spec: { ...person.spec, sshAuthorizedKeys: [bob.publicKey] } });
    await h.seed(workspace('dev', [owner.publicKey]), pod('dev-0', 'dev'));
    await waitFor(() => h.people.get(GUEST)?.spec?.sshAuthorizedKeys?.length, "bob's profile key in the gateway's cache");
  });
  afterEach(() => h.close());

  it("opens bob's session to demo's shared workspace with his own profile key under dev.demo, as bob: his token for the exec, his name in the Event and the audit line", async () => {
    share();
    const r = await h.ssh(bob, SHARED, ['echo', 'as-guest']);
    expect(r.stdout, r.stderr).to.equal('as-guest\n');
    expect(r.code).to.equal(0);
    expect(execUsers()).to.deep.equal([GUEST_USER]);
    const tokenFor = h.api.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/serviceaccounts/session/token')).map((q) => q.path);
    expect(tokenFor).to.deep.equal(['/api/v1/namespaces/svc-bob/serviceaccounts/session/token']);
    const opened = await waitFor(() => h.api.objects<KubeObject & { reason: string; message: string }>(RESOURCES.event, NAMESPACE).find((e) => e.reason === 'SSHSessionOpened'), 'the SSHSessionOpened Event');
    expect(opened.message).to.match(/^SSH exec session opened by bob from 127\.0\.0\.1:\d+ with key SHA256:/);
    expect(opened.metadata?.annotations?.['den.dev/person']).to.equal(GUEST);
    expect(audits('sign-in').at(-1)).to.include({ outcome: 'success', userspace: GUEST, owner: PERSON, workspace: 'dev', namespace: NAMESPACE });
    expect(audits('session-opened')[0]).to.include({ userspace: GUEST, owner: PERSON, identity: GUEST_USER });
  });

  it('refuses bob without a share, saying so after he proved his key, and refuses his key for the bare name and a stranger for dev.demo without a word', async () => {
    const refused = await h.ssh(bob, SHARED, ['echo', 'nope']);
    expect(refused.code).to.equal(255);
    expect(refused.stdout).to.equal('');
    expect(withoutKnownHostsNoise(refused.stderr)).to.contain(`workspace dev of ${PERSON} is not shared with you (${GUEST}); ask ${PERSON} to run: den share dev ${GUEST}`);
    expect(refused.stderr).to.contain('Permission denied (publickey).');
    const bare = await h.ssh(bob, 'dev', ['echo', 'nope']);
    expect(withoutKnownHostsNoise(bare.stderr).trim()).to.match(/Permission denied \(publickey\)\.$/);
    expect(bare.stderr).not.to.contain('shared');
    const stranger = await makeKey(h.keys, 'stranger');
    const unknown = await h.ssh(stranger, SHARED, ['echo', 'nope']);
    expect(withoutKnownHostsNoise(unknown.stderr).trim()).to.equal(`${SHARED}@127.0.0.1: Permission denied (publickey).`);
    expect(execUsers()).to.deep.equal([]);
  });

  it('refuses a disabled guest as if the key were unknown', async () => {
    share();
    const person = h.api.object<KubeObject>(RESOURCES.userSpace, GUEST)!;
    h.api.seed({ ...person, metadata: { ...person.metadata, labels: { 'den.dev/disabled': 'true' } } });
    await waitFor(() => h.people.get(GUEST)?.metadata?.labels?.['den.dev/disabled'] === 'true', 'the disabled label in the cache');
    const r = await h.ssh(bob, SHARED, ['echo', 'nope']);
    expect(r.code).to.equal(255);
    expect(execUsers()).to.deep.equal([]);
  });

  it("after the share's removal refuses bob's next session with a clear message and ends his open one within 10 s, saying why", async () => {
    share();
    const open = spawn('ssh', [...h.sshOptions(bob), '-p', String(h.port), `${SHARED}@127.0.0.1`, 'echo started; sleep 60; echo finished'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    open.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    open.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => open.on('close', (code) => resolve(code)));
    await waitFor(() => stdout.includes('started'), 'the open session to start', 10_000);

    await h.api.client().delete(RESOURCES.roleBinding, shareObjectName('dev', GUEST), NAMESPACE);
    await h.api.client().delete(RESOURCES.role, shareObjectName('dev', GUEST), NAMESPACE);
    const removedAt = Date.now();
    const code = await Promise.race([exited, new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 10_000))]);
    expect(code, 'the open session ended within 10 s').not.to.equal('still open');
    expect(Date.now() - removedAt).to.be.below(10_000);
    expect(stdout).not.to.contain('finished');
    expect(stderr).to.contain(`den: ${PERSON} no longer shares workspace dev with you; the session is closed`);
    expect(audits('share-ended')[0]).to.include({ userspace: GUEST, owner: PERSON, workspace: 'dev' });

    const next = await h.ssh(bob, SHARED, ['echo', 'again']);
    expect(next.code).to.equal(255);
    expect(next.stderr).to.contain(`workspace dev of ${PERSON} is not shared with you (${GUEST}); ask ${PERSON} to run: den share dev ${GUEST}`);
    open.kill();
  });

  it("keeps the owner's own session to dev under the bare name untouched by the guest's share and its removal", async () => {
    share();
    expect((await h.ssh(owner, 'dev', ['echo', 'owner'])).stdout).to.equal('owner\n');
    expect(execUsers()).to.deep.equal(['system:serviceaccount:svc-demo:session']);
  });
});
