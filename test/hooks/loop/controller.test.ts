import { expect } from 'chai';
import { Controller } from '../../../hooks/loop/controller.js';
import { startDeletion, type ControllerOptions, type ControllerSpec } from '../../../hooks/loop/spec.js';
import { APPLIED_HASH_ANNOTATION } from '../../../hooks/loop/plan.js';
import type { SyncHook } from '../../../hooks/loop/types.js';
import { KubeClient, type KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { FakeApiServer } from '../../support/fake-apiserver.js';
import { eventually } from '../support/eventually.js';

// A trivial parent: a Workspace in `svc-demo` whose spec.value becomes one ConfigMap
// (none when spec.value is absent); status says whether the child exists.
const NS = 'svc-demo';
type Seen = { errors: number };

function testHook(seen: Seen): SyncHook<{ prefix: string }, { markers: number }> {
  return ({ parent, children, related, config, errors }) => {
    const name = parent.metadata?.name ?? '';
    const spec = (parent.spec ?? {}) as { value?: string };
    if (errors?.length) seen.errors++;
    const desired: KubeObject[] = spec.value === undefined ? [] : [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-cfg` }, data: { value: `${config.prefix}${spec.value}` } }];
    const observed = children['ConfigMap.v1']?.[`${NS}/${name}-cfg`];
    const phase = errors?.length ? 'Failed' : spec.value === undefined || observed ? 'Ready' : 'Pending';
    return { status: { phase, markers: related.markers, ...(errors?.length ? { message: errors.map((e) => `${e.child}: ${e.message}`).join('; ') } : {}) }, children: desired };
  };
}

function parentObject(name: string, value?: string): KubeObject {
  return { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name, namespace: NS }, spec: value === undefined ? {} : { value } };
}

describe('reconcile controller', () => {
  let api: FakeApiServer;
  let stop: AbortController;
  let running: Promise<void>;
  let controller: Controller<{ prefix: string }, { markers: number }>;
  let seen: Seen;

  /** Starts the controller: its caches and its reconciles (`run`), or its caches alone, as on a replica that does not lead. */
  async function start(overrides: Partial<ControllerSpec<{ prefix: string }, { markers: number }>> = {}, options: ControllerOptions = {}, what: 'run' | 'caches' = 'run', client = api.client()) {
    seen = { errors: 0 };
    controller = new Controller(client, {
      name: 'test',
      parent: RESOURCES.workspace,
      children: [RESOURCES.configMap],
      parentLabel: 'den.dev/workspace',
      hook: testHook(seen),
      config: { prefix: 'v=' },
      relatedSources: [{
        name: 'markers',
        resource: RESOURCES.secret,
        namespace: 'svc-system',
        labelSelector: 'test/marker=true',
        parentsOf: (_obj, parents) => parents.list().map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`),
      }],
      related: (_parent, caches) => ({ markers: caches.markers!.list().length }),
      ...overrides,
    }, { backoff: { baseMs: 20, maxMs: 200, jitter: 0 }, shutdownGraceMs: 1000, log: process.env.LOOP_DEBUG ? (m, f) => console.log(m, JSON.stringify(f)) : undefined, ...options });
    stop = new AbortController();
    running = what === 'run' ? controller.run(stop.signal) : controller.runCaches(stop.signal);
    await controller.whenSynced();
  }

  const child = (name: string) => api.object<KubeObject & { data?: Record<string, string> }>(RESOURCES.configMap, `${name}-cfg`, NS);
  const parentOf = (name: string) => api.object<KubeObject & { status?: Record<string, unknown> }>(RESOURCES.workspace, name, NS);

  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });

  afterEach(async () => {
    stop.abort();
    await running;
    await api.close();
  });

  it('applies the child with a controller reference and writes status with observedGeneration', async () => {
    const [p] = api.seed(parentObject('a', 'one'));
    await start();
    const cm = await eventually(() => child('a'), 'the child ConfigMap');
    expect(cm.data).to.deep.equal({ value: 'v=one' });
    expect(cm.metadata?.ownerReferences).to.deep.equal([{ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', name: 'a', uid: p!.metadata!.uid, controller: true, blockOwnerDeletion: true }]);
    expect(cm.metadata?.labels).to.include({ 'den.dev/workspace': 'a', 'app.kubernetes.io/managed-by': 'den-manager' });
    expect((cm.metadata?.managedFields as { manager: string; operation: string }[]).map((e) => `${e.manager} ${e.operation}`)).to.deep.equal(['den-manager Apply']);
    const applied = api.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/configmaps/a-cfg'));
    expect(applied[0]?.query).to.include('fieldManager=den-manager').and.include('force=true');
    const status = await eventually(() => parentOf('a')?.status?.phase === 'Ready' && parentOf('a')!.status, 'status Ready');
    expect(status).to.deep.equal({ phase: 'Ready', markers: 0, observedGeneration: 1 });
  });

  it('writes the status of a new parent once: from the answers to its applies, not Pending until their watch events come', async () => {
    api.seed(parentObject('a', 'one'));
    await start();
    await eventually(() => parentOf('a')?.status?.phase === 'Ready', 'status Ready');
    await controller.reconcileNow(`${NS}/a`);
    const writes = api.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/workspaces/a/status'));
    expect(writes.length).to.equal(1);
    expect(controller.stats.statusWrites).to.equal(1);
  });

  it("caches a parent's children of different kinds with one copy of their equal controller reference and labels", async () => {
    api.seed(parentObject('a', 'one'));
    let observed: KubeObject[] = [];
    const hook: SyncHook<{ prefix: string }, { markers: number }> = ({ parent, children }) => {
      const name = parent.metadata?.name ?? '';
      observed = [...Object.values(children['ConfigMap.v1'] ?? {}), ...Object.values(children['ServiceAccount.v1'] ?? {})];
      return { status: { phase: 'Ready' }, children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-cfg` }, data: { value: 'x' } }, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: `${name}-sa` } }] };
    };
    await start({ children: [RESOURCES.configMap, RESOURCES.serviceAccount], hook });
    await eventually(() => observed.length === 2, 'both children observed by the hook');
    const [cm, sa] = observed;
    expect(cm!.kind).to.equal('ConfigMap');
    expect(sa!.kind).to.equal('ServiceAccount');
    expect(sa!.metadata?.ownerReferences).to.deep.equal(child('a')!.metadata?.ownerReferences);
    expect(sa!.metadata?.ownerReferences).to.equal(cm!.metadata?.ownerReferences);
    expect(sa!.metadata?.labels).to.equal(cm!.metadata?.labels);
  });

  it('follows a spec change and writes the new observedGeneration', async () => {
    api.seed(parentObject('a', 'one'));
    await start();
    await eventually(() => parentOf('a')?.status?.phase === 'Ready', 'status Ready');
    const current = parentOf('a')!;
    api.seed({ ...current, spec: { value: 'two' } });
    await eventually(() => child('a')?.data?.value === 'v=two', 'the child updated');
    await eventually(() => parentOf('a')?.status?.observedGeneration === 2, 'observedGeneration 2');
  });

  it('deletes a controlled child the hook no longer returns', async () => {
    api.seed(parentObject('a', 'one'));
    await start();
    await eventually(() => child('a'), 'the child');
    api.seed({ ...parentOf('a')!, spec: {} });
    await eventually(() => !child('a'), 'the child deleted');
  });

  it('never deletes an object it does not control, even with its label', async () => {
    api.seed(parentObject('a'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stranger', namespace: NS, labels: { 'den.dev/workspace': 'a' } } });
    await start();
    await eventually(() => parentOf('a')?.status?.phase === 'Ready', 'status Ready');
    await controller.reconcileNow(`${NS}/a`);
    expect(api.object(RESOURCES.configMap, 'stranger', NS)).to.not.equal(undefined);
  });

  it('restores a child deleted by hand', async () => {
    api.seed(parentObject('a', 'one'));
    await start();
    const first = await eventually(() => child('a'), 'the child');
    api.remove(RESOURCES.configMap, 'a-cfg', NS);
    const again = await eventually(() => child('a'), 'the child restored');
    expect(again.metadata?.uid).to.not.equal(first.metadata?.uid);
  });

  it('restores a child edited by hand', async () => {
    api.seed(parentObject('a', 'one'));
    await start();
    const cm = await eventually(() => child('a'), 'the child');
    api.seed({ ...cm, data: { value: 'tampered' } });
    await eventually(() => child('a')?.data?.value === 'v=one', 'the child restored');
  });

  it('restores the parent label of a child when it was removed by hand', async () => {
    api.seed(parentObject('a', 'one'));
    await start();
    const cm = await eventually(() => child('a'), 'the child');
    // The child watch selects by this label, so the API server reports the child as DELETED.
    const { 'den.dev/workspace': _removed, ...otherLabels } = cm.metadata!.labels!;
    api.seed({ ...cm, metadata: { ...cm.metadata, labels: otherLabels } });
    expect(child('a')?.metadata?.labels?.['den.dev/workspace']).to.equal(undefined);
    await eventually(() => child('a')?.metadata?.labels?.['den.dev/workspace'] === 'a', 'the parent label restored');
    expect(child('a')?.metadata?.uid).to.equal(cm.metadata?.uid);
  });

  it('applies nothing and writes no status when nothing changed', async () => {
    api.seed(parentObject('a', 'one'));
    await start();
    await eventually(() => parentOf('a')?.status?.phase === 'Ready', 'status Ready');
    await controller.reconcileNow(`${NS}/a`);
    const before = api.requests.length;
    const outcome = await controller.reconcileNow(`${NS}/a`);
    expect(outcome).to.deep.equal({ ok: true });
    expect(api.requests.slice(before).filter((r) => r.method !== 'GET')).to.deep.equal([]);
  });

  it('retries a status write that met a conflict and still writes the status', async () => {
    api.seed(parentObject('a', 'one'));
    api.failNext('PUT', /\/workspaces\/a\/status$/, 409, { message: 'Operation cannot be fulfilled on workspaces.den.dev "a": the object has been modified; please apply your changes to the latest version and try again' }, 2);
    await start();
    await eventually(() => parentOf('a')?.status?.phase === 'Ready', 'status Ready');
    const puts = api.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/workspaces/a/status'));
    expect(puts.length).to.be.at.least(3);
  });

  it("keeps another writer's status field when its own status write met a conflict", async () => {
    api.seed(parentObject('a', 'one'));
    await start({ foreignStatusFields: ['lastActivityTime'] });
    await eventually(() => parentOf('a')?.status?.phase === 'Ready', 'status Ready');
    // The gateway records activity; then a change makes the loop write status from a stale copy.
    const current = parentOf('a')!;
    api.failNext('PUT', /\/workspaces\/a\/status$/, 409);
    api.seed({ ...current, status: { ...current.status, lastActivityTime: '2026-01-01T00:00:00Z' } });
    api.seed({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'm1', namespace: 'svc-system', labels: { 'test/marker': 'true' } } });
    await eventually(() => parentOf('a')?.status?.markers === 1, 'status follows the related object');
    expect(parentOf('a')?.status?.lastActivityTime).to.equal('2026-01-01T00:00:00Z');
  });

  it('reconciles every parent when a related object changes', async () => {
    api.seed(parentObject('a', 'one'), parentObject('b', 'two'));
    await start();
    await eventually(() => parentOf('b')?.status?.phase === 'Ready', 'status Ready');
    api.seed({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'm1', namespace: 'svc-system', labels: { 'test/marker': 'true' } } });
    await eventually(() => parentOf('a')?.status?.markers === 1 && parentOf('b')?.status?.markers === 1, 'both statuses follow');
  });

  it('tells the hook which child failed and with what message, and retries until it applies', async () => {
    api.seed(parentObject('a', 'one'));
    api.failNext('PATCH', /\/configmaps\/a-cfg/, 403, { reason: 'Forbidden', message: 'configmaps "a-cfg" is forbidden: exceeded quota' }, 2);
    await start();
    const failed = await eventually(() => parentOf('a')?.status?.phase === 'Failed' && parentOf('a')!.status, 'status Failed');
    expect(failed.message).to.equal('ConfigMap/a-cfg: configmaps "a-cfg" is forbidden: exceeded quota');
    await eventually(() => parentOf('a')?.status?.phase === 'Ready', 'status Ready after the retry');
    expect(seen.errors).to.be.at.least(1);
    expect(controller.stats.failures).to.be.at.least(1);
  });

  it('reconciles every parent again on the relist period, with no event', async () => {
    api.seed(parentObject('a', 'one'), parentObject('b', 'two'));
    await start({}, { relistIntervalMs: 300 });
    await eventually(() => parentOf('a')?.status?.phase === 'Ready' && parentOf('b')?.status?.phase === 'Ready', 'status Ready');
    await new Promise((r) => setTimeout(r, 100));
    const settled = controller.stats.reconciles;
    const writesBefore = api.requests.filter((r) => r.method !== 'GET').length;
    await eventually(() => controller.stats.reconciles >= settled + 2, 'a reconcile of both parents', 2000);
    // Nothing was written, so no watch event caused these reconciles.
    expect(api.requests.filter((r) => r.method !== 'GET').length).to.equal(writesBefore);
  });

  it('relists after 410 Gone and keeps reconciling', async () => {
    api.seed(parentObject('a', 'one'));
    await start();
    await eventually(() => child('a'), 'the child');
    api.compact();
    api.dropWatches();
    api.seed(parentObject('b', 'two'));
    api.compact();
    await eventually(() => child('b'), 'a child for the parent created while the watch was down', 8000);
    const relists = api.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/workspaces') && !r.query.includes('watch'));
    expect(relists.length).to.be.at.least(2);
  });

  describe('leads', () => {
    const lists = () => api.requests.filter((r) => r.method === 'GET' && r.query.includes('limit=') && !r.query.includes('watch=')).length;

    it('follows the API server in its caches while it does not lead, and reconciles nothing', async () => {
      api.seed(parentObject('a', 'one'));
      await start({}, {}, 'caches');
      await api.client().create(RESOURCES.workspace, parentObject('b', 'two'), NS);
      await eventually(() => controller.parents.get('b', NS), 'the parent created meanwhile in the cache');
      const refused = await controller.reconcileNow(`${NS}/a`);
      expect(refused.ok).to.equal(false);
      expect(controller.stats.reconciles).to.equal(0);
      expect(api.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`)).to.deep.equal([`POST /apis/den.dev/v1alpha1/namespaces/${NS}/workspaces`]);
    });

    it('reconciles every cached parent when a lead begins, stops at its end, and leads again from the same caches with no list', async () => {
      api.seed(parentObject('a', 'one'), parentObject('b', 'two'));
      await start({}, {}, 'caches');
      const listed = lists();
      const first = new AbortController();
      const firstLead = controller.lead(first.signal);
      await eventually(() => parentOf('a')?.status?.phase === 'Ready' && parentOf('b')?.status?.phase === 'Ready' && controller.idle, 'both parents Ready');
      first.abort();
      await firstLead;
      // Between leads the caches follow a change, and nothing reconciles it.
      await api.client().patch(RESOURCES.workspace, 'a', { spec: { value: 'changed' } }, { namespace: NS, type: 'merge' });
      await eventually(() => (controller.parents.get('a', NS)?.spec as { value?: string } | undefined)?.value === 'changed', 'the change in the cache');
      expect(child('a')?.data?.value).to.equal('v=one');
      const second = new AbortController();
      const secondLead = controller.lead(second.signal);
      await eventually(() => child('a')?.data?.value === 'v=changed', 'the change reconciled on the next lead');
      second.abort();
      await secondLead;
      expect(lists()).to.equal(listed);
    });

    it('abandons the writes still waiting for the rate limit when its lead ends, instead of sending them after', async () => {
      const names = ['a', 'b', 'c', 'd', 'e', 'f'];
      api.seed(...names.map((n) => parentObject(n, n)));
      const limited = new KubeClient(api.connection(), undefined, { rateLimit: { perSecond: 4, burst: 1 } });
      await start({}, { shutdownGraceMs: 0 }, 'caches', limited);
      const writes = () => api.requests.filter((r) => r.method !== 'GET');
      const lead = new AbortController();
      const leading = controller.lead(lead.signal);
      await eventually(() => writes().length >= 1, 'the first write');
      lead.abort();
      const endedAt = performance.now();
      await leading;
      // This read waits behind every token reserved before it: a write still queued would have gone first.
      await limited.get(RESOURCES.namespace, NS);
      const late = writes().filter((r) => (r.at ?? 0) > endedAt + 250);
      expect(late.map((r) => `${r.method} ${r.path}`), 'writes sent after the lead ended').to.deep.equal([]);
      expect(writes().length, 'six children and six statuses were never all written').to.be.below(names.length * 2);
    });
  });

  describe('finalizer', () => {
    it('adds its finalizer, and on deletion finalizes, removes it and lets the parent go', async () => {
      const finalized: string[] = [];
      api.seed(parentObject('a', 'one'));
      await start({
        finalizer: {
          name: 'den.dev/test',
          async finalize(parent, { client, children }) {
            finalized.push(`${parent.metadata?.name}:${children.map((c) => c.metadata?.name).join(',')}`);
            await startDeletion(client, children);
          },
        },
      });
      await eventually(() => parentOf('a')?.metadata?.finalizers?.includes('den.dev/test'), 'the finalizer added');
      await eventually(() => parentOf('a')?.status?.phase === 'Ready', 'status Ready');
      await api.client().delete(RESOURCES.workspace, 'a', NS);
      await eventually(() => !parentOf('a'), 'the parent gone');
      expect(finalized).to.deep.equal(['a:a-cfg']);
      expect(child('a')).to.equal(undefined);
    });
  });

  describe('a parent fed by a polled outside source', () => {
    // The outside source: read by `related` (the loop's I/O), never by the hook.
    let outside: { tags: number; polls: number; runs: Record<string, number> };
    const pollingHook = (resyncAfterMs?: number): SyncHook<{ prefix: string }, { markers: number }> => ({ parent, related }) => {
      const name = parent.metadata?.name ?? '';
      outside.runs[name] = (outside.runs[name] ?? 0) + 1;
      return {
        status: { phase: 'Ready', markers: related.markers, request: parent.metadata?.annotations?.['den.dev/sync-requested'] ?? null },
        children: [],
        ...(name === 'polled' ? { resyncAfterMs } : {}),
      };
    };
    const polledRelated = async () => {
      outside.polls++;
      await new Promise((r) => setTimeout(r, 5));
      return { markers: outside.tags };
    };

    beforeEach(() => {
      outside = { tags: 1, polls: 0, runs: {} };
    });

    it('runs the parent again after the resyncAfterMs its hook asked for, with no event, and only that parent', async () => {
      api.seed(parentObject('polled'), parentObject('other'));
      await start({ hook: pollingHook(150), related: polledRelated });
      await eventually(() => parentOf('polled')?.status?.markers === 1 && parentOf('other')?.status?.markers === 1, 'both statuses from the first poll');
      // Each status write comes back as a watch event and one more run; let those pass first.
      await new Promise((r) => setTimeout(r, 200));
      outside.tags = 2;
      await eventually(() => parentOf('polled')?.status?.markers === 2, 'the polled parent follows the outside source', 2000);
      // Two more resyncs of the polled parent: a resync of every parent would have run the other by then.
      const polledRuns = outside.runs.polled!;
      await eventually(() => outside.runs.polled! >= polledRuns + 2, 'two more resyncs of the polled parent', 2000);
      expect(parentOf('other')?.status?.markers, 'a parent whose hook asked for no resync is not run again').to.equal(1);
    });

    it('stops polling when the controller stops', async () => {
      api.seed(parentObject('polled'));
      await start({ hook: pollingHook(50), related: polledRelated });
      await eventually(() => outside.polls >= 3, 'a few polls');
      stop.abort();
      await running;
      const polls = outside.polls;
      await new Promise((r) => setTimeout(r, 200));
      expect(outside.polls).to.equal(polls);
    });

    it('runs the hook again when only an annotation of the parent changes, its generation unchanged', async () => {
      api.seed(parentObject('polled'));
      await start({ hook: pollingHook(), related: polledRelated });
      const ready = await eventually(() => parentOf('polled')?.status?.phase === 'Ready' && parentOf('polled'), 'status Ready');
      expect(ready.status?.request).to.equal(null);
      const polls = outside.polls;
      await api.client().patch(RESOURCES.workspace, 'polled', { metadata: { annotations: { 'den.dev/sync-requested': '2026-06-01T12:00:00Z' } } }, { namespace: NS, type: 'merge' });
      const forced = await eventually(() => parentOf('polled')?.status?.request === '2026-06-01T12:00:00Z' && parentOf('polled'), 'the hook saw the annotation');
      expect(forced.metadata?.generation).to.equal(ready.metadata?.generation);
      expect(outside.polls).to.be.greaterThan(polls);
    });
  });

  it('marks the applied hash so an unchanged child is not applied again', async () => {
    api.seed(parentObject('a', 'one'));
    await start();
    const cm = await eventually(() => child('a'), 'the child');
    expect(cm.metadata?.annotations?.[APPLIED_HASH_ANNOTATION]).to.match(/^[0-9a-f]{16}$/);
  });
});
