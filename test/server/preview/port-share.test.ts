// Sharing a port (docs/preview.md "Sharing a port"): alice writes who may open a port of her
// workspace with REST; the host-based preview serves it, as alice's own identity, to the people
// the share admits, sends an anonymous browser to sign in, and leaves everyone else to the
// cluster. Public ports only where the install allows them; no share at all in path mode.
import { expect } from 'chai';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, call, login, startCluster, startDen, type Den, type Signed } from '../core/cluster.js';
import { APP_PORT, podWithApps, seedRunningWorkspace, type PodWithApps } from './world.js';

const BASE_URL = 'http://den.test';
const DOMAIN = 'apps.test';
const APP = `${APP_PORT}--dev--alice.${DOMAIN}`;
const SHARE = `/workspaces/dev/ports/${APP_PORT}/share`;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function ask(den: Den, host: string, path: string, opts: { cookie?: string; method?: string; body?: string } = {}): Promise<Answer> {
  const url = new URL(den.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method: opts.method ?? 'GET', headers: { Host: host, ...(opts.cookie ? { Cookie: opts.cookie } : {}) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The app cookie of `host` for `as`, the way a browser gets it: Den's /apps/open, then the ticket on the app host. */
async function appCookie(den: Den, as: Signed, host: string): Promise<string> {
  const open = await ask(den, 'den.test', `/apps/open?${new URLSearchParams({ host, path: '/' })}`, { cookie: as.cookie });
  expect(open.status, open.text).to.equal(302);
  const ticket = new URL(open.headers.location!);
  const redeemed = await ask(den, host, ticket.pathname + ticket.search);
  expect(redeemed.status).to.equal(303);
  return (redeemed.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
}

describe('sharing a port of a workspace (host-based previews)', function () {
  this.timeout(30_000);
  let api: FakeApiServer;
  let pod: PodWithApps;
  let home: string;
  let den: Den;
  let open: Den;
  let pathOnly: Den;
  let alice: Signed;
  let bob: Signed;
  let carol: Signed;

  const forwardsBy = () => api.requests.filter((r) => r.path === '/api/v1/namespaces/svc-alice/pods/dev-0/portforward').map((r) => r.user);

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'den-port-share-'));
    api = await startCluster();
    for (const p of ['alice', 'bob', 'carol']) await addPerson(api, p);
    seedRunningWorkspace(api, 'dev', 'svc-alice');
    pod = await podWithApps(api, home);
    // No share is remembered between requests here, so a change shows at once.
    const limits = { targetCacheMs: 0 };
    den = await startDen(api, { baseUrl: BASE_URL, appsDomain: DOMAIN, previewLimits: limits });
    open = await startDen(api, { baseUrl: BASE_URL, appsDomain: DOMAIN, allowPublicPorts: true, previewLimits: limits });
    pathOnly = await startDen(api, { baseUrl: BASE_URL });
    alice = await login(den, 'alice', 'alice-password');
    bob = await login(den, 'bob', 'bob-password');
    carol = await login(den, 'carol', 'carol-password');
  });
  after(async () => {
    await den.close();
    await open.close();
    await pathOnly.close();
    await pod.close();
    await api.close();
    await rm(home, { recursive: true, force: true });
  });
  afterEach(async () => {
    await call(den, 'PUT', SHARE, { as: alice, body: { level: 'owner' } });
  });

  it('serves a port shared with signed-in people to bob, as alice, and sends an anonymous browser to sign in', async () => {
    const shared = await call(den, 'PUT', SHARE, { as: alice, body: { level: 'authenticated' } });
    expect(shared.status, JSON.stringify(shared.body)).to.equal(200);
    expect(shared.body).to.deep.equal({ workspace: 'dev', port: APP_PORT, level: 'authenticated', people: [], app_url: `http://${APP}/` });
    const stored = await call(den, 'GET', '/workspaces/dev', { as: alice });
    expect(stored.body.spec.sharedPorts).to.deep.equal([{ port: APP_PORT, level: 'authenticated' }]);
    const apps = await call(den, 'GET', '/workspaces/dev/apps', { as: alice });
    expect(apps.body.shared_ports).to.deep.equal([{ port: APP_PORT, level: 'authenticated', people: [] }]);
    const events = await call(den, 'GET', '/workspaces/dev/events', { as: alice });
    expect(events.body.items.map((e: { message: string }) => e.message)).to.include(`Port ${APP_PORT} shared with every signed-in person of this Den by alice.`);

    const cookie = await appCookie(den, bob, APP);
    const before = pod.apps.seen.length;
    const served = await ask(den, APP, '/echo?from=bob', { cookie });
    expect(served.status, served.text).to.equal(200);
    expect(JSON.parse(served.text).url).to.equal('/echo?from=bob');
    expect(pod.apps.seen.length).to.equal(before + 1);
    expect(forwardsBy().at(-1)).to.equal('system:serviceaccount:svc-alice:session');

    const anonymous = await ask(den, APP, '/echo');
    expect(anonymous.status).to.equal(302);
    expect(anonymous.headers.location).to.equal(`${BASE_URL}/apps/open?host=${APP}&path=%2Fecho`);
    const signIn = await ask(den, 'den.test', new URL(anonymous.headers.location!).pathname + new URL(anonymous.headers.location!).search);
    expect(signIn.status).to.equal(302);
    expect(signIn.headers.location).to.match(/^\/login\?next=/);
    const post = await ask(den, APP, '/echo', { method: 'POST', body: 'x' });
    expect(post.status).to.equal(401);
    expect(post.text).to.include('open the app from Den first');
    expect(pod.apps.seen.length).to.equal(before + 1);
  });

  it('serves a port shared with named people to them only; anyone else gets the cluster\'s refusal in words', async () => {
    const shared = await call(den, 'PUT', SHARE, { as: alice, body: { level: 'people', people: ['carol'] } });
    expect(shared.status, JSON.stringify(shared.body)).to.equal(200);
    expect(shared.body.people).to.deep.equal(['carol']);
    const forCarol = await ask(den, APP, '/echo', { cookie: await appCookie(den, carol, APP) });
    expect(forCarol.status, forCarol.text).to.equal(200);
    const before = pod.apps.seen.length;
    const forBob = await ask(den, APP, '/echo', { cookie: await appCookie(den, bob, APP) });
    expect(forBob.status).to.equal(403);
    expect(forBob.text).to.include('system:serviceaccount:svc-bob:session');
    expect(forBob.text).to.include('cannot get resource &quot;workspaces&quot;');
    expect(pod.apps.seen.length).to.equal(before);
  });

  it('stops serving bob once alice makes the port hers alone again', async () => {
    await call(den, 'PUT', SHARE, { as: alice, body: { level: 'authenticated' } });
    const cookie = await appCookie(den, bob, APP);
    expect((await ask(den, APP, '/echo', { cookie })).status).to.equal(200);
    const back = await call(den, 'PUT', SHARE, { as: alice, body: { level: 'owner' } });
    expect(back.body.level).to.equal('owner');
    expect((await call(den, 'GET', '/workspaces/dev', { as: alice })).body.spec.sharedPorts).to.deep.equal([]);
    expect((await ask(den, APP, '/echo', { cookie })).status).to.equal(403);
  });

  it("serves every port of a workspace shared with bob as a whole (docs/sharing.md) to bob, as bob, and stops once the share is removed", async () => {
    const shared = await call(den, 'PUT', '/workspaces/dev/shares/bob', { as: alice });
    expect(shared.status, JSON.stringify(shared.body)).to.equal(201);
    try {
      const cookie = await appCookie(den, bob, APP);
      const served = await ask(den, APP, '/echo?from=guest', { cookie });
      expect(served.status, served.text).to.equal(200);
      expect(JSON.parse(served.text).url).to.equal('/echo?from=guest');
      expect(forwardsBy().at(-1), "the guest's own identity: the share grants his port forward").to.equal('system:serviceaccount:svc-bob:session');
      expect((await call(den, 'DELETE', '/workspaces/dev/shares/bob', { as: alice })).status).to.equal(204);
      const after = await ask(den, APP, '/echo', { cookie });
      expect(after.status).to.equal(403);
      expect(after.text).to.include('system:serviceaccount:svc-bob:session');
    } finally {
      await call(den, 'DELETE', '/workspaces/dev/shares/bob', { as: alice });
    }
  });

  it('refuses a public share where the install does not allow it, naming the setting, and serves one to anyone where it does', async () => {
    const refused = await call(den, 'PUT', SHARE, { as: alice, body: { level: 'public' } });
    expect(refused.status).to.equal(400);
    expect(refused.body.error).to.equal('level: public ports are not allowed on this Den: an administrator must set server.apps.allowPublicPorts: true in the install configuration');
    const shared = await call(open, 'PUT', SHARE, { as: alice, body: { level: 'public' } });
    expect(shared.status, JSON.stringify(shared.body)).to.equal(200);
    const anyone = await ask(open, APP, '/echo?from=anyone');
    expect(anyone.status, anyone.text).to.equal(200);
    expect(JSON.parse(anyone.text).url).to.equal('/echo?from=anyone');
    expect(forwardsBy().at(-1)).to.equal('system:serviceaccount:svc-alice:session');
    // A replica that does not allow public ports serves the same share to signed-in people only.
    expect((await ask(den, APP, '/echo')).status).to.equal(302);
    expect((await ask(den, APP, '/echo', { cookie: await appCookie(den, bob, APP) })).status).to.equal(200);
  });

  it('refuses every share but the owner in path mode, saying why', async () => {
    const refused = await call(pathOnly, 'PUT', SHARE, { as: alice, body: { level: 'authenticated' } });
    expect(refused.status).to.equal(400);
    expect(refused.body.error).to.include('path-based previews, on Den\'s own origin, serve only the owner');
    expect((await call(pathOnly, 'PUT', SHARE, { as: alice, body: { level: 'owner' } })).status).to.equal(200);
  });

  it('refuses bad requests naming the field, and bob sharing alice\'s port in the cluster\'s words', async () => {
    const cases: [unknown, string][] = [
      [{ level: 'everyone' }, 'level: must be one of owner, authenticated, people, public'],
      [{ level: 'people' }, 'people: name at least one person (their Den user name) to share with'],
      [{ level: 'people', people: ['Not A Name'] }, 'people: "Not A Name" is not a Den user name (lower-case letters, digits and -)'],
      [{ level: 'authenticated', people: ['bob'] }, 'people: people go with level people, not authenticated'],
      [{ level: 'owner', colour: 'red' }, 'colour: unknown field; send level and, for level people, people'],
    ];
    for (const [body, error] of cases) {
      const answer = await call(den, 'PUT', SHARE, { as: alice, body });
      expect(answer.status, JSON.stringify(body)).to.equal(400);
      expect(answer.body.error).to.equal(error);
    }
    const badPort = await call(den, 'PUT', '/workspaces/dev/ports/70000/share', { as: alice, body: { level: 'owner' } });
    expect(badPort.status).to.equal(400);
    expect(badPort.body.error).to.equal('port: must be a TCP port, 1 to 65535');
    const byBob = await call(den, 'PUT', `${SHARE}?namespace=svc-alice`, { as: bob, body: { level: 'authenticated' } });
    expect(byBob.status).to.equal(403);
    expect(byBob.body.error).to.include('system:serviceaccount:svc-bob:session');
  });
});
