// The first minute after install, on a real kube-apiserver: until Kubernetes' quota controller
// (in kube-controller-manager) has counted a new person's ResourceQuota svc-quota, the UserSpace
// is not Ready and says why, `den users add` waits and says so, and a Workspace create the
// cluster refuses ("status unknown for quota") is answered verbatim by REST and in people's words
// by the pages and the den CLI; once the controller-manager runs, the UserSpace becomes Ready
// and a Workspace created at once is admitted. Its own API server: it stops the controller-manager.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import type { KubeClient } from '../../kube/client.js';
import { userNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { laptop, type Laptop } from '../cli/dev/support.js';
import { RealKube } from '../support/real-kube/cluster.js';
import { installChart, installCrds, RealDen } from '../support/real-kube/den.js';
import { eventually, runDen } from '../support/platform.js';
import { fetchPage } from '../support/web.js';
import { Rest, type Session } from './rest.js';

const WORKSPACE_COUNT = 'count/workspaces.den.dev';
const PASSWORD = 'first minute password';
const SET_UP = 'your space is still being set up: try again in a few seconds';

interface ReadyCondition {
  status: string;
  reason: string;
  message: string;
}

describe('the first minute after install, on a real API server', function () {
  this.timeout(240_000);
  const suffix = randomBytes(3).toString('hex');
  const alice = `alice-${suffix}`;
  const image = `ubuntu-${suffix}`;
  let kube: RealKube;
  let den: RealDen;
  let admin: KubeClient;
  let rest: Rest;
  let session: Session;
  let me: Laptop;

  before(async function () {
    this.timeout(300_000);
    kube = await RealKube.start({ controllerManager: false });
    admin = kube.admin();
    await installCrds(admin);
    await installChart(admin);
    den = await new RealDen(kube.address).start();
    rest = new Rest(den.baseUrl);
    me = await laptop();
    await admin.create(RESOURCES.workspaceImage, { apiVersion: RESOURCES.workspaceImage.apiVersion, kind: 'WorkspaceImage', metadata: { name: image }, spec: { displayName: 'Ubuntu', image: 'docker.io/library/ubuntu:24.04' } });
  });

  after(async function () {
    this.timeout(60_000);
    await den?.stop();
    await kube?.stop();
    if (me) await rm(me.home, { recursive: true, force: true });
  });

  async function readyOf(name: string): Promise<{ phase: string; ready: ReadyCondition }> {
    const userSpace = await admin.get<{ status?: { phase: string; conditions?: (ReadyCondition & { type: string })[] } }>(RESOURCES.userSpace, name);
    return { phase: userSpace.status?.phase ?? '', ready: userSpace.status?.conditions?.find((c) => c.type === 'Ready') ?? { status: '', reason: '', message: '' } };
  }

  function createWorkspace(name: string) {
    return rest.call('POST', '/workspaces', { body: { name, image, cpu: '500m', memory: '512Mi', storage: '1Gi', ssh_public_key: me.publicKey }, as: { session } });
  }

  it('the UserSpace is Pending, and its Ready condition names every key not counted and who counts them', async () => {
    const added = await runDen(['users', 'add', alice, '--owner', `${alice}@example.com`, '--password-stdin', '--wait', '0', '--kubeconfig', den.kubeconfig], { stdin: `${PASSWORD}\n` });
    expect(added.code, added.stderr).to.equal(0);
    const { phase, ready } = await eventually(async () => {
      const seen = await readyOf(alice);
      return seen.ready.reason === 'QuotaNotCounted' && seen;
    }, `UserSpace ${alice} saying its quota is not counted`, 60_000);
    expect(phase).to.equal('Pending');
    expect(ready).to.include({ status: 'False', reason: 'QuotaNotCounted' });
    expect(ready.message).to.equal(
      `ResourceQuota/svc-quota has not yet counted ${WORKSPACE_COUNT}, requests.cpu, requests.memory, requests.nvidia.com/gpu, requests.storage: ` +
        "Kubernetes' quota controller (in kube-controller-manager) counts them, usually within seconds, " +
        'and until then the cluster may refuse new workspaces ("status unknown for quota"); if this lasts, check that kube-controller-manager is running and what it logs',
    );
  });

  it('den users add waits for Ready, says what it waits for, and gives up saying Kubernetes has not counted the quota', async () => {
    const carol = `carol-${suffix}`;
    const added = await runDen(['users', 'add', carol, '--owner', `${carol}@example.com`, '--password-stdin', '--wait', '10s', '--kubeconfig', den.kubeconfig], { stdin: `${PASSWORD}\n`, timeoutMs: 60_000 });
    expect(added.code, added.stderr).to.equal(1);
    expect(added.stdout).to.include(`waiting up to 10s for UserSpace ${carol} to be Ready`);
    expect(added.stdout).to.include('not Ready yet: QuotaNotCounted: ResourceQuota/svc-quota has not yet counted');
    expect(added.stderr).to.match(new RegExp(`^den users: UserSpace ${carol} is not Ready after 10s: QuotaNotCounted: ResourceQuota/svc-quota has not yet counted .*kube-controller-manager`));
    expect(added.stderr).to.include(`It and local user ${carol} were created and stay`);
  });

  it('names only the workspace count while the quota controller has counted all but the custom resource it has not discovered yet', async () => {
    // What kube-controller-manager writes before its 30 s discovery finds workspaces.den.dev: status.hard
    // whole, status.used without the count. Written here by hand: this controller-manager is stopped.
    const namespace = userNamespace(alice);
    const quota = await admin.get<{ spec: { hard: Record<string, string> } }>(RESOURCES.resourceQuota, 'svc-quota', namespace);
    const used = Object.fromEntries(Object.keys(quota.spec.hard).filter((k) => k !== WORKSPACE_COUNT).map((k) => [k, '0']));
    await admin.replace(RESOURCES.resourceQuota, { ...quota, status: { hard: quota.spec.hard, used } }, { subresource: 'status' });
    const ready = await eventually(async () => {
      const { ready } = await readyOf(alice);
      return ready.message.startsWith(`ResourceQuota/svc-quota has not yet counted ${WORKSPACE_COUNT}:`) && ready;
    }, 'the Ready condition naming only the workspace count', 30_000);
    expect(ready).to.include({ status: 'False', reason: 'QuotaNotCounted' });
  });

  it("REST answers the cluster's refusal verbatim: 403 and its message", async () => {
    session = await rest.login(alice, PASSWORD);
    const refused = await createWorkspace('dev');
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.equal({ error: `workspaces.den.dev "dev" is forbidden: status unknown for quota: svc-quota, resources: ${WORKSPACE_COUNT}` });
  });

  it("the new-workspace page says it in people's words, the cluster's text kept to fold", async () => {
    const page = await fetchPage(`${den.baseUrl}/new`, {
      cookie: session.cookie,
      form: { _csrf: session.csrf, name: 'dev', image, cpu: '500m', memory: '512Mi', storage: '1Gi', ssh_public_key: me.publicKey },
    });
    expect(page.status).to.equal(400);
    expect(page.text).to.include(`Nothing was created, because ${SET_UP}.`);
    expect(page.text).to.include('status unknown for quota: svc-quota');
  });

  it("den create says it in people's words, exit 1", async () => {
    const issued = await rest.call('POST', '/tokens?name=laptop', { as: { session } });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    const login = await me.den(['login', den.baseUrl, '--token-stdin'], { stdin: `${issued.body.token}\n` });
    expect(login.code, login.stderr).to.equal(0);
    const created = await me.den(['create', 'dev', '--image', image, '--storage', '1Gi', '--cpu', '500m', '--memory', '512Mi']);
    expect(created).to.deep.include({ code: 1, stderr: `den create: ${SET_UP}\n` });
  });

  it('once kube-controller-manager runs the UserSpace becomes Ready, and a Workspace created at once is admitted', async () => {
    await kube.startControllerManager();
    const ready = await eventually(async () => {
      const { phase, ready } = await readyOf(alice);
      return phase === 'Ready' && ready;
    }, `UserSpace ${alice} Ready`, 60_000);
    expect(ready).to.include({ status: 'True', reason: 'ChildrenReady' });
    const created = await createWorkspace('dev');
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
  });

  it('den users add of the next person ends Ready, exit 0', async () => {
    const bob = `bob-${suffix}`;
    const added = await runDen(['users', 'add', bob, '--owner', `${bob}@example.com`, '--password-stdin', '--kubeconfig', den.kubeconfig], { stdin: `${PASSWORD}\n`, timeoutMs: 180_000 });
    expect(added.code, added.stderr).to.equal(0);
    expect(added.stdout).to.include(`UserSpace ${bob} is Ready: ${bob} can sign in and create workspaces\n`);
    expect((await readyOf(bob)).phase).to.equal('Ready');
  });
});
