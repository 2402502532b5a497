// SPEC 5 rules 3-4: every call runs with a token minted for the caller's `session` (or
// `session-readonly`) ServiceAccount, reused while fresh; the cluster's RBAC decides.
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import { TokenMinter, type MintTarget } from '../../../kube/minting.js';
import { describeError } from '../../../koa/errors.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, call, login, provision, SERVER_TOKEN, startCluster, startDen, startSignedIn, stopAll, until, type Den, type Signed } from './cluster.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl';

describe('forwarding with minted ServiceAccount tokens', () => {
  let api: FakeApiServer;
  let den: Den;
  let alice: Signed;

  const tokenRequests = () => api.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/token'));
  const workspaceCalls = () => api.requests.filter((r) => r.path.includes('/workspaces'));

  beforeEach(async () => {
    ({ api, den, signed: { alice } } = await startSignedIn({ alice: {} }, (api) => provision(api, 'bob', 'bob@example.com')));
  });
  afterEach(() => stopAll(den, api));

  it("calls the cluster as the caller's session ServiceAccount, minted by the server", async () => {
    api.requests.length = 0;
    expect((await call(den, 'GET', '/workspaces', { as: alice })).status).to.equal(200);
    expect(workspaceCalls().map((r) => r.user)).to.deep.equal(['system:serviceaccount:svc-alice:session']);
    expect(tokenRequests().map((r) => [r.path, r.user])).to.deep.equal([['/api/v1/namespaces/svc-alice/serviceaccounts/session/token', 'system:serviceaccount:svc-system:den-server']]);
  });

  it('uses session-readonly for a read-scoped token, and the cluster refuses it a write with its own message', async () => {
    const { body } = await call(den, 'POST', '/tokens?scope=read', { as: alice });
    api.requests.length = 0;
    expect((await call(den, 'GET', '/workspaces', { as: body.token })).status).to.equal(200);
    expect(workspaceCalls().map((r) => r.user)).to.deep.equal(['system:serviceaccount:svc-alice:session-readonly']);
    const write = await call(den, 'POST', '/workspaces', { as: body.token, body: { name: 'w1', image: 'python', storage: '1Gi', ssh_public_key: KEY } });
    expect(write).to.deep.include({
      status: 403,
      body: { error: 'workspaces.den.dev is forbidden: User "system:serviceaccount:svc-alice:session-readonly" cannot create resource "workspaces" in API group "den.dev" in the namespace "svc-alice"' },
    });
  });

  it('mints once and reuses the token, also for concurrent requests', async () => {
    api.requests.length = 0;
    const answers = await Promise.all(Array.from({ length: 10 }, () => call(den, 'GET', '/workspaces', { as: alice })));
    expect(answers.map((a) => a.status)).to.deep.equal(Array(10).fill(200));
    await call(den, 'GET', '/workspaces', { as: alice });
    expect(tokenRequests()).to.have.length(1);
  });

  it('mints no token for routes that never reach the cluster', async () => {
    api.requests.length = 0;
    await call(den, 'GET', '/session', { as: alice });
    await call(den, 'GET', '/tokens', { as: alice });
    expect(tokenRequests()).to.have.length(0);
  });

  it('answers as the cluster does when the cached token is refused with 401: the token is dropped and the call made once more with a fresh one', async () => {
    await call(den, 'GET', '/workspaces', { as: alice });
    api.failNext('GET', /\/workspaces$/, 401, { reason: 'Unauthorized', message: 'Unauthorized' });
    expect((await call(den, 'GET', '/workspaces', { as: alice })).status).to.equal(200);
    expect(tokenRequests()).to.have.length(2);
    expect((await call(den, 'GET', '/workspaces', { as: alice })).status).to.equal(200);
    expect(tokenRequests()).to.have.length(2);
  });

  it('serves a person whose ServiceAccount was deleted and created again (a new UID) without a 401', async () => {
    await call(den, 'GET', '/workspaces', { as: alice });
    const account = api.object<any>(RESOURCES.serviceAccount, 'session', 'svc-alice');
    api.remove(RESOURCES.serviceAccount, 'session', 'svc-alice');
    const [recreated] = api.seed({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'session', namespace: 'svc-alice', labels: account.metadata.labels } });
    expect(recreated!.metadata!.uid).to.not.equal(account.metadata.uid);
    // Once kube-apiserver's token cache (10 s) no longer vouches for the old token, it is refused.
    api.expireTokenCache();
    expect((await call(den, 'GET', '/workspaces', { as: alice })).status).to.equal(200);
    expect(tokenRequests()).to.have.length(2);
  });

  it('answers 401 without a second try when a freshly minted token is refused', async () => {
    api.requests.length = 0;
    api.failNext('GET', /\/workspaces$/, 401, { reason: 'Unauthorized', message: 'Unauthorized' });
    expect((await call(den, 'GET', '/workspaces', { as: alice })).status).to.equal(401);
    expect(workspaceCalls()).to.have.length(1);
    expect((await call(den, 'GET', '/workspaces', { as: alice })).status).to.equal(200);
    expect(tokenRequests()).to.have.length(2);
  });

  it('answers 503 naming the namespace while its ServiceAccount does not exist yet', async () => {
    api.remove(RESOURCES.serviceAccount, 'session', 'svc-alice');
    const res = await call(den, 'GET', '/workspaces', { as: alice });
    expect(res).to.deep.include({ status: 503, body: { error: 'the namespace svc-alice is not ready yet (ServiceAccount session not found); retry shortly' } });
    expect(res.headers.get('retry-after')).to.equal('5');
  });

  it("answers 409 'your space is being removed' while the person's namespace terminates, on REST and pages, and logs the cluster's words", async () => {
    await stopAll(den, api);
    const logs: { msg: string; fields?: Record<string, unknown> }[] = [];
    api = await startCluster();
    await addPerson(api, 'alice');
    den = await startDen(api, { log: (msg, fields) => void logs.push({ msg, fields }) });
    alice = await login(den, 'alice', 'alice-password');
    const { body: readToken } = await call(den, 'POST', '/tokens?scope=read', { as: alice });
    const admin = api.client();
    await admin.create(RESOURCES.configMap, { metadata: { name: 'held', finalizers: ['den.dev/test'] } }, 'svc-alice');
    await admin.delete(RESOURCES.namespace, 'svc-alice');

    const removing = { error: 'your space is being removed; ask an administrator if this is unexpected' };
    expect(await call(den, 'GET', '/workspaces', { as: alice })).to.deep.include({ status: 409, body: removing });
    expect(await call(den, 'GET', '/workspaces', { as: readToken.token })).to.deep.include({ status: 409, body: removing });
    const page = await fetch(`${den.url}/`, { headers: { Cookie: alice.cookie } });
    expect(page.status).to.equal(409);
    expect(await page.text()).to.include('your space is being removed; ask an administrator if this is unexpected');
    expect(logs.map((l) => l.fields?.error)).to.include.members([
      'serviceaccounts "session" is forbidden: unable to create new content in namespace svc-alice because it is being terminated',
      'serviceaccounts "session-readonly" is forbidden: unable to create new content in namespace svc-alice because it is being terminated',
    ]);
  });

  it('stops cookie sessions and tokens of a person at once when their UserSpace is disabled', async () => {
    const { body } = await call(den, 'POST', '/tokens', { as: alice });
    await api.client().patch(RESOURCES.userSpace, 'alice', { metadata: { labels: { 'den.dev/disabled': 'true' } } });
    await until(async () => (await call(den, 'GET', '/session', { as: alice })).status === 403, 'the disabled label to reach the cache', 2000);
    const refused = { status: 403, body: { error: 'the account alice@example.com is disabled; ask an administrator to enable it' } };
    expect(await call(den, 'GET', '/workspaces', { as: alice })).to.deep.include(refused);
    expect(await call(den, 'GET', '/workspaces', { as: body.token })).to.deep.include(refused);
    await api.client().patch(RESOURCES.userSpace, 'alice', { metadata: { labels: { 'den.dev/disabled': null } } });
    await until(async () => (await call(den, 'GET', '/workspaces', { as: body.token })).status === 200, 'enabled again', 2000);
  });

  it('refuses a person an administrator disables through REST: login, cookie and token alike, until re-enabled', async () => {
    await addPerson(api, 'carol', { admin: true });
    await until(async () => (await den.auth.localUsers.list()).some((u) => u.username === 'carol'), 'carol stored');
    const carol = await login(den, 'carol', 'carol-password');
    const { body } = await call(den, 'POST', '/tokens', { as: alice });
    expect(await call(den, 'PATCH', '/admin/userspaces/alice', { as: carol, body: { disabled: true } })).to.deep.include({ status: 200, body: { name: 'alice', role: 'user', disabled: true } });
    const refused = { status: 403, body: { error: 'the account alice@example.com is disabled; ask an administrator to enable it' } };
    await until(async () => (await call(den, 'GET', '/session', { as: alice })).status === 403, 'the disabled label to reach the cache', 2000);
    expect(await call(den, 'POST', '/login', { body: { username: 'alice', password: 'alice-password' } })).to.deep.include(refused);
    expect(await call(den, 'GET', '/workspaces', { as: body.token })).to.deep.include(refused);
    expect(await call(den, 'POST', '/tokens', { as: alice })).to.deep.include(refused);
    expect((await call(den, 'PATCH', '/admin/userspaces/alice', { as: carol, body: { disabled: false } })).body).to.deep.equal({ name: 'alice', role: 'user', disabled: false });
    await until(async () => (await call(den, 'GET', '/workspaces', { as: alice })).status === 200, 'enabled again', 2000);
    expect((await call(den, 'GET', '/workspaces', { as: body.token })).status).to.equal(200);
  });

  it("keeps two people apart: each sees only their own namespace's workspaces", async () => {
    api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'bobs', namespace: 'svc-bob' }, spec: { imageRef: { name: 'python' }, storage: '1Gi' } });
    const mine = await call(den, 'GET', '/workspaces', { as: alice });
    expect(mine.body.items).to.deep.equal([]);
    const peek = await call(den, 'GET', '/workspaces/bobs?namespace=svc-bob', { as: alice });
    expect(peek.status).to.equal(403);
    expect(peek.body.error).to.contain('User "system:serviceaccount:svc-alice:session" cannot get resource "workspaces"');
  });
});

describe('TokenMinter', () => {
  let api: FakeApiServer;
  const ALICE: MintTarget = { ownerUid: 'uid-of-alice', namespace: 'svc-alice', serviceAccount: 'session' };

  beforeEach(async () => {
    api = await startCluster();
    provision(api, 'alice', 'alice@example.com');
  });
  afterEach(() => api.close());

  it('reuses a token until 80 % of its lifetime has passed, then mints a fresh one', async () => {
    let clock = Date.now();
    const minter = new TokenMinter(api.client(SERVER_TOKEN), { ttlSeconds: 600, now: () => clock });
    const first = await minter.token(ALICE);
    expect(first.reused).to.equal(false);
    clock += 479_000;
    expect(await minter.token(ALICE)).to.deep.equal({ token: first.token, reused: true });
    clock += 2_000;
    const second = await minter.token(ALICE);
    expect(second).to.deep.include({ reused: false });
    expect(second.token).to.not.equal(first.token);
    const who = await api.client(second.token).request<{ status: { userInfo: { username: string } } }>({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'list', group: 'den.dev', resource: 'workspaces', namespace: 'svc-alice' } } },
    });
    expect(who).to.have.nested.property('status.allowed', true);
  });

  it('keeps one token per ServiceAccount', async () => {
    const minter = new TokenMinter(api.client(SERVER_TOKEN), { ttlSeconds: 600 });
    const full = await minter.token(ALICE);
    const read = await minter.token({ ...ALICE, serviceAccount: 'session-readonly' });
    expect(full.token).to.not.equal(read.token);
    expect((await minter.token(ALICE)).token).to.equal(full.token);
  });

  it("never hands a UserSpace created again under the same name the token of the one before (keyed by the UserSpace's UID)", async () => {
    const minter = new TokenMinter(api.client(SERVER_TOKEN), { ttlSeconds: 600 });
    const before = await minter.token(ALICE);
    const after = await minter.token({ ...ALICE, ownerUid: 'uid-of-the-new-alice' });
    expect(after).to.deep.include({ reused: false });
    expect(after.token).to.not.equal(before.token);
  });

  it('drops a token the API server refused, but not a newer one minted meanwhile', async () => {
    const minter = new TokenMinter(api.client(SERVER_TOKEN), { ttlSeconds: 600 });
    const refused = await minter.token(ALICE);
    minter.refused(ALICE, refused.token);
    const fresh = await minter.token(ALICE);
    expect(fresh).to.deep.include({ reused: false });
    minter.refused(ALICE, refused.token);
    expect(await minter.token(ALICE)).to.deep.equal({ token: fresh.token, reused: true });
  });

  it('mints on every call when its cache is off', async () => {
    const minter = new TokenMinter(api.client(SERVER_TOKEN), { ttlSeconds: 600, cache: false });
    expect((await minter.token(ALICE)).token).to.not.equal((await minter.token(ALICE)).token);
  });

  it('reports a server without minting rights as 502, naming the identity', async () => {
    api.addUser('nobody', { username: 'nobody' });
    const minter = new TokenMinter(api.client('nobody'), { ttlSeconds: 600, minter: 'the server' });
    const err = await minter.token(ALICE).then(() => undefined, (e: unknown) => e);
    const answer = describeError(err);
    expect(answer.status).to.equal(502);
    expect(answer.message).to.match(/^the server may not mint tokens for system:serviceaccount:svc-alice:session: serviceaccounts "session" is forbidden/);
  });
});
