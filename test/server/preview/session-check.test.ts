// A preview GET runs beside the check of its session with the API server, as REST reads do, and
// its answer waits for that check: a session signed out on another replica a moment ago (this
// replica's cache has not heard yet) gets no byte of the app's answer, only the sign-in page's
// address (path-based) or Den's /apps/open (host-based); a POST is checked before anything is relayed.
import { expect } from 'chai';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESOURCES } from '../../../kube/resources.js';
import { SYSTEM_NAMESPACE } from '../../../kube/group.js';
import { sessionSecretName } from '../../../server/auth/sessions.js';
import { sessionIdFromCookieHeader } from '../../../server/auth/cookie.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, login, startCluster, startDen, until, type Den } from '../core/cluster.js';
import { APP_PORT, podWithApps, seedRunningWorkspace, type PodWithApps } from './world.js';

const PREVIEW = `/w/dev/ports/${APP_PORT}`;
/** How late this replica's cache hears of a change: long enough to act on a signed-out session it still holds. */
const WATCH_LAG_MS = 2_000;
const DOMAIN = 'apps.test';
const APP = `${APP_PORT}--dev--alice.${DOMAIN}`;

/** A GET to `den` as a browser at `host` sends it (fetch cannot set Host). */
function askHost(den: Den, host: string, path: string, cookie: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const url = new URL(den.url);
  return new Promise((resolve, reject) => {
    http
      .get({ host: url.hostname, port: url.port, path, headers: { Host: host, Cookie: cookie } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      })
      .on('error', reject);
  });
}
/** How long the session check's GET takes: the app answers first, so its answer is what is held back. */
const CHECK_MS = 300;

describe('port preview and the session check', function () {
  this.timeout(30_000);
  let api: FakeApiServer;
  let den: Den;
  let pod: PodWithApps;
  let home: string;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'den-preview-check-'));
    api = await startCluster({ watchLagMs: WATCH_LAG_MS });
    await addPerson(api, 'alice');
    seedRunningWorkspace(api, 'dev', 'svc-alice');
    pod = await podWithApps(api, home);
    den = await startDen(api, { baseUrl: 'http://den.test', appsDomain: DOMAIN });
    api.slowDown('GET', /\/namespaces\/svc-system\/secrets\/session-/, CHECK_MS);
  });
  after(async () => {
    await den.close();
    await pod.close();
    await api.close();
    await rm(home, { recursive: true, force: true });
  });

  /** A session this replica's cache holds, with an app cookie of APP it vouched for. */
  async function signedIn(): Promise<{ cookie: string; id: string; appCookie: string }> {
    const { cookie } = await login(den, 'alice', 'alice-password');
    const id = sessionIdFromCookieHeader(cookie)!;
    const open = await askHost(den, 'den.test', `/apps/open?${new URLSearchParams({ host: APP, path: '/' })}`, cookie);
    const ticket = new URL(open.headers.location!);
    const redeemed = await askHost(den, APP, ticket.pathname + ticket.search, '');
    const appCookie = (redeemed.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
    const value = appCookie.slice(appCookie.indexOf('=') + 1);
    await until(() => den.auth.sessions.cached(id, Date.now()) !== undefined && den.auth.appPasses.cachedCookiePass(value, APP, Date.now()) !== undefined, 'the session and app cookie in the cache', WATCH_LAG_MS * 3);
    return { cookie, id, appCookie };
  }

  /** A session this replica's cache holds, then ended in the cluster (as a sign-out on another replica does) before the cache hears of it. */
  async function signedOutElsewhere(): Promise<{ cookie: string; appCookie: string }> {
    const { cookie, id, appCookie } = await signedIn();
    await api.client().delete(RESOURCES.secret, sessionSecretName(id), SYSTEM_NAMESPACE);
    expect(den.auth.sessions.cached(id, Date.now()), 'the cache still holds it').not.to.equal(undefined);
    return { cookie, appCookie };
  }

  const ask = (path: string, cookie: string, init: RequestInit = {}) => fetch(`${den.url}${path}`, { ...init, headers: { Cookie: cookie, ...init.headers }, redirect: 'manual' });

  it("serves a live session's GET beside its check, path-based and host-based", async () => {
    const { cookie, appCookie } = await signedIn();
    const answer = await ask(`${PREVIEW}/echo`, cookie);
    expect(answer.status).to.equal(200);
    expect(JSON.parse(await answer.text()).url).to.equal('/echo');
    const atHost = await askHost(den, APP, '/echo', appCookie);
    expect(atHost.status).to.equal(200);
    expect(JSON.parse(atHost.text).url).to.equal('/echo');
  });

  it('gives a GET of a session signed out elsewhere no byte of the answer the app already sent: the sign-in page instead', async () => {
    const { cookie } = await signedOutElsewhere();
    const marker = `only-for-a-live-session-${Date.now()}`;
    const asked = pod.apps.seen.length;
    const answer = await ask(`${PREVIEW}/echo?${marker}`, cookie);
    const text = await answer.text();
    expect(answer.status).to.equal(302);
    expect(answer.headers.get('location')).to.equal(`/login?next=${encodeURIComponent(`${PREVIEW}/echo?${marker}`)}`);
    expect(text).not.to.include(marker);
    expect(pod.apps.seen.slice(asked).map((s) => s.url), 'the app answered while the check ran').to.deep.equal([`/echo?${marker}`]);
  });

  it("gives a GET at the app's own host no byte of the app's answer either: the browser goes back through Den", async () => {
    const { appCookie } = await signedOutElsewhere();
    const marker = `only-for-a-live-session-${Date.now()}`;
    const asked = pod.apps.seen.length;
    const answer = await askHost(den, APP, `/echo?${marker}`, appCookie);
    expect(answer.status).to.equal(302);
    expect(answer.headers.location).to.equal(`http://den.test/apps/open?host=${APP}&path=${encodeURIComponent(`/echo?${marker}`)}`);
    expect(answer.text).not.to.include(marker);
    expect(pod.apps.seen.slice(asked).map((s) => s.url), 'the app answered while the check ran').to.deep.equal([`/echo?${marker}`]);
  });

  it('checks the session of a POST before relaying it: refused, and the app sees nothing', async () => {
    const { cookie } = await signedOutElsewhere();
    const asked = pod.apps.seen.length;
    const answer = await ask(`${PREVIEW}/echo`, cookie, { method: 'POST', body: 'x', headers: { Origin: 'http://den.test' } });
    expect(answer.status).to.equal(401);
    expect(await answer.text()).to.include('your session has ended; sign in again');
    expect(pod.apps.seen.length).to.equal(asked);
  });
});
