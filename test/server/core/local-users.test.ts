// SPEC 4.6, local users: administrators only (decided by the cluster's RBAC), 404 when local auth is off.
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { call, provision, startDen, startSignedIn, stopAll, until, type Den, type Signed } from './cluster.js';

describe('local users (GET/POST /admin/local-users, DELETE /admin/local-users/{name})', () => {
  let api: FakeApiServer;
  let den: Den;
  let root: Signed;
  let alice: Signed;

  beforeEach(async () => {
    ({ api, den, signed: { root, alice } } = await startSignedIn({ root: { admin: true }, alice: {} }, (api) => provision(api, 'bob', 'bob@example.com')));
  });
  afterEach(() => stopAll(den, api));

  it('lists local users for an administrator, never with a password', async () => {
    const res = await call(den, 'GET', '/admin/local-users', { as: root });
    expect(res).to.deep.include({
      status: 200,
      body: { items: [{ name: 'alice', username: 'alice', owner: 'alice@example.com' }, { name: 'root', username: 'root', owner: 'root@example.com' }] },
    });
  });

  it('creates a local user with 201 who can then sign in, the password stored as an scrypt hash', async () => {
    const res = await call(den, 'POST', '/admin/local-users', { as: root, body: { username: 'bob', password: 'bob-password', owner: 'bob@example.com' } });
    expect(res).to.deep.include({ status: 201, body: { name: 'bob', username: 'bob', owner: 'bob@example.com' } });
    const secret = api.object<{ data: Record<string, string> }>(RESOURCES.secret, 'local-user-bob', 'svc-system');
    expect(Buffer.from(secret!.data.password_hash!, 'base64').toString()).to.match(/^scrypt\$32768\$8\$1\$/);
    expect(JSON.stringify(secret)).to.not.contain(Buffer.from('bob-password').toString('base64'));
    expect((await call(den, 'POST', '/login', { body: { username: 'bob', password: 'bob-password' } })).status).to.equal(204);
  });

  it('answers 409 for an existing username and 400 naming the field for a bad body', async () => {
    expect(await call(den, 'POST', '/admin/local-users', { as: root, body: { username: 'alice', password: 'another-password', owner: 'x@example.com' } })).to.deep.include({
      status: 409,
      body: { error: 'local user alice already exists' },
    });
    expect((await call(den, 'POST', '/admin/local-users', { as: root, body: { username: 'carol', password: 'carol-password' } })).body).to.deep.equal({ error: 'owner is required' });
    expect((await call(den, 'POST', '/admin/local-users', { as: root, body: { username: 'carol', password: 'carol-password', owner: 'c@x', role: 'admin' } })).body).to.deep.equal({
      error: 'unknown field role',
    });
  });

  it("deletes a local user with 204 and ends that user's sessions", async () => {
    expect((await call(den, 'DELETE', '/admin/local-users/alice', { as: root })).status).to.equal(204);
    expect(api.object(RESOURCES.secret, 'local-user-alice', 'svc-system')).to.equal(undefined);
    expect((await call(den, 'GET', '/session', { as: alice })).status).to.equal(401);
    expect((await call(den, 'POST', '/login', { body: { username: 'alice', password: 'alice-password' } })).status).to.equal(401);
    expect(await call(den, 'DELETE', '/admin/local-users/alice', { as: root })).to.deep.include({ status: 404, body: { error: 'no local user named alice' } });
  });

  it('answers 403 to a non-administrator with the RBAC reason, and changes nothing', async () => {
    const expected = 'administrator rights are needed: User "system:serviceaccount:svc-alice:session" cannot create resource "userspaces" in API group "den.dev" at the cluster scope';
    expect(await call(den, 'GET', '/admin/local-users', { as: alice })).to.deep.include({ status: 403, body: { error: expected } });
    expect((await call(den, 'POST', '/admin/local-users', { as: alice, body: { username: 'eve', password: 'eve-password', owner: 'eve@x' } })).status).to.equal(403);
    expect((await call(den, 'DELETE', '/admin/local-users/root', { as: alice })).status).to.equal(403);
    expect(api.object(RESOURCES.secret, 'local-user-eve', 'svc-system')).to.equal(undefined);
    expect(api.object(RESOURCES.secret, 'local-user-root', 'svc-system')).to.not.equal(undefined);
  });

  it("refuses an administrator's read-scoped token", async () => {
    const { body } = await call(den, 'POST', '/tokens?scope=read', { as: root });
    const res = await call(den, 'GET', '/admin/local-users', { as: body.token });
    expect(res.status).to.equal(403);
    expect(res.body.error).to.contain('system:serviceaccount:svc-root:session-readonly');
  });

  it('answers 401 without credentials and 404 on every path when local auth is off', async () => {
    expect((await call(den, 'GET', '/admin/local-users')).status).to.equal(401);
    const off = await startDen(api, { localAuth: false });
    try {
      const { body } = await call(den, 'POST', '/tokens', { as: root });
      const notFound = { status: 404, body: { error: 'local user management is disabled' } };
      expect(await call(off, 'GET', '/admin/local-users', { as: body.token })).to.deep.include(notFound);
      expect(await call(off, 'POST', '/admin/local-users', { as: body.token, body: { username: 'x', password: 'xxxxxxxx', owner: 'x' } })).to.deep.include(notFound);
      expect(await call(off, 'DELETE', '/admin/local-users/alice', { as: body.token })).to.deep.include(notFound);
    } finally {
      await off.close();
    }
  });

  it('sees local users another replica created', async () => {
    const replica = await startDen(api);
    try {
      await call(replica, 'POST', '/admin/local-users', { as: root, body: { username: 'dave', password: 'dave-password', owner: 'dave@example.com' } });
      await until(async () => (await call(den, 'GET', '/admin/local-users', { as: root })).body.items.length === 3, 'dave on the other replica');
    } finally {
      await replica.close();
    }
  });
});
