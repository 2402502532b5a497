import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESOURCES } from '../../../kube/resources.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, call, login, startCluster, startDen, type Den, type Signed } from '../core/cluster.js';
import { CLOSED_PORT, podWithApps, seedRunningWorkspace, type PodWithApps } from './world.js';

describe('listening ports of a workspace (GET /api/v1/workspaces/{name}/apps)', function () {
  this.timeout(30_000);
  let api: FakeApiServer;
  let den: Den;
  let pod: PodWithApps;
  let alice: Signed;
  let home: string;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'den-ports-'));
    api = await startCluster();
    await addPerson(api, 'alice');
    pod = await podWithApps(api, home);
    seedRunningWorkspace(api, 'dev', 'svc-alice', {
      apps: [
        { name: 'Web app', port: pod.apps.httpPort, path: '/echo?from=button', icon: 'https://example.com/app.svg' },
        { name: 'Notebook', port: CLOSED_PORT },
      ],
    });
    den = await startDen(api);
    alice = await login(den, 'alice', 'alice-password');
  });
  after(async () => {
    await den.close();
    await pod.close();
    await api.close();
    await rm(home, { recursive: true, force: true });
  });

  it('lists the ports listening in the pod, read with one exec as the person, each with its preview path', async () => {
    const execs = pod.exec.execs.length;
    const answer = await call(den, 'GET', '/workspaces/dev/apps', { as: alice });
    expect(answer.status).to.equal(200);
    expect(answer.body).to.include({ namespace: 'svc-alice', workspace: 'dev', pod: 'dev-0' });
    // The fake pod is this machine: the test apps' ports listen in it.
    const ports = answer.body.listening.map((p: { port: number }) => p.port);
    expect(ports).to.include.members([pod.apps.httpPort, pod.apps.wsPort]);
    expect(ports).to.deep.equal([...ports].sort((a: number, b: number) => a - b));
    expect(answer.body.listening).to.deep.include({ port: pod.apps.httpPort, preview_path: `/w/dev/ports/${pod.apps.httpPort}/`, app_url: null });
    expect(pod.exec.execs.length).to.equal(execs + 1);
    expect(pod.exec.execs.at(-1)).to.deep.include({ namespace: 'svc-alice', pod: 'dev-0', container: 'workspace', tty: false, command: ['cat', '/proc/net/tcp', '/proc/net/tcp6'] });
    const exec = api.requests.filter((r) => r.path === '/api/v1/namespaces/svc-alice/pods/dev-0/exec').at(-1);
    expect(exec?.user).to.equal('system:serviceaccount:svc-alice:session');
  });

  it("gives the apps the workspace's catalog entry declares, each with whether its port listens and its preview path", async () => {
    const answer = await call(den, 'GET', '/workspaces/dev/apps', { as: alice });
    expect(answer.body.apps).to.deep.equal([
      { name: 'Web app', port: pod.apps.httpPort, path: '/echo?from=button', icon: 'https://example.com/app.svg', listening: true, preview_path: `/w/dev/ports/${pod.apps.httpPort}/echo?from=button`, app_url: null },
      { name: 'Notebook', port: CLOSED_PORT, path: '/', icon: null, listening: false, preview_path: `/w/dev/ports/${CLOSED_PORT}/`, app_url: null },
    ]);
  });

  it('adds the forwardPorts of the repository\'s devcontainer.json as apps labelled by portsAttributes, after the entry\'s and without repeating a port', async () => {
    const ws = api.object<any>(RESOURCES.workspace, 'dev', 'svc-alice')!;
    api.seed({ ...ws, status: { ...ws.status, devcontainer: { file: 'api/.devcontainer.json', ports: [{ port: pod.apps.wsPort, label: 'Socket' }, { port: CLOSED_PORT, label: 'Again' }, { port: 9 }] } } });
    try {
      const answer = await call(den, 'GET', '/workspaces/dev/apps', { as: alice });
      expect(answer.body.apps.map((a: { name: string; port: number; listening: boolean }) => [a.name, a.port, a.listening])).to.deep.equal([
        ['Web app', pod.apps.httpPort, true],
        ['Notebook', CLOSED_PORT, false],
        ['Socket', pod.apps.wsPort, true],
        ['Port 9', 9, false],
      ]);
    } finally {
      api.seed(ws);
    }
  });

  it('gives each app and port its own origin too when the server has an apps domain, on the scheme and port of the base URL', async () => {
    const hosted = await startDen(api, { baseUrl: 'https://den.example.com:8443', appsDomain: 'den-apps.example' });
    try {
      const answer = await call(hosted, 'GET', '/workspaces/dev/apps', { as: await login(hosted, 'alice', 'alice-password') });
      expect(answer.body.apps.map((a: { app_url: string }) => a.app_url)).to.deep.equal([
        `https://${pod.apps.httpPort}--dev--alice.den-apps.example:8443/echo?from=button`,
        `https://${CLOSED_PORT}--dev--alice.den-apps.example:8443/`,
      ]);
      expect(answer.body.listening).to.deep.include({ port: pod.apps.httpPort, preview_path: `/w/dev/ports/${pod.apps.httpPort}/`, app_url: `https://${pod.apps.httpPort}--dev--alice.den-apps.example:8443/` });
    } finally {
      await hosted.close();
    }
  });

  it('answers 409 saying so when the workspace is not running, without an exec', async () => {
    const ws = api.object<Record<string, any>>(RESOURCES.workspace, 'dev', 'svc-alice')!;
    api.seed({ ...ws, status: { ...ws.status, phase: 'Suspended' } });
    try {
      const execs = pod.exec.execs.length;
      const answer = await call(den, 'GET', '/workspaces/dev/apps', { as: alice });
      expect(answer.status).to.equal(409);
      expect(answer.body.error).to.equal('workspace dev is Suspended; start it first');
      expect(pod.exec.execs.length).to.equal(execs);
    } finally {
      api.seed(ws);
    }
  });

  it('answers 404 for a workspace the person does not have', async () => {
    const answer = await call(den, 'GET', '/workspaces/nope/apps', { as: alice });
    expect(answer.status).to.equal(404);
  });
});
