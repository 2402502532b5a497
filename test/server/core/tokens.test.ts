// SPEC 4.4 and 5: API tokens issued, listed, used and revoked, and CSRF on cookie requests.
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import { TOKEN_OWNER_LABEL, tokenOwnerHash, tokenSecretName } from '../../../server/auth/token-store.js';
import { renderStateSecret } from '../../../server/auth/state.js';
import { sha256Hex } from '../../../server/auth/secrets.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { call, login, startDen, startSignedIn, stopAll, type Den, type Signed } from './cluster.js';

describe('API tokens (GET/POST /tokens, DELETE /tokens/{name})', () => {
  let api: FakeApiServer;
  let den: Den;
  let alice: Signed;
  let bob: Signed;

  beforeEach(async () => {
    ({ api, den, signed: { alice, bob } } = await startSignedIn({ alice: {}, bob: {} }));
  });
  afterEach(() => stopAll(den, api));

  it('issues a token with 201 {name, namespace, created_at, token}, the plaintext shown once', async () => {
    const res = await call(den, 'POST', '/tokens?name=ci', { as: alice });
    expect(res.status).to.equal(201);
    expect(Object.keys(res.body).sort()).to.deep.equal(['created_at', 'name', 'namespace', 'token']);
    expect(res.body).to.include({ name: 'ci', namespace: 'svc-alice' });
    expect(res.body.token).to.match(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(res.body.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('stores only the SHA-256 of the token, as the Secret name', async () => {
    const { body } = await call(den, 'POST', '/tokens', { as: alice });
    const secret = api.object<{ metadata: { name: string; labels: Record<string, string> }; data: Record<string, string> }>(RESOURCES.secret, tokenSecretName(body.token), 'svc-system');
    expect(secret?.metadata.name).to.equal(`api-token-${sha256Hex(body.token)}`);
    expect(secret?.metadata.labels['den.dev/kind']).to.equal('api-token');
    const decoded = Object.fromEntries(Object.entries(secret!.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    expect(decoded).to.deep.include({ name: body.name, owner: 'alice@example.com', userspace: 'alice', namespace: 'svc-alice', scope: 'full' });
    expect(JSON.stringify(decoded)).to.not.contain(body.token);
  });

  it("lists the caller's own tokens without plaintext, and nobody else's", async () => {
    await call(den, 'POST', '/tokens?name=one', { as: alice });
    await call(den, 'POST', '/tokens?name=two&scope=read', { as: alice });
    await call(den, 'POST', '/tokens?name=bobs', { as: bob });
    const res = await call(den, 'GET', '/tokens', { as: alice });
    expect(res.status).to.equal(200);
    expect(res.body.items.map((t: { name: string }) => t.name)).to.deep.equal(['one', 'two']);
    for (const item of res.body.items) expect(Object.keys(item).sort()).to.deep.equal(['created_at', 'name', 'namespace']);
  });

  it('authenticates a bearer token as its owner, without a CSRF token', async () => {
    const { body } = await call(den, 'POST', '/tokens', { as: alice });
    const session = await call(den, 'GET', '/session', { as: body.token });
    expect(session.body).to.deep.equal({ email: 'alice@example.com', userspace: 'alice', namespace: 'svc-alice', role: 'user', csrf_token: '', auth: 'token', token_name: body.name });
    expect((await call(den, 'POST', '/tokens?name=from-bearer', { as: body.token })).status).to.equal(201);
  });

  it('revokes a token with 204, refused at once afterwards', async () => {
    const { body } = await call(den, 'POST', '/tokens?name=short-lived', { as: alice });
    expect((await call(den, 'GET', '/workspaces', { as: body.token })).status).to.equal(200);
    expect((await call(den, 'DELETE', '/tokens/short-lived', { as: alice })).status).to.equal(204);
    expect(await call(den, 'GET', '/workspaces', { as: body.token })).to.deep.include({ status: 401, body: { error: 'invalid or revoked API token' } });
    expect(api.object(RESOURCES.secret, tokenSecretName(body.token), 'svc-system')).to.equal(undefined);
  });

  it("answers 404 for an unknown token name and for another person's token", async () => {
    await call(den, 'POST', '/tokens?name=bobs', { as: bob });
    expect(await call(den, 'DELETE', '/tokens/nope', { as: alice })).to.deep.include({ status: 404, body: { error: 'you have no API token named nope' } });
    expect((await call(den, 'DELETE', '/tokens/bobs', { as: alice })).status).to.equal(404);
    expect((await call(den, 'GET', '/tokens', { as: bob })).body.items).to.have.length(1);
  });

  it('answers 409 for a second token of the same name and 400 for a bad scope or name', async () => {
    await call(den, 'POST', '/tokens?name=ci', { as: alice });
    expect(await call(den, 'POST', '/tokens?name=ci', { as: alice })).to.deep.include({ status: 409, body: { error: 'a token named ci already exists' } });
    expect(await call(den, 'POST', '/tokens?scope=admin', { as: alice })).to.deep.include({ status: 400, body: { error: 'scope must be full or read' } });
    expect((await call(den, 'POST', '/tokens?name=Bad_Name', { as: alice })).status).to.equal(400);
    expect(await call(den, 'POST', '/tokens?expires=1h', { as: alice })).to.deep.include({ status: 400, body: { error: 'unknown field expires' } });
  });

  it('refuses a read-scoped token to issue or revoke tokens', async () => {
    const { body } = await call(den, 'POST', '/tokens?scope=read&name=reader', { as: alice });
    expect(await call(den, 'POST', '/tokens', { as: body.token })).to.deep.include({ status: 403, body: { error: 'a read-scoped API token cannot issue tokens' } });
    expect((await call(den, 'DELETE', '/tokens/reader', { as: body.token })).status).to.equal(403);
    expect((await call(den, 'GET', '/tokens', { as: body.token })).status).to.equal(200);
  });

  it("labels a token's Secret with its owner's hash and lists a person's tokens by that label, not everyone's", async () => {
    const { body } = await call(den, 'POST', '/tokens?name=ci', { as: alice });
    await call(den, 'POST', '/tokens?name=bobs', { as: bob });
    const secret = api.object<{ metadata: { labels: Record<string, string> } }>(RESOURCES.secret, tokenSecretName(body.token), 'svc-system');
    expect(secret?.metadata.labels[TOKEN_OWNER_LABEL]).to.equal(sha256Hex('alice@example.com').slice(0, 32));
    const from = api.requests.length;
    expect((await call(den, 'GET', '/tokens', { as: alice })).body.items.map((t: { name: string }) => t.name)).to.deep.equal(['ci']);
    const selectors = api.requests
      .slice(from)
      .filter((r) => r.method === 'GET' && r.path === '/api/v1/namespaces/svc-system/secrets')
      .map((r) => new URLSearchParams(r.query).get('labelSelector'));
    expect(selectors.sort()).to.deep.equal([`den.dev/kind=api-token,!${TOKEN_OWNER_LABEL}`, `den.dev/kind=api-token,${TOKEN_OWNER_LABEL}=${tokenOwnerHash('alice@example.com')}`]);
  });

  it('still lists and revokes, for its owner only, a token issued before tokens carried the owner label', async () => {
    const legacy = 'svc_' + 'a'.repeat(43);
    api.seed(renderStateSecret('svc-system', 'api-token', tokenSecretName(legacy), { name: 'old', owner: 'alice@example.com', userspace: 'alice', namespace: 'svc-alice', scope: 'full', created_at: '2026-01-01T00:00:00Z' }));
    await call(den, 'POST', '/tokens?name=new', { as: alice });
    expect((await call(den, 'GET', '/tokens', { as: alice })).body.items.map((t: { name: string }) => t.name)).to.deep.equal(['old', 'new']);
    expect((await call(den, 'GET', '/tokens', { as: bob })).body.items).to.deep.equal([]);
    expect((await call(den, 'DELETE', '/tokens/old', { as: bob })).status).to.equal(404);
    expect((await call(den, 'DELETE', '/tokens/old', { as: alice })).status).to.equal(204);
    expect(api.object(RESOURCES.secret, tokenSecretName(legacy), 'svc-system')).to.equal(undefined);
  });

  it('survives a restart: a token issued before works after', async () => {
    const { body } = await call(den, 'POST', '/tokens', { as: alice });
    await den.close();
    den = await startDen(api);
    expect((await call(den, 'GET', '/session', { as: body.token })).status).to.equal(200);
  });
});

describe('CSRF on cookie requests', () => {
  let api: FakeApiServer;
  let den: Den;
  let alice: Signed;

  beforeEach(async () => {
    ({ api, den, signed: { alice } } = await startSignedIn({ alice: {} }));
  });
  afterEach(() => stopAll(den, api));

  it('answers 403 to a mutating cookie request without X-CSRF-Token, changing nothing', async () => {
    const res = await call(den, 'POST', '/tokens', { as: alice, csrf: false });
    expect(res).to.deep.include({ status: 403, body: { error: 'missing X-CSRF-Token header: send the csrf_token from GET /api/v1/session' } });
    expect(api.objects(RESOURCES.secret, 'svc-system').filter((s) => s.metadata?.labels?.['den.dev/kind'] === 'api-token')).to.have.length(0);
  });

  it('answers 403 to a wrong X-CSRF-Token, including another session\'s token', async () => {
    const other = await login(den, 'alice', 'alice-password');
    expect(await call(den, 'POST', '/tokens', { as: alice, csrf: 'wrong' })).to.deep.include({ status: 403, body: { error: 'wrong X-CSRF-Token header: send the csrf_token from GET /api/v1/session' } });
    expect((await call(den, 'POST', '/logout', { as: alice, csrf: other.csrf })).status).to.equal(403);
    expect((await call(den, 'DELETE', '/tokens/x', { as: alice, csrf: false })).status).to.equal(403);
  });

  it('lets the right token through, and needs none for GET', async () => {
    expect((await call(den, 'POST', '/tokens', { as: alice })).status).to.equal(201);
    expect((await call(den, 'GET', '/tokens', { as: alice, csrf: false })).status).to.equal(200);
    const { body } = await call(den, 'GET', '/session', { as: alice, csrf: false });
    expect((await call(den, 'POST', '/logout', { as: alice, csrf: body.csrf_token })).status).to.equal(204);
  });
});
