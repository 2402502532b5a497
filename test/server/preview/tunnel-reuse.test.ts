// Tunnel reuse: requests one after another of one person to one port share a port forward the
// app left open, for a short idle time; another identity (a read-scoped token) never takes it,
// and an idle tunnel is closed when its time is up.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, call, login, startCluster, startDen, until, type Den, type Signed } from '../core/cluster.js';
import { APP_PORT, podWithApps, seedRunningWorkspace, type PodWithApps } from './world.js';

const PREVIEW = `/w/dev/ports/${APP_PORT}`;
const IDLE_MS = 600;

describe('port preview tunnel reuse', function () {
  this.timeout(20_000);
  let api: FakeApiServer;
  let den: Den;
  let pod: PodWithApps;
  let alice: Signed;
  let home: string;
  const forwards = () => api.requests.filter((r) => r.path === '/api/v1/namespaces/svc-alice/pods/dev-0/portforward').length;
  const get = async (path: string, headers: Record<string, string>) => {
    const res = await fetch(`${den.url}${path}`, { headers, redirect: 'manual' });
    return { status: res.status, text: await res.text() };
  };

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'den-tunnels-'));
    api = await startCluster();
    await addPerson(api, 'alice');
    seedRunningWorkspace(api, 'dev', 'svc-alice');
    pod = await podWithApps(api, home);
    den = await startDen(api, { previewLimits: { tunnelIdleMs: IDLE_MS } });
    alice = await login(den, 'alice', 'alice-password');
  });
  after(async () => {
    await den.close();
    await pod.close();
    await api.close();
    await rm(home, { recursive: true, force: true });
  });

  it('sends requests one after another over one port forward, and closes it once idle', async () => {
    await until(() => den.previews.openTunnels('alice@example.com') === 0, 'no tunnel open', 5000);
    const before = forwards();
    for (const path of ['/', '/app.js', '/style.css', '/echo']) {
      const answer = await get(`${PREVIEW}${path}`, { Cookie: alice.cookie });
      expect(answer.status, path).to.equal(200);
    }
    expect(forwards() - before).to.equal(1);
    expect(den.previews.idleTunnels()).to.equal(1);
    expect(den.previews.openTunnels('alice@example.com')).to.equal(1);
    await until(() => den.previews.openTunnels('alice@example.com') === 0, 'the idle tunnel to close', IDLE_MS * 5);
    expect(den.previews.idleTunnels()).to.equal(0);
    await until(() => den.previews.pooledKeys() === 0, 'the pool to forget the port', 1000);
    expect((await get(`${PREVIEW}/echo`, { Cookie: alice.cookie })).status).to.equal(200);
    expect(forwards() - before).to.equal(2);
  });

  it('counts no tunnel against the person once a request whose browser left before the app answered is over', async () => {
    await until(() => den.previews.openTunnels('alice@example.com') === 0, 'no tunnel open', 5000);
    const gaveUp = new AbortController();
    const asked = fetch(`${den.url}${PREVIEW}/slow`, { headers: { Cookie: alice.cookie }, signal: gaveUp.signal });
    await until(() => den.previews.openTunnels('alice@example.com') === 1, 'the request to reach the app', 5000);
    gaveUp.abort();
    await asked.catch(() => undefined);
    // The app answers 800 ms after it was asked; its answer has nowhere to go.
    await until(() => den.previews.openTunnels('alice@example.com') === 0, 'the tunnel to be given back', 4000);
    expect((await get(`${PREVIEW}/echo`, { Cookie: alice.cookie })).status).to.equal(200);
  });

  it("never lends a tunnel to another identity of the same person: a read-scoped token still meets the cluster's refusal", async () => {
    expect((await get(`${PREVIEW}/echo`, { Cookie: alice.cookie })).status).to.equal(200);
    expect(den.previews.idleTunnels()).to.equal(1);
    const token = (await call(den, 'POST', '/tokens?scope=read', { as: alice })).body.token as string;
    const seen = pod.apps.seen.length;
    const answer = await get(`${PREVIEW}/echo`, { Authorization: `Bearer ${token}` });
    expect(answer.status).to.equal(403);
    expect(answer.text).to.include('system:serviceaccount:svc-alice:session-readonly');
    expect(pod.apps.seen.length).to.equal(seen);
  });
});
