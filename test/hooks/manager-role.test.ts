import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { managerRole } from '../../hooks/manager-role.js';
import { readSettings } from '../../process/settings.js';
import { denCrds } from '../../contract/index.js';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';
import { renderInstall } from '../../infra/install/synth.js';
import type { KubeObject } from '../../kube/client.js';
import { KubeconfigError } from '../../kube/connection.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { scrape, total } from '../support/metrics.js';
import { freePort, kubeconfigYaml } from '../support/loopback.js';
import { RoundRobinTcpProxy } from '../support/round-robin.js';
import { HarnessKubelet } from '../support/harness-kubelet.js';
import { generateSshKey } from '../support/ssh-keys.js';
import { eventually } from './support/eventually.js';
import { eventually as eventuallyAsync } from '../support/platform.js';
import { IMAGES } from './admission/world.js';

async function probe(url: string): Promise<number | undefined> {
  try {
    return (await fetch(url)).status;
  } catch {
    return undefined;
  }
}

describe('den manager', () => {
  let api: FakeApiServer;
  let dir: string;

  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.installCrds(denCrds().map((crd) => ({ ...crd })));
    dir = await mkdtemp(join(tmpdir(), 'den-manager-'));
  });

  afterEach(async () => {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The install chart's webhook configurations and the catalog: the API server then sends its reviews to the manager. */
  const seedWebhooks = () => api.seed(...(renderInstall(DEFAULT_SETTINGS) as KubeObject[]).filter((o) => o.kind!.endsWith('WebhookConfiguration')), ...IMAGES);

  /** A UserSpace with this quota, once the manager has made it Ready. */
  async function readyUserSpace(name: string, quota: Record<string, unknown>): Promise<void> {
    await api.client().create(RESOURCES.userSpace, { apiVersion: 'den.dev/v1alpha1', kind: 'UserSpace', metadata: { name }, spec: { owner: `${name}@example.com`, quota, networkPolicy: 'ClusterEgress' } });
    await eventually(() => api.object<KubeObject & { status?: { phase?: string } }>(RESOURCES.userSpace, name)?.status?.phase === 'Ready', `${name} Ready`, 10_000);
  }

  const stoppedWorkspace = (name: string, namespace: string, storage: string): KubeObject => ({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name, namespace }, spec: { imageRef: { name: 'python' }, storage, running: false } });

  /** Undefined when the API server stores the Workspace, else its refusal's message. */
  const refusalOf = (body: KubeObject) => api.client().create(RESOURCES.workspace, body).then(() => undefined, (err: Error) => err.message);

  /** `den manager` as the admin, on free loopback ports, until `stop` aborts. */
  /** `webhook`: the port it listens on for reviews, and the one it registers (as a Service would front every replica); by default one free port for both. */
  async function startRole(args: string[] = [], webhook: { listen?: number; registered?: number } = {}) {
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, kubeconfigYaml(api.url, 'admin', api.adminToken));
    const healthPort = await freePort();
    const listen = webhook.listen ?? (await freePort());
    const settings = readSettings(managerRole.settings, [
      `--kubeconfig=${kubeconfig}`, `--health-listen=127.0.0.1:${healthPort}`, `--webhook-listen=127.0.0.1:${listen}`,
      `--webhook-url=https://127.0.0.1:${webhook.registered ?? listen}`, ...args,
    ], {});
    const stop = new AbortController();
    return { health: `http://127.0.0.1:${healthPort}`, stop, running: managerRole.run(settings, stop.signal) };
  }

  it('starts against a kubeconfig, serves health, leads, reconciles, and releases the Lease on shutdown', async () => {
    const { health, stop, running } = await startRole(['--gateway-host=ssh.den.test']);
    await eventually(() => api.object(RESOURCES.lease, 'den-manager', 'svc-system'), 'the Lease', 10_000);
    let ready: number | undefined;
    await eventuallyAsync(async () => (ready = await probe(`${health}/readyz`)) === 200, 'den manager ready', 10_000, 50);
    expect(ready).to.equal(200);
    expect(await probe(`${health}/healthz`)).to.equal(200);
    expect(api.object(RESOURCES.secret, 'den-gateway-host-key', 'svc-system')).to.not.equal(undefined);
    expect(api.object(RESOURCES.secret, 'den-webhook-tls', 'svc-system')).to.not.equal(undefined);

    await readyUserSpace('carol', { cpu: '2', memory: '4Gi', storage: '20Gi', workspaces: 1 });

    stop.abort();
    await running;
    const lease = api.object<KubeObject & { spec?: { holderIdentity?: string | null } }>(RESOURCES.lease, 'den-manager', 'svc-system');
    expect(lease?.spec?.holderIdentity).to.equal(null);
    expect(await probe(`${health}/healthz`)).to.equal(undefined);
  });

  it('lists and watches UserSpaces and Workspaces once for the loop and the webhooks, whose reviews read the same cache', async () => {
    seedWebhooks();
    const { health, stop, running } = await startRole();
    try {
      await eventuallyAsync(async () => (await probe(`${health}/readyz`)) === 200, 'den manager ready', 10_000, 50);
      const reads = (path: string) => api.requests.filter((r) => r.method === 'GET' && r.path === path);
      for (const path of ['/apis/den.dev/v1alpha1/userspaces', '/apis/den.dev/v1alpha1/workspaces']) {
        const watches = reads(path).filter((r) => /[?&]watch=(1|true)/.test(r.query)).length;
        expect([reads(path).length - watches, watches], `lists and watches of ${path}`).to.deep.equal([1, 1]);
      }
      const quota = { cpu: '2', memory: '4Gi', storage: '20Gi', workspaces: 1 };
      await readyUserSpace('dana', quota);
      const workspace = (name: string) => stoppedWorkspace(name, 'svc-dana', '10Gi');
      const refusal = (name: string) => refusalOf(workspace(name));
      const first = await refusal('one');
      // The loop reconciled it, so the cache the webhooks read holds it.
      await eventually(() => api.object<KubeObject & { status?: { phase?: string } }>(RESOURCES.workspace, 'one', 'svc-dana')?.status?.phase, 'Workspace one reconciled', 10_000);
      const second = await refusal('two');
      expect(second).to.include('exceeded quota of UserSpace "dana" (spec.quota.workspaces)');
      expect(first, 'the first Workspace').to.equal(undefined);
    } finally {
      stop.abort();
      await running;
    }
  });

  it('answers reviews on the replica that does not lead from its own caches, as the leading one would', async () => {
    seedWebhooks();
    // Both replicas register the follower's address: every review the API server sends goes to it.
    const followerWebhook = await freePort();
    const leader = await startRole([], { registered: followerWebhook });
    const replicas = [leader];
    try {
      await eventuallyAsync(async () => (await probe(`${leader.health}/readyz`)) === 200, 'the first replica ready', 10_000, 50);
      const holder = () => api.object<KubeObject & { spec?: { holderIdentity?: string | null } }>(RESOURCES.lease, 'den-manager', 'svc-system')?.spec?.holderIdentity;
      const leading = holder();
      expect(leading).to.be.a('string');
      const follower = await startRole([], { listen: followerWebhook });
      replicas.push(follower);
      await eventuallyAsync(async () => (await probe(`${follower.health}/readyz`)) === 200, 'the second replica ready', 10_000, 50);

      const quota = { cpu: '2', memory: '4Gi', storage: '20Gi', workspaces: 1 };
      await readyUserSpace('erin', quota);
      const workspace = (name: string) => stoppedWorkspace(name, 'svc-erin', '10Gi');
      const refusal = (name: string) => refusalOf(workspace(name));
      expect(await refusal('one'), 'the first Workspace').to.equal(undefined);
      await eventually(() => api.object<KubeObject & { status?: { phase?: string } }>(RESOURCES.workspace, 'one', 'svc-erin')?.status?.phase, 'Workspace one reconciled', 10_000);
      expect(await refusal('two')).to.include('exceeded quota of UserSpace "erin" (spec.quota.workspaces)');
      expect(api.object(RESOURCES.workspace, 'two', 'svc-erin')).to.equal(undefined);

      const [onFollower, onLeader] = [await scrape(follower.health), await scrape(leader.health)];
      expect(total(onFollower, 'den_admission_reviews_total', { allowed: 'false' }), 'refusals the follower answered').to.be.at.least(1);
      expect(total(onFollower, 'den_admission_reviews_total', { allowed: 'true' }), 'admissions the follower answered').to.be.at.least(2);
      expect(total(onLeader, 'den_admission_reviews_total'), 'reviews the leader answered').to.equal(0);
      expect(holder(), 'the Lease holder').to.equal(leading);
      expect(total(onFollower, 'den_reconciles_total'), 'reconciles on the follower').to.equal(0);
      expect(total(onLeader, 'den_reconciles_total'), 'reconciles on the leader').to.be.above(0);
    } finally {
      for (const replica of replicas) replica.stop.abort();
      await Promise.all(replicas.map((replica) => replica.running));
    }
  });

  it('keeps a person within the workspace quota when creates race through two replicas whose caches have not seen each other\'s', async () => {
    seedWebhooks();
    const ports = [await freePort(), await freePort()];
    // One address for both replicas, as the webhook Service is: each connection goes to the next replica.
    const service = new RoundRobinTcpProxy(ports.map((port) => ({ host: '127.0.0.1', port })));
    const servicePort = await service.listen();
    const replicas = [];
    try {
      for (const port of ports) replicas.push(await startRole([], { listen: port, registered: servicePort }));
      for (const replica of replicas) await eventuallyAsync(async () => (await probe(`${replica.health}/readyz`)) === 200, 'a replica ready', 10_000, 50);
      const quota = { cpu: '2', memory: '4Gi', storage: '20Gi', workspaces: 2 };
      await readyUserSpace('finn', quota);

      // From here on no replica's cache sees a new Workspace before all four creates are answered.
      api.setWatchLag(3_000);
      const workspace = (name: string) => stoppedWorkspace(name, 'svc-finn', '5Gi');
      const refusal = (name: string) => refusalOf(workspace(name));
      const answers = await Promise.all(['a', 'b', 'c', 'd'].map(refusal));
      expect(api.objects(RESOURCES.workspace, 'svc-finn'), 'Workspaces stored').to.have.length(2);
      const refused = answers.filter((a): a is string => a !== undefined);
      expect(refused, 'refusals').to.have.length(2);
      // The replicas' caches still held none of the four, so the API server's own count in ResourceQuota svc-quota refused them.
      for (const message of refused) expect(message).to.match(/is forbidden: exceeded quota: svc-quota, requested: count\/workspaces\.den\.dev=1, used: count\/workspaces\.den\.dev=2, limited: count\/workspaces\.den\.dev=2$/);
      const served = await Promise.all(replicas.map(async (replica) => total(await scrape(replica.health), 'den_admission_reviews_total', { allowed: 'true' })));
      expect(served.every((n) => n > 0), `admissions answered by each replica: ${served.join(', ')}`).to.equal(true);

      // Once their watches deliver, either replica refuses the next one itself, in its own words.
      api.setWatchLag(0);
      await eventuallyAsync(async () => (await refusal('e'))?.includes('exceeded quota of UserSpace "finn" (spec.quota.workspaces)') === true, 'the webhook\'s own refusal', 10_000, 100);
      expect(api.objects(RESOURCES.workspace, 'svc-finn'), 'Workspaces stored').to.have.length(2);
    } finally {
      for (const replica of replicas) replica.stop.abort();
      await Promise.all(replicas.map((replica) => replica.running));
      await service.close();
    }
  });

  it('admits a workspace in place of one deleted a moment ago, though its cache still counts the deleted one', async () => {
    seedWebhooks();
    const role = await startRole();
    try {
      await eventuallyAsync(async () => (await probe(`${role.health}/readyz`)) === 200, 'den manager ready', 10_000, 50);
      const quota = { cpu: '2', memory: '4Gi', storage: '20Gi', workspaces: 1 };
      await readyUserSpace('hana', quota);
      const workspace = (name: string) => stoppedWorkspace(name, 'svc-hana', '5Gi');
      await api.client().create(RESOURCES.workspace, workspace('old'), 'svc-hana');
      await eventually(() => api.object<KubeObject & { status?: { phase?: string } }>(RESOURCES.workspace, 'old', 'svc-hana')?.status?.phase === 'Suspended', 'Workspace old reconciled', 10_000);

      // The replica's watches stay behind from here on: its cache still holds "old" when "new" is reviewed.
      api.setWatchLag(3_000);
      await api.client().delete(RESOURCES.workspace, 'old', 'svc-hana');
      await eventually(() => api.object(RESOURCES.workspace, 'old', 'svc-hana') === undefined, 'Workspace old gone from the API server', 10_000);
      const answer = await api.client().create(RESOURCES.workspace, workspace('new'), 'svc-hana').then(() => 'admitted', (err: Error) => err.message);
      expect(answer).to.equal('admitted');
      // And a refusal the API server confirms is still a refusal, in the webhook's words.
      const second = await api.client().create(RESOURCES.workspace, workspace('another'), 'svc-hana').then(() => 'admitted', (err: Error) => err.message);
      expect(second).to.include('exceeded quota of UserSpace "hana" (spec.quota.workspaces)');
    } finally {
      role.stop.abort();
      await role.running;
    }
  });

  it('says why a workspace does not start when the namespace\'s quota refuses its pod, and what to do', async () => {
    seedWebhooks();
    const kubelet = new HarnessKubelet(api);
    const role = await startRole();
    const stopKubelet = new AbortController();
    const kubeletRunning = kubelet.run(stopKubelet.signal);
    try {
      await eventuallyAsync(async () => (await probe(`${role.health}/readyz`)) === 200, 'den manager ready', 10_000, 50);
      const quota = { cpu: '2', memory: '4Gi', storage: '20Gi', workspaces: 2 };
      await readyUserSpace('gus', quota);
      // A pod started from inside a workspace (its ServiceAccount may): Den's own count of the
      // Workspaces' requests does not see it, the namespace's ResourceQuota does.
      await api.client().create(RESOURCES.pod, {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'batch-job', namespace: 'svc-gus' },
        spec: { containers: [{ name: 'job', image: 'busybox', resources: { requests: { cpu: '1500m', memory: '1Gi' }, limits: { cpu: '1500m', memory: '1Gi' } } }] },
      }, 'svc-gus');
      const { publicLine } = generateSshKey('ed25519');
      await api.client().create(RESOURCES.workspace, {
        apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev', namespace: 'svc-gus' },
        spec: { imageRef: { name: 'python' }, storage: '5Gi', running: true, sshAuthorizedKeys: [publicLine], resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } },
      }, 'svc-gus');
      type Status = { phase?: string; conditions?: { type: string; status: string; reason: string; message: string }[] };
      const statusOf = () => api.object<KubeObject & { status?: Status }>(RESOURCES.workspace, 'dev', 'svc-gus')?.status;
      await eventually(() => statusOf()?.phase === 'Failed', 'Workspace dev Failed', 10_000);
      const ready = statusOf()!.conditions!.find((c) => c.type === 'Ready')!;
      expect(ready).to.include({ status: 'False', reason: 'QuotaExceeded' });
      expect(ready.message).to.match(/^Pod dev-0 cannot be created: the cluster refused it at \d\d:\d\d:\d\d UTC because namespace svc-gus has no room left in its quota \(ResourceQuota svc-quota\): it needs 1 CPU while 1500m of 2 are in use\. /);
      expect(ready.message).to.include('stop a workspace or delete pods you no longer need, or ask an administrator for a larger quota');
      expect(api.object(RESOURCES.pod, 'dev-0', 'svc-gus'), 'the refused pod').to.equal(undefined);
    } finally {
      stopKubelet.abort();
      role.stop.abort();
      await Promise.all([role.running, kubeletRunning.catch(() => undefined)]);
    }
  });

  it('paces the loop at 16 reconciles in flight and 200 requests per second (burst 400) unless told, and refuses a burst of 0 naming the flag', () => {
    const defaults = readSettings(managerRole.settings, [], {});
    expect({ inFlight: defaults.reconcilesInFlight, qps: defaults.kubeQps, burst: defaults.kubeBurst }).to.deep.equal({ inFlight: 16, qps: 200, burst: 400 });
    const set = readSettings(managerRole.settings, ['--reconciles-in-flight=4', '--kube-qps=0'], { DEN_KUBE_BURST: '50' });
    expect({ inFlight: set.reconcilesInFlight, qps: set.kubeQps, burst: set.kubeBurst }).to.deep.equal({ inFlight: 4, qps: 0, burst: 50 });
    expect(() => readSettings(managerRole.settings, ['--kube-burst=0'], {})).to.throw(/--kube-burst.*expected a whole number from 1 to 100000, got '0'/);
  });

  it('stops with one line naming the setting when the kubeconfig cannot be read', async () => {
    const settings = readSettings(managerRole.settings, [`--kubeconfig=${join(dir, 'missing')}`, '--health-listen=127.0.0.1:0'], {});
    const err = await managerRole.run(settings, new AbortController().signal).then(() => undefined, (e: Error) => e);
    expect(err).to.be.instanceOf(KubeconfigError);
    expect(err?.message).to.equal(`kubeconfig ${join(dir, 'missing')}: no such file`);
  });
});
