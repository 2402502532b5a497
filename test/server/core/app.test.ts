// The app's own limits and plumbing: body size, JSON only, headers, health, readiness.
import http from 'node:http';
import { expect } from 'chai';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { doc, expectDocumented } from '../api/openapi-check.js';
import { call, login, startDen, startSignedIn, stopAll, type Den, type Signed } from './cluster.js';

const MIB = 1024 * 1024;

/** A raw request, so the body can be streamed without a Content-Length. */
function rawRequest(url: string, opts: { method: string; headers: Record<string, string>; chunks: Buffer[] }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method, headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    for (const c of opts.chunks) req.write(c);
    req.end();
  });
}

describe('the REST app', () => {
  let api: FakeApiServer;
  let den: Den;
  let alice: Signed;

  beforeEach(async () => {
    ({ api, den, signed: { alice } } = await startSignedIn({ alice: {} }));
  });
  afterEach(() => stopAll(den, api));

  it('answers 413 {error} to a body declared larger than 1 MiB, before authentication', async () => {
    const res = await fetch(`${den.api}/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'a', password: 'x'.repeat(MIB) }) });
    expect(res.status).to.equal(413);
    const body = await res.json();
    expect(body).to.deep.equal({ error: 'request body is larger than 1048576 bytes' });
    expectDocumented('POST', '/login', { status: res.status, body });
  });

  it('answers 413 {error} to a streamed body that grows past 1 MiB', async () => {
    const chunk = Buffer.alloc(256 * 1024, 'a');
    const res = await rawRequest(`${den.api}/login`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }, chunks: [chunk, chunk, chunk, chunk, chunk] });
    expect(res.status).to.equal(413);
    expect(JSON.parse(res.body)).to.deep.equal({ error: 'request body is larger than 1048576 bytes' });
  });

  it('accepts a body just under the limit', async () => {
    const password = 'x'.repeat(MIB - 100);
    const res = await call(den, 'POST', '/login', { body: { username: 'alice', password } });
    expect(res).to.deep.include({ status: 400, body: { error: 'password must be at most 1024 characters' } });
  });

  it('answers 415 to a body that is not JSON and 400 to malformed JSON', async () => {
    const form = await fetch(`${den.api}/login`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'username=alice&password=x' });
    expect(form.status).to.equal(415);
    const refused = await form.json();
    expect(refused).to.deep.equal({ error: 'request body must be JSON (Content-Type: application/json)' });
    expectDocumented('POST', '/login', { status: form.status, body: refused });
    const broken = await fetch(`${den.api}/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"username": ' });
    expect(broken.status).to.equal(400);
    expect(await broken.json()).to.deep.equal({ error: 'request body is not valid JSON' });
    expect((await call(den, 'POST', '/login', { body: ['alice'] })).body).to.deep.equal({ error: 'the request body must be a JSON object' });
  });

  it('sets security headers and no-store on API answers, errors included', async () => {
    for (const res of [await fetch(`${den.api}/session`), await fetch(`${den.api}/session`, { headers: { Cookie: alice.cookie } })]) {
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('x-frame-options')).to.equal('DENY');
      expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.headers.get('content-security-policy')).to.equal("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('strict-transport-security')).to.equal(null);
    }
  });

  it('answers 401 {error} to every authenticated operation without a credential, with a malformed one and with an unknown token', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => !(Array.isArray(op.security) && op.security.length === 0))
        .map(([method]) => [method.toUpperCase(), path.replace(/\{\w+\}/g, 'x')] as const),
    );
    expect(operations).to.have.length(56);
    const before = api.requests.length;
    for (const [method, path] of operations) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      const credentials: Record<string, string>[] = [{}, { Authorization: 'Basic YWxpY2U6eA==' }, { Authorization: `Bearer svc_${'A'.repeat(43)}` }, { Cookie: 'svc_session=short' }];
      for (const headers of credentials) {
        const res = await call(den, method, path, { headers, body });
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).to.equal(401);
        expect(res.body.error).to.be.a('string').and.not.equal('');
      }
    }
    // Only the unknown well-formed token is looked up in the cluster (the cache-miss read), and nothing is minted or written.
    expect(api.requests.slice(before).every((r) => r.method === 'GET' && r.path.includes('/secrets/api-token-'))).to.equal(true);
  });

  it('logs failed requests without any password, session id, CSRF token or API token', async () => {
    const logged: string[] = [];
    const logging = await startDen(api, { log: (msg, fields) => void logged.push(JSON.stringify({ msg, ...fields })) });
    try {
      const signed = await login(logging, 'alice', 'alice-password');
      const { body } = await call(logging, 'POST', '/tokens', { as: signed });
      api.failNext('GET', /\/workspaces$/, 500, { message: 'etcdserver: request timed out' }, 2);
      expect((await call(logging, 'GET', '/workspaces', { as: signed })).status).to.equal(502);
      expect((await call(logging, 'GET', '/workspaces?namespace=svc-alice', { as: body.token })).status).to.equal(502);
      api.failNext('DELETE', /persistentvolumeclaims/, 500, { message: 'etcdserver: leader changed' });
      api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev', namespace: 'svc-alice' }, spec: { imageRef: { name: 'python' }, storage: '1Gi' } });
      api.seed({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'home-dev-0', namespace: 'svc-alice' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
      expect((await call(logging, 'DELETE', '/workspaces/dev', { as: body.token })).status).to.equal(409);
      // Besides the audit lines of the sign-in and the token (checked for secrets below too).
      expect(logged.filter((l) => !l.startsWith('{"msg":"audit"')).length, 'two failed lists and the volume left behind').to.equal(3);
      const text = logged.join('\n');
      for (const secret of ['alice-password', signed.cookie.split('=')[1]!, signed.csrf, body.token as string]) expect(text).to.not.contain(secret);
    } finally {
      await logging.close();
    }
  });

  it('answers an unknown API path with 404 {error} once authenticated', async () => {
    expect(await call(den, 'GET', '/nothing-here', { as: alice })).to.deep.include({ status: 404, body: { error: 'no route for GET /api/v1/nothing-here' } });
  });

  it('serves /healthz and the OpenAPI description without authentication', async () => {
    const health = await fetch(`${den.url}/healthz`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.deep.equal({ status: 'ok' });
    const openapi = await fetch(`${den.api}/openapi.json`);
    expect(openapi.status).to.equal(200);
    expect(((await openapi.json()) as { info: { version: string } }).info.version).to.equal('v1alpha1');
  });

  it('answers /readyz and every API call with 503 until its caches are loaded', async () => {
    let ready = false;
    const starting = await startDen(api, { ready: () => ready });
    const { url } = starting;
    try {
      const notReady = await fetch(`${url}/readyz`);
      expect(notReady.status).to.equal(503);
      expect(await notReady.json()).to.deep.equal({ error: 'not ready: caches are still loading' });
      const early = await fetch(`${url}/api/v1/session`, { headers: { Cookie: alice.cookie } });
      expect(early.status).to.equal(503);
      const body = await early.json();
      expect(body).to.deep.equal({ error: 'the server is starting; retry shortly' });
      expectDocumented('GET', '/session', { status: early.status, body });
      ready = true;
      expect((await fetch(`${url}/readyz`)).status).to.equal(200);
      expect((await fetch(`${url}/healthz`)).status).to.equal(200);
    } finally {
      await starting.close();
    }
  });
});
