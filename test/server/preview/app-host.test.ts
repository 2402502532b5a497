// Host-based previews through two den server replicas sharing one cluster: an app at
// `<port>--<workspace>--<person>.<apps domain>`, reached with an app cookie minted by a redirect
// through Den (a one-use ticket), never with Den's session cookie.
import { expect } from 'chai';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, login, startCluster, startDen, type Den, type Signed } from '../core/cluster.js';
import { appCookieSecretName, ticketSecretName } from '../../../server/auth/app-passes.js';
import { APP_PORT, podWithApps, seedRunningWorkspace, WS_PORT, type PodWithApps } from './world.js';

const BASE_URL = 'http://den.test';
const DOMAIN = 'apps.test';
const APP = `${APP_PORT}--dev--alice.${DOMAIN}`;
const WS_APP = `${WS_PORT}--dev--alice.${DOMAIN}`;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request to `den` as a browser at `host` sends it (fetch cannot set Host). */
function ask(den: Den, host: string, path: string, opts: { cookie?: string; method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const url = new URL(den.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method: opts.method ?? 'GET', headers: { Host: host, ...(opts.cookie ? { Cookie: opts.cookie } : {}), ...opts.headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const cookiePair = (setCookie: string | undefined) => (setCookie ?? '').split(';')[0]!;

describe('host-based port preview (<port>--<workspace>--<person>.<apps domain>) through two replicas', function () {
  this.timeout(30_000);
  let api: FakeApiServer;
  let pod: PodWithApps;
  let home: string;
  let one: Den;
  let two: Den;
  let alice: Signed;
  let bob: Signed;

  /** The whole sign-in to an app host as a browser follows it: Den's /apps/open on `first`, the ticket on `second`. */
  async function openApp(as: Signed, host: string, path: string, first: Den, second: Den): Promise<{ cookie: string; redirect: Answer }> {
    const open = await ask(first, 'den.test', `/apps/open?${new URLSearchParams({ host, path })}`, { cookie: as.cookie });
    expect(open.status, open.text).to.equal(302);
    const ticketUrl = new URL(open.headers.location!);
    expect(ticketUrl.origin).to.equal(`http://${host}`);
    const redirect = await ask(second, host, ticketUrl.pathname + ticketUrl.search);
    return { cookie: cookiePair(redirect.headers['set-cookie']?.[0]), redirect };
  }

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'den-app-host-'));
    api = await startCluster();
    await addPerson(api, 'alice');
    await addPerson(api, 'bob');
    seedRunningWorkspace(api, 'dev', 'svc-alice');
    pod = await podWithApps(api, home);
    one = await startDen(api, { baseUrl: BASE_URL, appsDomain: DOMAIN });
    two = await startDen(api, { baseUrl: BASE_URL, appsDomain: DOMAIN });
    alice = await login(one, 'alice', 'alice-password');
    bob = await login(two, 'bob', 'bob-password');
  });
  after(async () => {
    await one.close();
    await two.close();
    await pod.close();
    await api.close();
    await rm(home, { recursive: true, force: true });
  });

  it('sends a browser without an app cookie through Den, which sends a stranger to sign in first', async () => {
    const before = pod.apps.seen.length;
    const bare = await ask(one, APP, '/echo?x=1');
    expect(bare.status).to.equal(302);
    expect(bare.headers.location).to.equal(`${BASE_URL}/apps/open?host=${APP}&path=%2Fecho%3Fx%3D1`);
    const open = await ask(two, 'den.test', `/apps/open?host=${APP}&path=%2Fecho`);
    expect(open.status).to.equal(302);
    expect(open.headers.location).to.equal(`/login?next=${encodeURIComponent(`/apps/open?host=${APP}&path=%2Fecho`)}`);
    const post = await ask(one, APP, '/echo', { method: 'POST', body: 'x' });
    expect(post.status).to.equal(401);
    expect(post.text).to.include('open the app from Den first');
    expect(pod.apps.seen.length).to.equal(before);
  });

  it('mints the app cookie on one replica from a ticket of the other, host-only and HttpOnly, and serves the app at / with it', async () => {
    const { cookie, redirect } = await openApp(alice, APP, '/echo?q=1', one, two);
    expect(redirect.status, JSON.stringify(redirect.headers)).to.equal(303);
    expect(redirect.headers.location).to.equal('/echo?q=1');
    const setCookie = redirect.headers['set-cookie']!;
    expect(setCookie).to.have.length(1);
    expect(setCookie[0]).to.match(/^svc_app=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=3600$/);
    for (const den of [one, two]) {
      const answer = await ask(den, APP, '/echo?q=1', { cookie: `${cookie}; ${alice.cookie}; theme=dark` });
      expect(answer.status, answer.text).to.equal(200);
      const seen = JSON.parse(answer.text);
      expect(seen.url).to.equal('/echo?q=1');
      expect(seen.headers.cookie).to.equal('theme=dark');
      expect(seen.headers).not.to.have.property('x-forwarded-prefix');
      expect(seen.headers.host).to.equal(APP);
    }
    const forward = api.requests.filter((r) => r.path === '/api/v1/namespaces/svc-alice/pods/dev-0/portforward').at(-1);
    expect(forward?.user).to.equal('system:serviceaccount:svc-alice:session');
    expect(JSON.stringify(pod.apps.seen)).not.to.include(cookie.split('=')[1]!);
    expect(JSON.stringify(pod.apps.seen)).not.to.include(alice.cookie.split('=')[1]!);
  });

  it('refuses a ticket used a second time, on either replica, and one used after it expired', async () => {
    const open = await ask(one, 'den.test', `/apps/open?host=${APP}&path=%2F`, { cookie: alice.cookie });
    const ticketPath = new URL(open.headers.location!).pathname + new URL(open.headers.location!).search;
    expect((await ask(two, APP, ticketPath)).status).to.equal(303);
    for (const den of [one, two]) {
      const again = await ask(den, APP, ticketPath);
      expect(again.status).to.equal(403);
      expect(again.headers['set-cookie']).to.equal(undefined);
      expect(again.text).to.include('this link to the app was already used or is not one Den made; open the app again from Den');
    }
    const session = (await one.auth.sessions.lookup(alice.cookie.split('=')[1]!, Date.now()))!;
    const old = await one.auth.appPasses.mintTicket({ session: session.secretName, host: APP, next: '/' }, Date.now() - 61_000);
    const late = await ask(two, APP, `/__den/auth?ticket=${old}`);
    expect(late.status).to.equal(403);
    expect(late.text).to.include('this link to the app is older than 60 seconds');
    expect(late.headers['content-security-policy']).to.equal("default-src 'none'");
  });

  it('refuses an app cookie past its hour, and the sweep deletes it and tickets never redeemed', async () => {
    const session = (await one.auth.sessions.lookup(alice.cookie.split('=')[1]!, Date.now()))!;
    const then = Date.now() - 2 * 3_600_000;
    const ticket = await one.auth.appPasses.mintTicket({ session: session.secretName, host: APP, next: '/' }, then);
    const redeemed = await one.auth.appPasses.redeem(ticket, APP, then + 1000);
    if (!redeemed.ok) throw new Error(redeemed.reason);
    const stale = await ask(two, APP, '/echo', { cookie: `svc_app=${redeemed.cookie}` });
    expect(stale.status).to.equal(302);
    expect(stale.headers.location).to.match(/\/apps\/open\?/);
    const abandoned = await one.auth.appPasses.mintTicket({ session: session.secretName, host: APP, next: '/' }, Date.now() - 61_000);
    const fresh = await one.auth.appPasses.mintTicket({ session: session.secretName, host: APP, next: '/' }, Date.now());
    expect(await one.auth.appPasses.sweep(Date.now())).to.be.at.least(2);
    const secrets = (await one.auth.state.current('app-cookie')).map((r) => r.name).concat((await one.auth.state.current('app-ticket')).map((r) => r.name));
    expect(secrets).not.to.include(appCookieSecretName(redeemed.cookie));
    expect(secrets).not.to.include(ticketSecretName(abandoned));
    expect(secrets).to.include(ticketSecretName(fresh));
  });

  it("ends the app cookie with the Den session it came from: signed out of Den, the app host sends the browser back through Den", async () => {
    const second = await login(one, 'alice', 'alice-password');
    const { cookie } = await openApp(second, APP, '/', one, two);
    expect((await ask(two, APP, '/echo', { cookie })).status).to.equal(200);
    const out = await fetch(`${one.api}/logout`, { method: 'POST', headers: { Cookie: second.cookie, 'X-CSRF-Token': second.csrf } });
    expect(out.status).to.equal(204);
    const after = await ask(two, APP, '/echo', { cookie });
    expect(after.status).to.equal(302);
    expect(after.headers.location).to.equal(`${BASE_URL}/apps/open?host=${APP}&path=%2Fecho`);
  });

  it('refuses the cookie of one app on another app host, and a ticket made for one app on another', async () => {
    const { cookie } = await openApp(alice, APP, '/', one, two);
    const before = pod.apps.seen.length;
    const other = await ask(one, WS_APP, '/', { cookie });
    expect(other.status).to.equal(302);
    expect(other.headers.location).to.equal(`${BASE_URL}/apps/open?host=${WS_APP}&path=%2F`);
    const open = await ask(one, 'den.test', `/apps/open?host=${APP}&path=%2F`, { cookie: alice.cookie });
    const ticket = new URL(open.headers.location!).search;
    const elsewhere = await ask(two, WS_APP, `/__den/auth${ticket}`);
    expect(elsewhere.status).to.equal(403);
    expect(elsewhere.text).to.include(`this link was made for ${APP}, not ${WS_APP}`);
    expect(pod.apps.seen.length).to.equal(before);
  });

  it("keeps the app's cookies on its own host: Domain removed, Path and __Host- cookies kept, Den's names and Clear-Site-Data dropped", async () => {
    const { cookie } = await openApp(alice, APP, '/', two, one);
    const answer = await ask(two, APP, '/set-cookies', { cookie });
    expect(answer.status).to.equal(200);
    expect(answer.headers['set-cookie']).to.deep.equal(['app_choice=blue; Path=/', 'wide=1; Path=/settings', '__Host-root=1; Path=/; Secure']);
    expect(answer.headers['clear-site-data']).to.equal(undefined);
  });

  it("gives another person the cluster's refusal in words, and the app sees nothing", async () => {
    const before = pod.apps.seen.length;
    const { cookie } = await openApp(bob, APP, '/', two, one);
    const answer = await ask(one, APP, '/', { cookie });
    expect(answer.status).to.equal(403);
    expect(answer.headers['content-type']).to.match(/^text\/html/);
    expect(answer.text).to.include('system:serviceaccount:svc-bob:session');
    expect(answer.text).to.include('cannot get resource &quot;workspaces&quot;');
    expect(answer.text).to.include('svc-alice');
    expect(pod.apps.seen.length).to.equal(before);
  });

  it('relays a websocket app at its own host from a page of that host only', async () => {
    const { cookie } = await openApp(alice, WS_APP, '/', one, two);
    const origin = `http://${WS_APP}`;
    const url = new URL(one.url);
    const said = await new Promise<any>((resolve, reject) => {
      const ws = new WebSocket(`ws://${url.host}/chat`, { headers: { Host: WS_APP, Cookie: `${cookie}; ${alice.cookie}`, Origin: origin } });
      ws.once('message', (d) => {
        const first = JSON.parse(String(d));
        ws.once('message', (e) => {
          ws.close();
          resolve({ first, echo: String(e) });
        });
        ws.send('hi');
      });
      ws.once('error', reject);
    });
    expect(said.first).to.deep.equal({ path: '/chat', cookie: null, origin, prefix: null });
    expect(said.echo).to.equal('echo: hi');
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://${url.host}/chat`, { headers: { Host: WS_APP, Cookie: cookie, Origin: BASE_URL } });
      ws.on('error', () => undefined);
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    });
    expect(refused).to.equal(403);
  });

  it("leaves Den's own host alone: a preview path there still serves path-based, an unknown app address is a 404 page", async () => {
    const path = await ask(one, 'den.test', `/w/dev/ports/${APP_PORT}/echo`, { cookie: alice.cookie });
    expect(JSON.parse(path.text).headers['x-forwarded-prefix']).to.equal(`/w/dev/ports/${APP_PORT}`);
    const bad = await ask(one, 'den.test', `/apps/open?host=evil.example&path=%2F`, { cookie: alice.cookie });
    expect(bad.status).to.equal(404);
    expect(bad.text).to.include('is not the host of an app under apps.test');
  });
});
