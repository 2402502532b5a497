// Port preview as it runs: the real `den server` processes (two replicas behind the round-robin
// proxy, as behind their Service) serving `/w/<workspace>/ports/<port>/…` through pods/portforward
// of the fake API server to an HTTP app and a websocket app listening on this machine, which is
// the workspace pod of the local platform. Either replica serves the same person the same app.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { WebSocket, WebSocketServer } from 'ws';
import { RESOURCES } from '../../kube/resources.js';
import { eventually, LocalPlatform, runDen } from '../support/platform.js';
import { KEY } from '../server/api/support.js';
import { Rest, type Session } from './rest.js';

const PASSWORD = 'preview through two replicas';

/** A GET to `base` as a browser at `host` sends it (fetch cannot set Host). */
function getAt(base: string, host: string, path: string, cookie?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: url.hostname, port: url.port, path, headers: { Host: host, ...(cookie ? { Cookie: cookie } : {}) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
  });
}

describe('port preview through two den server replicas', function () {
  this.timeout(60_000);
  const platform = new LocalPlatform({ appsDomain: 'apps.test' });
  const seenCookies: (string | null)[] = [];
  let app: http.Server;
  let echo: http.Server;
  let alice: Session;
  let bob: Session;

  async function addPerson(name: string, opts: { admin?: boolean } = {}): Promise<void> {
    const result = await runDen(['users', 'add', name, '--owner', `${name}@example.com`, '--password-stdin', '--kubeconfig', platform.kubeconfig, ...(opts.admin ? ['--admin'] : [])], { stdin: PASSWORD });
    expect(result.code, result.stderr).to.equal(0);
    await eventually(async () => (await platform.admin.get<any>(RESOURCES.userSpace, name)).status?.phase === 'Ready', `UserSpace ${name} Ready`, platform.convergeMs);
  }

  before(async function () {
    this.timeout(120_000);
    platform.suffix = 'pv';
    app = http.createServer((req, res) => {
      seenCookies.push(req.headers.cookie ?? null);
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end(`app at ${req.url} under ${req.headers['x-forwarded-prefix']}`);
    });
    const wss = new WebSocketServer({ noServer: true });
    echo = http.createServer();
    echo.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => ws.on('message', (d) => ws.send(`echo: ${String(d)}`))));
    await Promise.all([new Promise<void>((r) => app.listen(0, '127.0.0.1', r)), new Promise<void>((r) => echo.listen(0, '127.0.0.1', r))]);
    await platform.start();
    try {
      await addPerson('root', { admin: true });
      await addPerson('alice');
      await addPerson('bob');
      const rest = new Rest(platform.baseUrl);
      const root = await rest.login('root', PASSWORD);
      const entry = await rest.call('POST', '/workspace-images', { body: { name: 'web', image: platform.workspaceImage }, as: { session: root } });
      expect(entry.status, JSON.stringify(entry.body)).to.equal(201);
      alice = await rest.login('alice', PASSWORD);
      bob = await rest.login('bob', PASSWORD);
      const created = await rest.call('POST', '/workspaces', { body: { name: 'dev', image: 'web', storage: '1Gi', ssh_public_key: KEY }, as: { session: alice } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      await eventually(async () => (await rest.call('GET', '/workspaces/dev', { as: { session: alice } })).body.status?.phase === 'Running', 'workspace dev Running', platform.convergeMs);
    } catch (err) {
      if (err instanceof Error) err.message += `\n--- what the platform said ---\n${await platform.diagnostics()}`;
      throw err;
    }
  });

  after(async function () {
    this.timeout(30_000);
    await platform.stop();
    app.closeAllConnections();
    echo.closeAllConnections();
    await Promise.all([new Promise((r) => app.close(r)), new Promise((r) => echo.close(r))]);
  });

  it("serves the person's app from either replica and through the proxy, never passing Den's cookie", async () => {
    const port = (app.address() as AddressInfo).port;
    for (const base of [...platform.servers.map((s) => s.url), platform.baseUrl, platform.baseUrl]) {
      const res = await fetch(`${base}/w/dev/ports/${port}/hello?x=1`, { headers: { Cookie: `${alice.cookie}; theme=dark` }, redirect: 'manual' });
      expect(res.status, base).to.equal(200);
      expect(await res.text()).to.equal(`app at /hello?x=1 under /w/dev/ports/${port}`);
    }
    expect(seenCookies).to.have.length(4);
    expect(new Set(seenCookies)).to.deep.equal(new Set(['theme=dark']));
  });

  it('relays websockets through the proxy to both replicas alike', async () => {
    const port = (echo.address() as AddressInfo).port;
    const said: string[] = [];
    for (let i = 0; i < 2; i++) {
      const ws = new WebSocket(`${platform.baseUrl.replace(/^http/, 'ws')}/w/dev/ports/${port}/socket`, { headers: { Cookie: alice.cookie, Origin: platform.baseUrl } });
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      const answer = new Promise<string>((resolve) => ws.once('message', (d) => resolve(String(d))));
      ws.send(`hello ${i}`);
      said.push(await answer);
      ws.close();
    }
    expect(said).to.deep.equal(['echo: hello 0', 'echo: hello 1']);
  });

  it('gives a session signed out on one replica no byte of the app\'s answer on the other, at once: the sign-in page instead', async () => {
    const port = (app.address() as AddressInfo).port;
    const [first, second] = platform.servers.map((s) => s.url);
    const session = await new Rest(first!).login('alice', PASSWORD);
    // The second replica knows the session (its cache may hold it: the check runs beside the relay).
    const warm = await fetch(`${second}/w/dev/ports/${port}/warm`, { headers: { Cookie: session.cookie }, redirect: 'manual' });
    expect(warm.status).to.equal(200);
    const out = await fetch(`${first}/api/v1/logout`, { method: 'POST', headers: { Cookie: session.cookie, 'X-CSRF-Token': session.csrf } });
    expect(out.status).to.equal(204);
    const marker = `for-a-live-session-only-${Date.now()}`;
    const after = await fetch(`${second}/w/dev/ports/${port}/${marker}`, { headers: { Cookie: session.cookie }, redirect: 'manual' });
    expect(after.status).to.equal(302);
    expect(after.headers.get('location')).to.equal(`/login?next=${encodeURIComponent(`/w/dev/ports/${port}/${marker}`)}`);
    expect(await after.text()).not.to.include(marker);
  });

  it("gives another person a page in words at the same address, on either replica, and the app sees nothing", async () => {
    const port = (app.address() as AddressInfo).port;
    const before = seenCookies.length;
    for (const base of platform.servers.map((s) => s.url)) {
      const res = await fetch(`${base}/w/dev/ports/${port}/`, { headers: { Cookie: bob.cookie }, redirect: 'manual' });
      expect(res.status, base).to.equal(404);
      expect(await res.text()).to.include('you have no workspace named dev');
    }
    expect(seenCookies.length).to.equal(before);
  });

  it('serves an app host-based with a ticket minted on one replica and redeemed on the other, and refuses another person in words', async () => {
    const port = (app.address() as AddressInfo).port;
    const host = `${port}--dev--alice.apps.test`;
    const [first, second] = platform.servers.map((s) => s.url);
    const open = await getAt(first!, '127.0.0.1', `/apps/open?host=${host}&path=%2Fhello`, alice.cookie);
    expect(open.status, open.text).to.equal(302);
    const ticket = new URL(open.headers.location!);
    expect(ticket.host).to.equal(`${host}:${new URL(platform.baseUrl).port}`);
    const redeemed = await getAt(second!, host, ticket.pathname + ticket.search);
    expect(redeemed.status, redeemed.text).to.equal(303);
    expect(redeemed.headers.location).to.equal('/hello');
    const cookie = redeemed.headers['set-cookie']![0]!.split(';')[0]!;
    const before = seenCookies.length;
    for (const base of [first!, second!, platform.baseUrl]) {
      const answer = await getAt(base, host, '/hello', `${cookie}; ${alice.cookie}; theme=dark`);
      expect(answer.status, base).to.equal(200);
      expect(answer.text).to.equal('app at /hello under undefined');
    }
    expect(seenCookies.slice(before)).to.deep.equal(['theme=dark', 'theme=dark', 'theme=dark']);
    expect((await getAt(first!, host, ticket.pathname + ticket.search)).status, 'a used ticket').to.equal(403);

    const bobOpen = await getAt(second!, '127.0.0.1', `/apps/open?host=${host}&path=%2F`, bob.cookie);
    const bobTicket = new URL(bobOpen.headers.location!);
    const bobCookie = (await getAt(first!, host, bobTicket.pathname + bobTicket.search)).headers['set-cookie']![0]!.split(';')[0]!;
    const refused = await getAt(platform.baseUrl, host, '/', bobCookie);
    expect(refused.status).to.equal(403);
    expect(refused.text).to.include('svc-bob:session');
    expect(refused.text).to.include('cannot get resource');
    expect(seenCookies.length).to.equal(before + 3);
  });

  it('serves a port alice shared with signed-in people to bob on either replica, sends an anonymous browser to sign in, and stops when she unshares it', async () => {
    const port = (app.address() as AddressInfo).port;
    const host = `${port}--dev--alice.apps.test`;
    const [first, second] = platform.servers.map((s) => s.url);
    const rest = new Rest(platform.baseUrl);
    const shared = await rest.call('PUT', `/workspaces/dev/ports/${port}/share`, { body: { level: 'authenticated' }, as: { session: alice } });
    expect(shared.status, JSON.stringify(shared.body)).to.equal(200);
    const bobOpen = await getAt(second!, '127.0.0.1', `/apps/open?host=${host}&path=%2F`, bob.cookie);
    const bobTicket = new URL(bobOpen.headers.location!);
    const bobCookie = (await getAt(first!, host, bobTicket.pathname + bobTicket.search)).headers['set-cookie']![0]!.split(';')[0]!;
    // Each replica reads the share again once its 5 s copy of the Workspace is out of date.
    for (const base of [first!, second!]) await eventually(async () => (await getAt(base, host, '/shared', bobCookie)).status === 200, `bob served by ${base}`, 10_000);
    expect((await getAt(platform.baseUrl, host, '/shared', bobCookie)).text).to.equal('app at /shared under undefined');
    const anonymous = await getAt(platform.baseUrl, host, '/shared');
    expect(anonymous.status).to.equal(302);
    expect(anonymous.headers.location).to.match(/\/apps\/open\?host=/);
    const back = await rest.call('PUT', `/workspaces/dev/ports/${port}/share`, { body: { level: 'owner' }, as: { session: alice } });
    expect(back.status).to.equal(200);
    for (const base of [first!, second!]) await eventually(async () => (await getAt(base, host, '/shared', bobCookie)).status === 403, `bob refused by ${base}`, 10_000);
  });
});
