import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, call, login, startCluster, startDen, until, type Den, type Signed } from '../core/cluster.js';
import { APP_PORT, CLOSED_PORT, podWithApps, seedRunningWorkspace, WS_PORT, type PodWithApps } from './world.js';

const BASE_URL = 'http://den.test';
const PREVIEW = `/w/dev/ports/${APP_PORT}`;

interface World {
  api: FakeApiServer;
  den: Den;
  pod: PodWithApps;
  alice: Signed;
  bob: Signed;
  home: string;
}

async function get(world: World, path: string, opts: { as?: Signed; cookie?: string; headers?: Record<string, string>; method?: string; body?: string } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  const cookie = [opts.as?.cookie, opts.cookie].filter(Boolean).join('; ');
  if (cookie) headers.Cookie = cookie;
  const res = await fetch(`${world.den.url}${path}`, { method: opts.method ?? 'GET', headers, body: opts.body, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A websocket to a preview as a browser on Den's origin would open it (or with what a test changes). */
function openSocket(world: World, path: string, headers: Record<string, string>): Promise<{ ws: WebSocket; first: any } | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${world.den.url.replace(/^http/, 'ws')}${path}`, { headers });
    ws.once('message', (data) => resolve({ ws, first: JSON.parse(String(data)) }));
    ws.on('error', () => undefined);
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('close', () => reject(new Error('closed before anything was said')));
  });
}

describe('port preview through Den (/w/{name}/ports/{port}/…)', function () {
  this.timeout(30_000);
  let world: World;

  before(async () => {
    const home = await mkdtemp(join(tmpdir(), 'den-preview-'));
    const api = await startCluster();
    await addPerson(api, 'alice');
    await addPerson(api, 'bob');
    seedRunningWorkspace(api, 'dev', 'svc-alice');
    const pod = await podWithApps(api, home);
    const den = await startDen(api, { baseUrl: BASE_URL, previewLimits: { bodyBytes: 4096 } });
    world = { api, den, pod, home, alice: await login(den, 'alice', 'alice-password'), bob: await login(den, 'bob', 'bob-password') };
  });
  after(async () => {
    await world.den.close();
    await world.pod.close();
    await world.api.close();
    await rm(world.home, { recursive: true, force: true });
  });

  it("serves the app's page from localhost:<port> in the pod, through a port forward opened with the person's own token", async () => {
    const page = await get(world, `${PREVIEW}/`, { as: world.alice });
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.equal('text/html');
    expect(page.text).to.include('<script src="app.js"></script>');
    const forward = world.api.requests.filter((r) => r.path === '/api/v1/namespaces/svc-alice/pods/dev-0/portforward').at(-1);
    expect(forward?.user).to.equal('system:serviceaccount:svc-alice:session');
    expect(forward?.query).to.include(`ports=${APP_PORT}`);
    expect(world.pod.exec.forwards.at(-1)).to.deep.include({ namespace: 'svc-alice', pod: 'dev-0', ports: [APP_PORT] });
  });

  it('strips the prefix, keeps the query, and tells the app the prefix, host and protocol it is served under', async () => {
    const answer = await get(world, `${PREVIEW}/echo?q=1&r=two`, { as: world.alice, headers: { 'X-Forwarded-Prefix': '/forged' } });
    const seen = JSON.parse(answer.text);
    expect(seen.url).to.equal('/echo?q=1&r=two');
    expect(seen.headers['x-forwarded-prefix']).to.equal(PREVIEW);
    expect(seen.headers['x-forwarded-proto']).to.equal('http');
    expect(seen.headers['x-forwarded-host']).to.match(/^127\.0\.0\.1:\d+$/);
  });

  it("never passes Den's cookies, CSRF header or API token to the app, and keeps the app's own cookies", async () => {
    const token = (await call(world.den, 'POST', '/tokens', { as: world.alice })).body.token as string;
    const byCookie = JSON.parse((await get(world, `${PREVIEW}/echo`, { as: world.alice, cookie: 'app_choice=blue; svc_notice=x', headers: { 'X-CSRF-Token': world.alice.csrf } })).text);
    expect(byCookie.headers.cookie).to.equal('app_choice=blue');
    expect(byCookie.headers).not.to.have.property('x-csrf-token');
    const byToken = JSON.parse((await get(world, `${PREVIEW}/echo`, { headers: { Authorization: `Bearer ${token}` } })).text);
    expect(byToken.headers).not.to.have.property('authorization');
    expect(byToken.headers).not.to.have.property('cookie');
    expect(JSON.stringify(world.pod.apps.seen)).not.to.include(world.alice.cookie.split('=')[1]!);
    expect(JSON.stringify(world.pod.apps.seen)).not.to.include(token);
  });

  it("confines the app's cookies to the preview's path, drops cookies named like Den's and headers that reach past the preview", async () => {
    const answer = await get(world, `${PREVIEW}/set-cookies`, { as: world.alice });
    expect(answer.status).to.equal(200);
    expect(answer.headers.getSetCookie()).to.deep.equal([`app_choice=blue; Path=${PREVIEW}/`, `wide=1; Path=${PREVIEW}/settings`]);
    expect(answer.headers.get('clear-site-data')).to.equal(null);
    expect(answer.headers.get('service-worker-allowed')).to.equal(null);
  });

  it("keeps the app's redirects to its own root inside the preview", async () => {
    const answer = await get(world, `${PREVIEW}/go-home`, { as: world.alice });
    expect(answer.status).to.equal(302);
    expect(answer.headers.get('location')).to.equal(`${PREVIEW}/login?from=app`);
  });

  it('redirects the bare prefix to the prefix with a slash, so relative links resolve', async () => {
    const answer = await get(world, `${PREVIEW}?x=1`, { as: world.alice });
    expect(answer.status).to.equal(308);
    expect(answer.headers.get('location')).to.equal(`${PREVIEW}/?x=1`);
  });

  it('sends a stranger to the sign-in page (a GET) or refuses them (anything else), reaching no app', async () => {
    const before = world.pod.apps.seen.length;
    const page = await get(world, `${PREVIEW}/echo`);
    expect(page.status).to.equal(302);
    expect(page.headers.get('location')).to.equal(`/login?next=${encodeURIComponent(`${PREVIEW}/echo`)}`);
    const post = await get(world, `${PREVIEW}/echo`, { method: 'POST', body: 'x' });
    expect(post.status).to.equal(401);
    expect(post.headers.get('content-type')).to.match(/^text\/html/);
    expect(world.pod.apps.seen.length).to.equal(before);
  });

  it('passes request bodies on, refuses one above the limit (413) and a cookie-carried POST from another origin (403)', async () => {
    const ok = await get(world, `${PREVIEW}/echo`, { as: world.alice, method: 'POST', body: 'x'.repeat(1000), headers: { Origin: BASE_URL, 'Content-Type': 'text/plain' } });
    expect(JSON.parse(ok.text)).to.include({ method: 'POST', bodyBytes: 1000 });
    const big = await get(world, `${PREVIEW}/echo`, { as: world.alice, method: 'POST', body: 'x'.repeat(5000), headers: { Origin: BASE_URL } });
    expect(big.status).to.equal(413);
    expect(big.text).to.include('larger than the preview&#39;s limit of 4096 bytes');
    const foreign = await get(world, `${PREVIEW}/echo`, { as: world.alice, method: 'POST', body: 'x', headers: { Origin: 'https://evil.example' } });
    expect(foreign.status).to.equal(403);
    expect(foreign.text).to.include('may only come from a page of http://den.test');
  });

  it('says in words when nothing listens on the port', async () => {
    const answer = await get(world, `/w/dev/ports/${CLOSED_PORT}/`, { as: world.alice });
    expect(answer.status).to.equal(502);
    expect(answer.text).to.include(`nothing answered on port ${CLOSED_PORT} of workspace dev`);
    expect(answer.text).to.include(`Is a server listening on port ${CLOSED_PORT} inside the workspace?`);
  });

  it("shows the cluster's own refusal of the port forward as a page (a read-scoped token may not open one)", async () => {
    const token = (await call(world.den, 'POST', '/tokens?scope=read', { as: world.alice })).body.token as string;
    const before = world.pod.apps.seen.length;
    const answer = await get(world, `${PREVIEW}/`, { headers: { Authorization: `Bearer ${token}` } });
    expect(answer.status).to.equal(403);
    expect(answer.headers.get('content-type')).to.match(/^text\/html/);
    expect(answer.text).to.include('the cluster refused the port forward to port 3000 of workspace dev');
    expect(answer.text).to.include('system:serviceaccount:svc-alice:session-readonly');
    expect(answer.text).to.include('pods/portforward');
    expect(world.pod.apps.seen.length).to.equal(before);
  });

  it("reaches only the viewer's own workspaces: another person's address names none of theirs (404), nothing reaches the app", async () => {
    const before = world.pod.apps.seen.length;
    const answer = await get(world, `${PREVIEW}/`, { as: world.bob });
    expect(answer.status).to.equal(404);
    expect(answer.text).to.include('you have no workspace named dev');
    expect(world.api.requests.filter((r) => r.path.endsWith('/portforward') && r.user.includes('svc-bob'))).to.have.length(0);
    expect(world.pod.apps.seen.length).to.equal(before);
  });

  it('relays a websocket app both ways, without Den\'s cookie, with the prefix stripped', async () => {
    const opened = await openSocket(world, `/w/dev/ports/${WS_PORT}/socket?room=1`, { Cookie: `${world.alice.cookie}; app=1`, Origin: BASE_URL });
    if (!('ws' in opened)) throw new Error(`refused: ${opened.status} ${opened.body}`);
    expect(opened.first).to.deep.equal({ path: '/socket?room=1', cookie: 'app=1', origin: BASE_URL, prefix: `/w/dev/ports/${WS_PORT}` });
    const echoed = new Promise((resolve) => opened.ws.once('message', (d) => resolve(String(d))));
    opened.ws.send('ping');
    expect(await echoed).to.equal('echo: ping');
    opened.ws.close();
    await until(() => world.den.previews.openTunnels('alice@example.com') === 0, 'the tunnel to close', 5000);
  });

  it('refuses a websocket from another origin (403) or without a session (401), before any port forward', async () => {
    const forwards = world.pod.exec.forwards.length;
    const foreign = await openSocket(world, `/w/dev/ports/${WS_PORT}/socket`, { Cookie: world.alice.cookie, Origin: 'https://evil.example' });
    expect(foreign).to.deep.include({ status: 403 });
    expect(JSON.parse((foreign as { body: string }).body).error).to.equal('a preview websocket may only be opened from a page of http://den.test');
    const stranger = await openSocket(world, `/w/dev/ports/${WS_PORT}/socket`, { Origin: BASE_URL });
    expect(stranger).to.deep.include({ status: 401 });
    expect(world.pod.exec.forwards.length).to.equal(forwards);
  });
});
