// SPEC 4.5: POST /profile/password.
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import { sessionSecretName } from '../../../server/auth/sessions.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { call, login, startSignedIn, stopAll, until, type Den, type Signed } from './cluster.js';

describe('password change (POST /profile/password)', () => {
  let api: FakeApiServer;
  let den: Den;
  let alice: Signed;

  beforeEach(async () => {
    ({ api, den, signed: { alice } } = await startSignedIn({ alice: { password: 'old-password' } }));
  });
  afterEach(() => stopAll(den, api));

  it('changes the password with 204: the new one signs in, the old one no longer does', async () => {
    const res = await call(den, 'POST', '/profile/password', { as: alice, body: { current_password: 'old-password', new_password: 'new-password' } });
    expect(res.status).to.equal(204);
    expect((await call(den, 'POST', '/login', { body: { username: 'alice', password: 'old-password' } })).status).to.equal(401);
    expect((await call(den, 'POST', '/login', { body: { username: 'alice', password: 'new-password' } })).status).to.equal(204);
  });

  it("ends the person's other sessions and keeps the one that changed it", async () => {
    const elsewhere = await login(den, 'alice', 'old-password');
    await call(den, 'POST', '/profile/password', { as: alice, body: { current_password: 'old-password', new_password: 'new-password' } });
    expect((await call(den, 'GET', '/session', { as: alice })).status).to.equal(200);
    expect((await call(den, 'GET', '/session', { as: elsewhere })).status).to.equal(401);
    expect(api.object(RESOURCES.secret, sessionSecretName(elsewhere.cookie.split('=')[1]!), 'svc-system')).to.equal(undefined);
  });

  it('answers 400 for a wrong current password and changes nothing', async () => {
    const res = await call(den, 'POST', '/profile/password', { as: alice, body: { current_password: 'not-it-at-all', new_password: 'new-password' } });
    expect(res).to.deep.include({ status: 400, body: { error: 'current_password is wrong: type the password you sign in with now. Your password was not changed.' } });
    expect((await call(den, 'POST', '/login', { body: { username: 'alice', password: 'old-password' } })).status).to.equal(204);
  });

  it('answers 400 naming the field for a bad body', async () => {
    expect((await call(den, 'POST', '/profile/password', { as: alice, body: { current_password: 'old-password' } })).body).to.deep.equal({ error: 'new_password is required' });
    expect((await call(den, 'POST', '/profile/password', { as: alice, body: { current_password: 'old-password', new_password: 'short' } })).body).to.deep.equal({
      error: 'new_password must be at least 8 characters',
    });
    expect((await call(den, 'POST', '/profile/password', { as: alice, body: { current_password: 'old-password', new_password: 'long-enough', username: 'bob' } })).body).to.deep.equal({
      error: 'unknown field username',
    });
  });

  it('answers 409 for a bearer token, which did not sign in with a password', async () => {
    const { body } = await call(den, 'POST', '/tokens', { as: alice });
    const res = await call(den, 'POST', '/profile/password', { as: body.token, body: { current_password: 'old-password', new_password: 'new-password' } });
    expect(res).to.deep.include({ status: 409, body: { error: 'this session did not sign in with a local username and password, so it has no password to change' } });
  });

  it('answers 409 when the local user has been removed since sign-in', async () => {
    api.remove(RESOURCES.secret, 'local-user-alice', 'svc-system');
    await until(async () => (await den.auth.localUsers.list()).length === 0, 'the removal stored');
    const res = await call(den, 'POST', '/profile/password', { as: alice, body: { current_password: 'old-password', new_password: 'new-password' } });
    expect(res).to.deep.include({ status: 409, body: { error: 'the account alice@example.com has no local password (local user alice no longer exists)' } });
  });

  it('counts wrong current passwords against the throttle', async () => {
    for (let i = 0; i < 5; i++) await call(den, 'POST', '/profile/password', { as: alice, body: { current_password: `wrong-${i}-pw`, new_password: 'new-password' } });
    const res = await call(den, 'POST', '/profile/password', { as: alice, body: { current_password: 'old-password', new_password: 'new-password' } });
    expect(res.status).to.equal(429);
  });
});

describe("the person's saved SSH keys (GET and POST /profile/ssh-keys)", () => {
  let api: FakeApiServer;
  let den: Den;
  let alice: Signed;
  const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop';

  beforeEach(async () => {
    ({ api, den, signed: { alice } } = await startSignedIn({ alice: {} }));
  });
  afterEach(() => stopAll(den, api));

  it("lists the keys of the caller's UserSpace, none at first", async () => {
    expect(await call(den, 'GET', '/profile/ssh-keys', { as: alice })).to.deep.include({ status: 200, body: { items: [] } });
  });

  it('saves a key once in spec.sshAuthorizedKeys, spaces collapsed, and answers the keys', async () => {
    const first = await call(den, 'POST', '/profile/ssh-keys', { as: alice, body: { key: `  ${key.replace(' ', '   ')}\n` } });
    expect(first).to.deep.include({ status: 200, body: { items: [key] } });
    const again = await call(den, 'POST', '/profile/ssh-keys', { as: alice, body: { key } });
    expect(again.body).to.deep.equal({ items: [key] });
    expect(api.object<any>(RESOURCES.userSpace, 'alice')!.spec.sshAuthorizedKeys).to.deep.equal([key]);
  });

  it('refuses a key that does not parse with 400 and changes nothing', async () => {
    const res = await call(den, 'POST', '/profile/ssh-keys', { as: alice, body: { key: 'ssh-ed25519 AAAAnotakey x' } });
    expect(res.status).to.equal(400);
    expect(res.body.error).to.match(/^the key /);
    expect(api.object<any>(RESOURCES.userSpace, 'alice')!.spec.sshAuthorizedKeys ?? []).to.deep.equal([]);
    expect((await call(den, 'POST', '/profile/ssh-keys', { as: alice, body: {} })).body).to.deep.equal({ error: 'key is required' });
  });
});
