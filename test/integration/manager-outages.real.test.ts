// The manager under outages on a real API server of its own (this file kills it): the API
// server killed and started again under the managers (their watches relist; what was asked
// meanwhile converges, nothing twice), /readyz saying not ready while the API server is gone,
// leader election between the two managers (one leader at a time; the other takes over when the
// leader is killed), and the webhooks failing closed when the managers are frozen or gone, which
// a person sees through REST as a 502 that says what happened.
import { expect } from 'chai';
import type { KubeClient } from '../../kube/client.js';
import { SYSTEM_NAMESPACE } from '../../kube/group.js';
import { RESOURCES, type ResourceType } from '../../kube/resources.js';
import { LEADER_LEASE, WEBHOOKS } from '../../contract/names.js';
import { eventually } from '../support/platform.js';
import type { RealKube } from '../support/real-kube/cluster.js';
import { startInstalledKube, type RealDen } from '../support/real-kube/den.js';
import { addImage, addPerson, uniqueName, workspaceRequest, type Person } from '../support/real-kube/people.js';
import { generateSshKey } from '../support/ssh-keys.js';
import { Rest, type Session } from './rest.js';

const CHILD_KINDS: [string, ResourceType][] = [
  ['ServiceAccount', RESOURCES.serviceAccount],
  ['Role', RESOURCES.role],
  ['RoleBinding', RESOURCES.roleBinding],
  ['ResourceQuota', RESOURCES.resourceQuota],
  ['LimitRange', RESOURCES.limitRange],
  ['NetworkPolicy', RESOURCES.networkPolicy],
  ['StatefulSet', RESOURCES.statefulSet],
  ['Service', RESOURCES.service],
];

/** 1 / 0 per manager replica from its den_manager_leader gauge; undefined for one that does not answer. */
async function leaderGauges(den: RealDen): Promise<(number | undefined)[]> {
  return Promise.all(
    den.health.manager.map(async (url) => {
      const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
      if (!res || res.status !== 200) return undefined;
      const line = (await res.text()).split('\n').find((l) => l.startsWith('den_manager_leader '));
      return line === undefined ? undefined : Number(line.split(' ')[1]);
    }),
  );
}

/** REST's refusal when the API server got no answer from Den's mutating webhook: what happened, what to do, then the cluster's words. */
function unanswered(cause: string): RegExp {
  const webhook = WEBHOOKS.mutateWorkspace.name.replace(/\./g, '\\.');
  return new RegExp(
    `^den manager did not answer the cluster's admission check \\(webhook ${webhook}\\), so the cluster refused the request rather than let it through unchecked; nothing was changed: try again shortly, and if it persists ask an administrator to check den manager ` +
      `\\(the cluster said: Internal error occurred: failed calling webhook "${webhook}": failed to call webhook: Post "https://127\\.0\\.0\\.1:\\d+${WEBHOOKS.mutateWorkspace.path}\\?timeout=10s": ${cause}\\)$`,
  );
}

async function readyz(url: string): Promise<number | 'no answer'> {
  const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
  return res?.status ?? 'no answer';
}

describe('the manager under outages, on a real API server of its own', function () {
  this.timeout(180_000);
  const image = uniqueName('ubuntu');
  const key = generateSshKey('ed25519').publicLine;
  let kube: RealKube;
  let den: RealDen;
  let admin: KubeClient;
  let rest: Rest;
  let alice: Person;
  let aliceSession: Session;

  before(async function () {
    this.timeout(300_000);
    ({ kube, admin, den } = await startInstalledKube());
    rest = new Rest(den.baseUrl);
    await addImage(admin, image);
    alice = await addPerson(den.kubeconfig, 'alice');
    aliceSession = await rest.login(alice.name, alice.password);
    const created = await rest.call('POST', '/workspaces', { body: workspaceRequest('dev', image, key), as: { session: aliceSession } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await eventually(() => admin.get(RESOURCES.statefulSet, 'dev', alice.namespace).catch(() => false), "alice's StatefulSet", 60_000, 250);
  });

  after(async function () {
    this.timeout(60_000);
    await den?.stop();
    await kube?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && den) this.currentTest.err!.message += `\n--- what Den said ---\n${den.diagnostics()}`;
  });

  /** How many children of each kind a person's namespace holds. */
  async function childCounts(namespace: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const [kind, r] of CHILD_KINDS) counts[kind] = (await admin.list(r, { namespace })).items.length;
    return counts;
  }

  async function phaseOf(r: ResourceType, name: string, namespace?: string): Promise<string | undefined> {
    return (await admin.get<{ status?: { phase?: string } }>(r, name, namespace).catch(() => undefined))?.status?.phase;
  }

  it('says not ready on /readyz while the API server is gone, and ready again once it is back', async () => {
    for (const url of den.health.manager) expect(await readyz(url), url).to.equal(200);
    await kube.killApiServer();
    try {
      await eventually(async () => (await Promise.all(den.health.manager.map(readyz))).every((s) => s === 503), 'every manager answering 503 on /readyz', 40_000, 250);
    } finally {
      await kube.startApiServer();
    }
    await eventually(async () => (await Promise.all(den.health.manager.map(readyz))).every((s) => s === 200), 'every manager ready again', 40_000, 250);
  });

  it('relists after the API server restarts: what is asked right after converges, every child exactly once, nothing earlier lost', async () => {
    const before = await childCounts(alice.namespace);
    expect(before).to.include({ StatefulSet: 1, Service: 1, ResourceQuota: 1 });
    await kube.killApiServer();
    await kube.startApiServer();
    // At once, before the managers' watches are back: a new person, a new workspace, a change to an old one.
    const carol = `carol-${Date.now().toString(36)}`;
    await admin.create(RESOURCES.userSpace, { apiVersion: RESOURCES.userSpace.apiVersion, kind: 'UserSpace', metadata: { name: carol }, spec: { owner: `${carol}@example.com`, quota: { cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 0, workspaces: 3 }, networkPolicy: 'Isolated' } });
    const stop = await rest.call('POST', '/workspaces/dev/stop', { as: { session: aliceSession } });
    expect(stop.status, JSON.stringify(stop.body)).to.equal(200);
    const second = await rest.call('POST', '/workspaces', { body: workspaceRequest('second', image, key), as: { session: aliceSession } });
    expect(second.status, JSON.stringify(second.body)).to.equal(201);

    await eventually(async () => (await phaseOf(RESOURCES.userSpace, carol)) === 'Ready', `UserSpace ${carol} Ready`, 90_000, 250);
    await eventually(async () => (await admin.get<{ spec: { replicas: number } }>(RESOURCES.statefulSet, 'dev', alice.namespace)).spec.replicas === 0, "alice's stopped workspace scaled to 0", 60_000, 250);
    await eventually(() => admin.get(RESOURCES.statefulSet, 'second', alice.namespace).catch(() => false), 'the StatefulSet of the workspace created right after', 60_000, 250);
    const carolCounts = await childCounts(`svc-${carol}`);
    const aliceCounts = await childCounts(alice.namespace);
    expect(aliceCounts, "alice's namespace: one more workspace's children, nothing else").to.deep.equal({ ...before, StatefulSet: 2, Service: before.Service! + 1 });
    expect(carolCounts, "carol's namespace: a person's children as alice has them, no workspace").to.deep.equal({ ...before, StatefulSet: 0, Service: before.Service! - 1 });
  });

  it('has one leader at a time; when the leader is killed the other takes the Lease and reconciles', async () => {
    const gauges = await eventually(async () => {
      const g = await leaderGauges(den);
      return g.filter((v) => v === 1).length === 1 && g.every((v) => v !== undefined) && g;
    }, 'exactly one manager leading', 30_000, 250);
    const leader = gauges.indexOf(1);
    const follower = 1 - leader;
    const heldBy = (await admin.get<{ spec: { holderIdentity: string } }>(RESOURCES.lease, LEADER_LEASE, SYSTEM_NAMESPACE)).spec.holderIdentity;
    let sampling = true;
    const bothLeading: string[] = [];
    const sampler = (async () => {
      while (sampling) {
        const g = await leaderGauges(den);
        if (g.filter((v) => v === 1).length > 1) bothLeading.push(new Date().toISOString());
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    try {
      await den.killManager(leader);
      await eventually(async () => (await leaderGauges(den))[follower] === 1, `manager-${follower + 1} leading`, 40_000, 250);
      const lease = await admin.get<{ spec: { holderIdentity: string; leaseTransitions: number } }>(RESOURCES.lease, LEADER_LEASE, SYSTEM_NAMESPACE);
      expect(lease.spec.holderIdentity).to.not.equal(heldBy);
      const dave = `dave-${Date.now().toString(36)}`;
      await admin.create(RESOURCES.userSpace, { apiVersion: RESOURCES.userSpace.apiVersion, kind: 'UserSpace', metadata: { name: dave }, spec: { owner: `${dave}@example.com`, quota: { cpu: '1', memory: '1Gi', storage: '1Gi', gpu: 0, workspaces: 1 }, networkPolicy: 'Isolated' } });
      await eventually(async () => (await phaseOf(RESOURCES.userSpace, dave)) === 'Ready', `UserSpace ${dave} Ready under the new leader`, 90_000, 250);
      await den.restartManager(leader);
      await new Promise((r) => setTimeout(r, 2_000));
      expect(await leaderGauges(den), 'the restarted replica follows').to.deep.equal(leader === 0 ? [0, 1] : [1, 0]);
    } finally {
      sampling = false;
      await sampler;
    }
    expect(bothLeading, 'moments when both replicas said they lead').to.deep.equal([]);
  });

  it('fails closed while the managers are frozen: the webhook call times out after 10 s and REST answers 502 saying den manager did not answer, nothing created', async function () {
    this.timeout(120_000);
    for (const m of den.replicasOf('manager')) m.signal('SIGSTOP');
    let answer;
    const sent = Date.now();
    let waited = 0;
    try {
      answer = await rest.call('POST', '/workspaces', { body: workspaceRequest('frozen', image, key), as: { session: aliceSession } });
      waited = Date.now() - sent;
    } finally {
      for (const m of den.replicasOf('manager')) m.signal('SIGCONT');
    }
    expect(answer.status, JSON.stringify(answer.body)).to.equal(502);
    expect(answer.body.error).to.match(unanswered('context deadline exceeded'));
    expect(waited, 'the API server gave up after the registered timeoutSeconds (10 s), not sooner, not much later').to.be.within(9_500, 15_000);
    expect(await admin.get(RESOURCES.workspace, 'frozen', alice.namespace).then(() => 'created', () => 'absent')).to.equal('absent');
    await eventually(async () => (await Promise.all(den.health.manager.map(readyz))).every((s) => s === 200), 'the thawed managers ready', 30_000, 250);
  });

  it('fails closed while every manager is down: REST answers 502 saying den manager did not answer; once they are back it admits again, and a UserSpace created meanwhile converges', async function () {
    this.timeout(120_000);
    await den.killManager(0, { keepInRotation: true });
    await den.killManager(1, { keepInRotation: true });
    const refused = await rest.call('POST', '/workspaces', { body: workspaceRequest('down', image, key), as: { session: aliceSession } });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(502);
    expect(refused.body.error).to.match(unanswered('.+'));
    expect(await admin.get(RESOURCES.workspace, 'down', alice.namespace).then(() => 'created', () => 'absent')).to.equal('absent');
    // A UserSpace's create calls no webhook: it is stored while no manager runs, and converges once one does.
    const ivan = `ivan-${Date.now().toString(36)}`;
    await admin.create(RESOURCES.userSpace, { apiVersion: RESOURCES.userSpace.apiVersion, kind: 'UserSpace', metadata: { name: ivan }, spec: { owner: `${ivan}@example.com`, quota: { cpu: '1', memory: '1Gi', storage: '1Gi', gpu: 0, workspaces: 1 }, networkPolicy: 'Isolated' } });
    await Promise.all([den.restartManager(0), den.restartManager(1)]);
    const admitted = await rest.call('POST', '/workspaces', { body: workspaceRequest('down', image, key), as: { session: aliceSession } });
    expect(admitted.status, JSON.stringify(admitted.body)).to.equal(201);
    await eventually(async () => (await phaseOf(RESOURCES.userSpace, ivan)) === 'Ready', `UserSpace ${ivan}, created while no manager ran, Ready`, 90_000, 250);
    const aliceCounts = await childCounts(alice.namespace);
    expect(await childCounts(`svc-${ivan}`), "a person's children, each once").to.deep.equal({ ...aliceCounts, StatefulSet: 0, Service: 0 });
  });
});
