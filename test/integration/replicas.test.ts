// Two replicas of `den server` answer as one: whatever one replica wrote (a session, a token,
// a password, a person deleted and created again), the other answers as the writer would, on
// its very next request; and each of the two gateways honours a key written a moment ago. The
// platform runs each pair behind a round-robin proxy; each step below names the replica it
// writes on and the one it reads from.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { SYSTEM_NAMESPACE, userNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { eventually, gone, LocalPlatform, runCommand, runDen } from '../support/platform.js';
import { Rest, sshOptions, type Session } from './rest.js';

const PASSWORD = 'two replicas, one answer';

describe('two replicas answer as the one that wrote', function () {
  this.timeout(60_000);
  const platform = new LocalPlatform();
  /** Through the proxy, as a person reaches the Service. */
  let any: Rest;
  let first: Rest;
  let second: Rest;
  let admin: Session;
  /** Made before the watches stall, so each replica holds them in its cache. */
  let aliceOnFirst: Session;
  let bobOnSecond: Session;
  let revokable: string;
  let keys = '';
  let oldKey = { file: '', publicKey: '' };
  let newKey = { file: '', publicKey: '' };

  async function keygen(name: string): Promise<{ file: string; publicKey: string }> {
    const file = join(keys, name);
    const made = await runCommand('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
    expect(made.code, made.stderr).to.equal(0);
    return { file, publicKey: (await readFile(`${file}.pub`, 'utf8')).trim() };
  }

  function sshTo(at: { host: string; port: number }, keyFile: string, command: string) {
    return runCommand('ssh', [...sshOptions({ ssh: at }, keyFile), `dev@${at.host}`, command], { timeoutMs: 30_000 });
  }

  async function addPerson(name: string, opts: { admin?: boolean } = {}): Promise<void> {
    const result = await runDen(['users', 'add', name, '--owner', `${name}@example.com`, '--password-stdin', '--kubeconfig', platform.kubeconfig, ...(opts.admin ? ['--admin'] : [])], { stdin: PASSWORD });
    expect(result.code, result.stderr).to.equal(0);
    await eventually(async () => (await platform.admin.get<any>(RESOURCES.userSpace, name)).status?.phase === 'Ready', `UserSpace ${name} Ready`, platform.convergeMs);
  }

  /** Adds the processes' recent output to a failing assertion's message. */
  async function diagnose(step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (err) {
      if (err instanceof Error) err.message += `\n--- what the platform said ---\n${await platform.diagnostics()}`;
      throw err;
    }
  }

  before(async function () {
    this.timeout(90_000);
    platform.suffix = 'rr';
    keys = await mkdtemp(join(tmpdir(), 'den-replicas-keys-'));
    [oldKey, newKey] = [await keygen('old'), await keygen('new')];
    await platform.start();
    any = new Rest(platform.baseUrl);
    [first, second] = platform.servers.map((r) => new Rest(r.url)) as [Rest, Rest];
    await diagnose(() => setUp());
  });

  /** Three people, and credentials each replica holds in its cache before the watches stall. */
  async function setUp(): Promise<void> {
    await addPerson('root', { admin: true });
    await addPerson('alice');
    await addPerson('bob');
    admin = await first.login('root', PASSWORD);
    aliceOnFirst = await first.login('alice', PASSWORD);
    bobOnSecond = await second.login('bob', PASSWORD);
    const issued = await first.call('POST', '/tokens?name=revoked-soon', { as: { session: aliceOnFirst } });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    revokable = issued.body.token;
    // One watch stream delivers its events in order: a replica that lists this token has seen the sessions before it.
    for (const replica of [first, second]) {
      await eventually(async () => (await replica.call('GET', '/tokens', { as: { session: aliceOnFirst } })).body.items?.some((t: { name: string }) => t.name === 'revoked-soon'), 'the token in both replicas', platform.convergeMs);
    }
    // From here on neither replica's watch of the state Secrets delivers anything for a while
    // (it is re-opened and the API server is slow to answer it), so a replica knows only what
    // it wrote itself or reads from the API server: the steps below cannot pass on watch speed.
    platform.api.slowDown('GET', /\/namespaces\/svc-system\/secrets\?(?=.*labelSelector=den\.dev%2Fkind)(?=.*watch=true)/, 60_000);
    platform.api.dropWatches();
  }

  after(async function () {
    this.timeout(30_000);
    await platform.stop();
    if (keys) await rm(keys, { recursive: true, force: true });
  });

  it('runs two server replicas behind the proxy, which sends requests to each in turn', async () => {
    expect(await Promise.all(platform.servers.map((r) => fetch(`${r.url}/readyz`).then((res) => res.status)))).to.deep.equal([200, 200]);
    const served = () => platform.servers.map((r) => platform.webProxy!.served.get(new URL(r.url).host) ?? 0);
    const was = served();
    for (let i = 0; i < 4; i++) expect((await fetch(`${platform.baseUrl}/healthz`)).status).to.equal(200);
    expect(served().map((n, i) => n - was[i]!)).to.deep.equal([2, 2]);
  });

  it('each replica keeps an idle connection longer than an ingress or load balancer keeps it (60 s), and says so', async () => {
    for (const r of platform.servers) expect((await fetch(`${r.url}/healthz`)).headers.get('keep-alive'), r.url).to.equal('timeout=65');
  });

  it('a person who signs in on one replica is served by the other on the first request', () =>
    diagnose(async () => {
      const alice = await first.login('alice', PASSWORD);
      const answer = await second.call('GET', '/session', { as: { session: alice } });
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answer.body).to.deep.include({ email: 'alice@example.com', userspace: 'alice', namespace: 'svc-alice', auth: 'local' });
    }));

  it('a token issued on one replica is listed by the other at once, and works there', () =>
    diagnose(async () => {
      const alice = await first.login('alice', PASSWORD);
      const issued = await first.call('POST', '/tokens?name=laptop', { as: { session: alice } });
      expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
      const listed = await second.call('GET', '/tokens', { as: { session: alice } });
      expect(listed.status).to.equal(200);
      expect(listed.body.items.map((t: { name: string }) => t.name)).to.include('laptop');
      expect((await second.call('GET', '/workspaces', { as: { token: issued.body.token } })).status).to.equal(200);
    }));

  it('a token revoked on one replica is refused by the other on its next use', () =>
    diagnose(async () => {
      expect((await second.call('GET', '/workspaces', { as: { token: revokable } })).status).to.equal(200);
      expect((await first.call('DELETE', '/tokens/revoked-soon', { as: { session: aliceOnFirst } })).status).to.equal(204);
      expect(await second.call('GET', '/workspaces', { as: { token: revokable } })).to.deep.include({ status: 401, body: { error: 'invalid or revoked API token' } });
      expect(await second.call('POST', '/tokens?name=after-revoke', { as: { token: revokable } })).to.deep.include({ status: 401, body: { error: 'invalid or revoked API token' } });
      const names = (await first.call('GET', '/tokens', { as: { session: aliceOnFirst } })).body.items.map((t: { name: string }) => t.name);
      expect(names).to.not.include('after-revoke');
    }));

  it('a session signed out on one replica is refused by the other on its next request', () =>
    diagnose(async () => {
      expect((await first.call('GET', '/workspaces', { as: { session: aliceOnFirst } })).status).to.equal(200);
      expect((await second.call('POST', '/logout', { as: { session: aliceOnFirst } })).status).to.equal(204);
      expect(await first.call('GET', '/workspaces', { as: { session: aliceOnFirst } })).to.deep.include({ status: 401, body: { error: 'your session has ended; sign in again' } });
      const page = await fetch(`${platform.servers[0]!.url}/`, { headers: { Cookie: aliceOnFirst.cookie }, redirect: 'manual' });
      expect(page.status).to.equal(302);
      expect(page.headers.get('location')).to.equal('/login?next=%2F');
    }));

  it('after a password change on one replica, the old session is refused by the other, and so is the old password', () =>
    diagnose(async () => {
      const elsewhere = bobOnSecond;
      expect((await second.call('GET', '/workspaces', { as: { session: elsewhere } })).status).to.equal(200);
      const here = await first.login('bob', PASSWORD);
      const renewed = `${PASSWORD} renewed`;
      const changed = await first.call('POST', '/profile/password', { as: { session: here }, body: { current_password: PASSWORD, new_password: renewed } });
      expect(changed.status, JSON.stringify(changed.body)).to.equal(204);
      expect(await second.call('GET', '/workspaces', { as: { session: elsewhere } })).to.deep.include({ status: 401, body: { error: 'your session has ended; sign in again' } });
      expect(await second.call('POST', '/login', { body: { username: 'bob', password: PASSWORD } })).to.deep.include({ status: 401, body: { error: 'invalid username or password' } });
      const renewedSession = await second.login('bob', renewed);
      expect((await second.call('POST', '/profile/password', { as: { session: renewedSession }, body: { current_password: renewed, new_password: PASSWORD } })).status).to.equal(204);
    }));

  it('a person deleted and created again under the same names is never answered 401 over 40 requests, and others stay the 403 of the cluster', () =>
    diagnose(async () => {
      // Both replicas serve alice and bob first, so each holds tokens minted for their old ServiceAccounts.
      const before = await any.login('alice', PASSWORD);
      const bob = await any.login('bob', PASSWORD);
      for (const replica of [first, second]) {
        expect((await replica.call('GET', '/workspaces', { as: { session: before } })).status).to.equal(200);
        expect((await replica.call('GET', '/workspaces', { as: { session: bob } })).status).to.equal(200);
      }
      const oldSpace = await platform.admin.get(RESOURCES.userSpace, 'alice');

      expect((await first.call('DELETE', '/admin/local-users/alice', { as: { session: admin } })).status).to.equal(204);
      expect((await second.call('DELETE', '/admin/userspaces/alice', { as: { session: admin } })).status).to.equal(204);
      await eventually(() => gone(platform.admin.get(RESOURCES.namespace, userNamespace('alice'))), 'namespace svc-alice removed', platform.convergeMs);
      await eventually(() => gone(platform.admin.get(RESOURCES.userSpace, 'alice')), 'UserSpace alice removed', platform.convergeMs);
      expect(await gone(platform.admin.get(RESOURCES.secret, 'local-user-alice', SYSTEM_NAMESPACE))).to.equal(true);
      expect(await second.call('GET', '/workspaces', { as: { session: before } })).to.deep.include({ status: 401 });

      await addPerson('alice');
      const newSpace = await platform.admin.get(RESOURCES.userSpace, 'alice');
      expect(newSpace.metadata!.uid).to.not.equal(oldSpace.metadata!.uid);
      const alice = await any.login('alice', PASSWORD);

      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await any.call('GET', '/workspaces', { as: { session: alice } })).status);
      expect(statuses.filter((s) => s !== 200), `statuses of 40 requests: ${statuses.join(' ')}`).to.deep.equal([]);

      for (const replica of [first, second]) {
        const peek = await replica.call('GET', '/workspaces/anything?namespace=svc-bob', { as: { session: alice } });
        expect(peek.status, JSON.stringify(peek.body)).to.equal(403);
        expect(peek.body.error).to.contain('User "system:serviceaccount:svc-alice:session" cannot get resource "workspaces"');
        const back = await replica.call('GET', '/workspaces/anything?namespace=svc-alice', { as: { session: bob } });
        expect(back.status, JSON.stringify(back.body)).to.equal(403);
        expect(back.body.error).to.contain('User "system:serviceaccount:svc-bob:session" cannot get resource "workspaces"');
      }
    }));

  it("a key written to a workspace a moment ago lets its owner in through each gateway, before either gateway's watch tells it", () =>
    diagnose(async () => {
      const alice = await second.login('alice', PASSWORD);
      expect((await first.call('POST', '/workspace-images', { body: { name: 'ubuntu-rr', image: platform.workspaceImage, display_name: 'Ubuntu' }, as: { session: admin } })).status).to.equal(201);
      const created = await second.call('POST', '/workspaces', { body: { name: 'dev', image: 'ubuntu-rr', storage: '1Gi', ssh_public_key: oldKey.publicKey }, as: { session: alice } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      await eventually(async () => (await any.call('GET', '/workspaces/dev', { as: { session: alice } })).body.status?.phase === 'Running', 'workspace dev Running', platform.convergeMs);
      for (const gateway of platform.gateways) expect((await sshTo(gateway.ssh, oldKey.file, 'echo old')).stdout).to.equal('old\n');

      // Neither gateway's Workspace watch delivers from here on: only the API server knows the new key.
      platform.api.slowDown('GET', /\/apis\/den\.dev\/v1alpha1\/workspaces\?(?=.*watch=true)/, 60_000);
      platform.api.dropWatches();
      await platform.admin.patch(RESOURCES.workspace, 'dev', { spec: { sshAuthorizedKeys: [newKey.publicKey] } }, { namespace: userNamespace('alice') });
      for (const gateway of platform.gateways) {
        const answer = await sshTo(gateway.ssh, newKey.file, 'echo new');
        expect(answer, `through ${gateway.process.name}: ${answer.stderr}`).to.deep.include({ code: 0, stdout: 'new\n' });
        expect((await sshTo(gateway.ssh, oldKey.file, 'echo old')).code, `the removed key through ${gateway.process.name}`).to.equal(255);
      }
    }));

  it('a person disabled on one replica can change nothing on the other, before its watch tells it', () =>
    diagnose(async () => {
      const bob = await second.login('bob', PASSWORD);
      expect((await second.call('GET', '/workspaces', { as: { session: bob } })).status).to.equal(200);
      // Neither replica's UserSpace watch delivers from here on: only the API server knows bob is disabled.
      platform.api.slowDown('GET', /\/apis\/den\.dev\/v1alpha1\/userspaces\?(?=.*watch=true)/, 60_000);
      platform.api.dropWatches();
      const disabled = await first.call('PATCH', '/admin/userspaces/bob', { body: { disabled: true }, as: { session: admin } });
      expect(disabled.status, JSON.stringify(disabled.body)).to.equal(200);
      for (const replica of [second, first]) {
        const refused = await replica.call('POST', '/tokens?name=while-disabled', { as: { session: bob } });
        expect(refused, 'a write as bob').to.deep.include({ status: 403, body: { error: 'the account bob@example.com is disabled; ask an administrator to enable it' } });
      }
      expect((await second.call('PATCH', '/admin/userspaces/bob', { body: { disabled: false }, as: { session: admin } })).status).to.equal(200);
      expect((await first.call('POST', '/tokens?name=enabled-again', { as: { session: bob } })).status, 'enabled again through the other replica').to.equal(201);
      const names = (await second.call('GET', '/tokens', { as: { session: bob } })).body.items.map((t: { name: string }) => t.name);
      expect(names, 'nothing was written while disabled').to.deep.equal(['enabled-again']);
    }));
});
