import { expect } from 'chai';
import { Manager, type ManagerOptions } from '../../hooks/manager.js';
import { NAMESPACE_FINALIZER } from '../../hooks/userspace/controller.js';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';
import { renderInstall } from '../../infra/install/synth.js';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { eventually } from './support/eventually.js';
import { pod, POD_STATUS, workspace, workspaceImage } from './workspace/inputs.js';
import { managerWorld, userSpace, SPEC_CHILDREN, type Obj } from './support/manager-world.js';

describe('den manager controllers', () => {
  const world = managerWorld();
  const { startManager, get, userNamespaceReady } = world;
  let api: FakeApiServer;
  beforeEach(() => {
    api = world.api;
  });

  describe('UserSpace', () => {
    it('creates every child of SPEC 1.2 with its exact name, owned by the UserSpace, and reports Ready', async () => {
      startManager();
      const created = await api.client().create<Obj>(RESOURCES.userSpace, userSpace('alice'));
      const status = await eventually(() => get(RESOURCES.userSpace, 'alice')?.status?.phase === 'Ready' && get(RESOURCES.userSpace, 'alice')!.status, 'UserSpace Ready');
      for (const [type, name, namespaced] of SPEC_CHILDREN) {
        const child = get(type, name, namespaced ? 'svc-alice' : undefined);
        expect(child, `${type.kind}/${name}`).to.not.equal(undefined);
        const owner = child!.metadata?.ownerReferences?.find((r) => r.controller);
        expect(owner, `${type.kind}/${name} owner`).to.include({ kind: 'UserSpace', name: 'alice', uid: created.metadata?.uid, blockOwnerDeletion: true });
      }
      expect(status.namespace).to.equal('svc-alice');
      expect(status.observedGeneration).to.equal(1);
      expect(get(RESOURCES.userSpace, 'alice')?.metadata?.finalizers).to.deep.equal([NAMESPACE_FINALIZER]);
      const owner = get(RESOURCES.roleBinding, 'svc-owner', 'svc-alice');
      expect(owner?.subjects).to.deep.include({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice@example.com' });
    });

    it("converges under the manager's own ServiceAccount with no failed first reconcile", async () => {
      // The chart's RBAC, so the API server's escalation check applies: a binding whose Role
      // does not exist yet is refused, as on a real cluster.
      const identity = ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];
      for (const obj of renderInstall(DEFAULT_SETTINGS)) if (identity.includes(String(obj.kind))) api.seed(obj);
      const minted = await api.client().request<{ status: { token: string } }>({ method: 'POST', path: '/api/v1/namespaces/svc-system/serviceaccounts/den-manager/token', body: { spec: {} } });
      // Role writes served late, as under load: a binding sent alongside its Role would arrive first.
      api.slowDown('PATCH', /\/(roles|clusterroles)\//, 100);
      const manager = startManager({}, api.client(minted.status.token));
      await api.client().create(RESOURCES.userSpace, userSpace('alice'));
      await api.client().create(RESOURCES.userSpace, userSpace('bob', { networkPolicy: 'ClusterEgress' }));
      for (const name of ['alice', 'bob']) await eventually(() => get(RESOURCES.userSpace, name)?.status?.phase === 'Ready', `${name} Ready`);
      expect(get(RESOURCES.roleBinding, 'svc-owner', 'svc-alice')).to.not.equal(undefined);
      expect(manager.controllers!.find((c) => c.spec.parent.kind === 'UserSpace')!.stats.failures).to.equal(0);
    });

    it('restores a child deleted by hand', async () => {
      startManager();
      await api.client().create(RESOURCES.userSpace, userSpace('alice'));
      const before = await eventually(() => get(RESOURCES.clusterRoleBinding, 'svc-userspace-alice'), 'the ClusterRoleBinding');
      await api.client().delete(RESOURCES.clusterRoleBinding, 'svc-userspace-alice');
      const after = await eventually(() => get(RESOURCES.clusterRoleBinding, 'svc-userspace-alice'), 'the ClusterRoleBinding restored');
      expect(after.metadata?.uid).to.not.equal(before.metadata?.uid);
    });

    it('mirrors a labelled pull Secret into every user namespace and removes the copies when it goes', async () => {
      startManager();
      await api.client().create(RESOURCES.userSpace, userSpace('alice'));
      await api.client().create(RESOURCES.userSpace, userSpace('bob'));
      await eventually(() => get(RESOURCES.userSpace, 'bob')?.status?.phase === 'Ready', 'bob Ready');
      await api.client().create(RESOURCES.secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'registry', labels: { 'den.dev/pull-secret': 'true' } }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': 'e30=' } }, 'svc-system');
      for (const ns of ['svc-alice', 'svc-bob']) {
        const copy = await eventually(() => get(RESOURCES.secret, 'registry', ns), `the copy in ${ns}`);
        expect(copy.data).to.deep.equal({ '.dockerconfigjson': 'e30=' });
      }
      await api.client().delete(RESOURCES.secret, 'registry', 'svc-system');
      await eventually(() => !get(RESOURCES.secret, 'registry', 'svc-alice') && !get(RESOURCES.secret, 'registry', 'svc-bob'), 'the copies removed');
    });

    it('empties every binding of a UserSpace labelled disabled and says so in its status', async () => {
      startManager();
      await userNamespaceReady();
      await api.client().patch(RESOURCES.userSpace, 'alice', { metadata: { labels: { 'den.dev/disabled': 'true' } } }, { type: 'merge' });
      const disabled = (o: Obj | undefined) => o?.status?.conditions?.find((c: { type: string }) => c.type === 'Disabled')?.status === 'True';
      await eventually(() => disabled(get(RESOURCES.userSpace, 'alice')), 'condition Disabled=True');
      const bindings = [
        get(RESOURCES.roleBinding, 'svc-owner', 'svc-alice'),
        get(RESOURCES.roleBinding, 'svc-reader', 'svc-alice'),
        get(RESOURCES.roleBinding, 'svc-workspace-edit', 'svc-alice'),
        get(RESOURCES.clusterRoleBinding, 'svc-userspace-alice'),
      ];
      for (const b of bindings) expect(b?.subjects, b?.metadata?.name).to.equal(undefined);
    });

    it("re-renders every user namespace's NetworkPolicy when the API server's endpoints change", async () => {
      startManager();
      await userNamespaceReady();
      const egressCidrs = () => JSON.stringify(get(RESOURCES.networkPolicy, 'svc-isolation', 'svc-alice')?.spec?.egress);
      expect(egressCidrs()).to.not.include('10.250.0.9/32');
      const slice = api.objects<Obj & { endpoints: { addresses: string[] }[] }>(RESOURCES.endpointSlice, 'default')[0]!;
      api.seed({ ...slice, endpoints: [{ ...slice.endpoints[0], addresses: ['10.250.0.9'] }] });
      await eventually(() => egressCidrs().includes('10.250.0.9/32'), 'the new API server address in the policy');
    });

    it('lets a deleted UserSpace go at once and removes its namespace and cluster-wide rights', async () => {
      startManager();
      await userNamespaceReady();
      await api.client().delete(RESOURCES.userSpace, 'alice');
      await eventually(() => !get(RESOURCES.userSpace, 'alice'), 'the UserSpace gone');
      await eventually(() => !get(RESOURCES.namespace, 'svc-alice'), 'the namespace gone');
      expect(get(RESOURCES.clusterRole, 'svc-userspace-alice')).to.equal(undefined);
      expect(get(RESOURCES.clusterRoleBinding, 'svc-userspace-alice')).to.equal(undefined);
      expect(api.objects(RESOURCES.serviceAccount, 'svc-alice')).to.deep.equal([]);
    });
  });

  describe('Workspace', () => {
    function storedWorkspace(): KubeObject {
      const ws = workspace();
      return { apiVersion: ws.apiVersion, kind: ws.kind, metadata: { name: ws.metadata!.name, namespace: ws.metadata!.namespace }, spec: ws.spec };
    }

    /** The manager running, alice's namespace Ready, the ubuntu WorkspaceImage stored, and Workspace alice-dev created. */
    async function managerWithWorkspace(overrides: Partial<ManagerOptions> = {}): Promise<Manager> {
      const manager = startManager(overrides);
      await userNamespaceReady();
      const image = workspaceImage();
      api.seed({ ...image, metadata: { name: image.metadata!.name } });
      await api.client().create(RESOURCES.workspace, storedWorkspace(), 'svc-alice');
      return manager;
    }

    it('creates the Service and StatefulSet and follows the pod to Running on its watch event, long before the 60 s relist', async () => {
      await managerWithWorkspace();
      const sts = await eventually(() => get(RESOURCES.statefulSet, 'alice-dev', 'svc-alice'), 'the StatefulSet');
      expect(sts.spec?.replicas).to.equal(1);
      expect(get(RESOURCES.service, 'alice-dev', 'svc-alice')).to.not.equal(undefined);
      await eventually(() => get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.status?.phase === 'Starting', 'phase Starting');
      const ready = pod(POD_STATUS.ready());
      const seededAt = Date.now();
      api.seed({ ...ready, metadata: { ...ready.metadata, uid: undefined, resourceVersion: undefined, ownerReferences: [] } });
      const status = await eventually(() => get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.status?.phase === 'Running' && get(RESOURCES.workspace, 'alice-dev', 'svc-alice')!.status, 'phase Running');
      expect(Date.now() - seededAt).to.be.below(15_000);
      expect(status.endpoint).to.equal('alice-dev@den.example.com');
      expect(status.podName).to.equal('alice-dev-0');
    });

    it('records a Resized Event by den.dev/manager when spec.resources changes, once the StatefulSet has the new size', async () => {
      await managerWithWorkspace();
      await eventually(() => get(RESOURCES.statefulSet, 'alice-dev', 'svc-alice'), 'the StatefulSet');
      const resized = () => api.objects<Obj & { reason: string; message: string; count: number; reportingComponent: string }>(RESOURCES.event, 'svc-alice').filter((e) => e.reason === 'Resized');
      expect(resized()).to.deep.equal([]);
      await api.client().patch(RESOURCES.workspace, 'alice-dev', { spec: { resources: { requests: { cpu: '2', memory: '4Gi' }, limits: { cpu: '2', memory: '4Gi' } } } }, { namespace: 'svc-alice', type: 'merge' });
      const [event] = await eventually(() => resized().length > 0 && resized(), 'the Resized Event');
      const container = (get(RESOURCES.statefulSet, 'alice-dev', 'svc-alice')?.spec as any).template.spec.containers[0];
      expect(container.resources).to.deep.equal({ requests: { cpu: '2', memory: '4Gi' }, limits: { cpu: '2', memory: '4Gi' } });
      expect(event!.message).to.equal('Resized: cpu request none → 2, memory request none → 4Gi, cpu limit none → 2, memory limit none → 4Gi. A running pod restarts with the new size; the home volume is kept.');
      expect(event!.reportingComponent).to.equal('den.dev/manager');
      expect(event!.metadata?.annotations).to.deep.equal({ 'den.dev/kind': 'lifecycle' });
    });

    describe('idle auto-stop', () => {
      const HOUR = 3_600_000;
      /** The manager's clock: real time plus a jump the test makes. */
      let ahead = 0;
      const clock = () => new Date(Date.now() + ahead);

      async function runningWorkspace(idleStop: boolean): Promise<Manager> {
        ahead = 0;
        const manager = await managerWithWorkspace({
          config: { namespace: 'svc-system', gatewayHost: 'den.example.com', gpuResource: 'nvidia.com/gpu', relistIntervalMs: 60_000, idleStop },
          controller: { backoff: { baseMs: 20, maxMs: 500, jitter: 0.1 }, clock },
        });
        await eventually(() => get(RESOURCES.statefulSet, 'alice-dev', 'svc-alice'), 'the StatefulSet');
        const ready = pod(POD_STATUS.ready());
        api.seed({ ...ready, metadata: { ...ready.metadata, uid: undefined, resourceVersion: undefined, ownerReferences: [] } });
        await eventually(() => get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.status?.phase === 'Running', 'phase Running');
        // The idle clock counts from Ready's lastTransitionTime: it must be written before the
        // test moves the clock, or it is stamped five hours late and nothing is ever idle.
        await eventually(
          () => get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True'),
          'Ready True',
        );
        const workspaces = manager.controllers!.find((c) => c.spec.parent.kind === 'Workspace')!;
        const before = workspaces.stats.reconciles;
        touchPod('settled');
        await eventually(() => workspaces.stats.reconciles > before, 'a reconcile once ready');
        touchPod('settled-again');
        await eventually(() => workspaces.stats.reconciles > before + 1, 'a second reconcile once ready');
        return manager;
      }

      function touchPod(value: string) {
        const current = get(RESOURCES.pod, 'alice-dev-0', 'svc-alice')!;
        api.seed({ ...current, metadata: { ...current.metadata, labels: { ...current.metadata!.labels, touched: value } } });
      }

      /** Five hours later, something about the pod changes, so the hook runs again. */
      function fiveHoursLater() {
        ahead = 5 * HOUR;
        touchPod('yes');
      }

      /**
       * Five hours later, and then until a second reconcile has started: a parent's reconciles
       * run one at a time, so the first one that saw the jump, and any stop it decided, is done.
       */
      async function fiveHoursLaterAndReconciled(manager: Manager) {
        const workspaces = manager.controllers!.find((c) => c.spec.parent.kind === 'Workspace')!;
        const before = workspaces.stats.reconciles;
        fiveHoursLater();
        await eventually(() => workspaces.stats.reconciles > before, 'a reconcile after the jump');
        touchPod('again');
        await eventually(() => workspaces.stats.reconciles > before + 1, 'a second reconcile after the jump');
      }

      it('stops a workspace idle past its idleTimeout: running false, stopped-by idle, a Stopped Event by den.dev/manager and the IdleStopped condition; nothing deleted', async () => {
        await runningWorkspace(true);
        fiveHoursLater();
        const stopped = await eventually(() => {
          const ws = get(RESOURCES.workspace, 'alice-dev', 'svc-alice');
          return ws?.spec?.running === false && ws.status?.conditions?.some((c: { reason: string }) => c.reason === 'IdleStopped') && ws;
        }, 'the workspace stopped for idleness');
        expect(stopped.metadata?.annotations?.['den.dev/stopped-by']).to.equal('idle');
        const events = api.objects<Obj & { reason: string; message: string; involvedObject: { name: string; kind: string; uid: string }; source: { component: string }; reportingComponent: string }>(RESOURCES.event, 'svc-alice');
        expect(events.map((e) => [e.reason, e.involvedObject.kind, e.involvedObject.name, e.source.component, e.reportingComponent])).to.deep.equal([['Stopped', 'Workspace', 'alice-dev', 'den', 'den.dev/manager']]);
        expect(events[0]!.involvedObject.uid).to.equal(stopped.metadata?.uid);
        expect(events[0]!.metadata?.annotations).to.deep.equal({ 'den.dev/kind': 'lifecycle' });
        expect(events[0]!.message).to.match(/^Stopped by idle auto-stop after 5h with no SSH session or browser terminal open \(spec.idleTimeout 4h\)/);
        await eventually(() => get(RESOURCES.statefulSet, 'alice-dev', 'svc-alice')?.spec?.replicas === 0, 'the StatefulSet at 0 replicas');
        expect(get(RESOURCES.service, 'alice-dev', 'svc-alice')).to.not.equal(undefined);
      });

      it('leaves a workspace alone while its sessions keep lastActivityTime fresh, and does nothing when off', async () => {
        const manager = await runningWorkspace(true);
        const fresh = new Date(Date.now() + 5 * HOUR - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
        await api.client().patch(RESOURCES.workspace, 'alice-dev', { status: { lastActivityTime: fresh } }, { namespace: 'svc-alice', type: 'merge', subresource: 'status' });
        await eventually(() => get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.status?.lastActivityTime === fresh, 'the activity stored');
        await fiveHoursLaterAndReconciled(manager);
        expect(get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.spec?.running).to.equal(true);
        expect(api.objects(RESOURCES.event, 'svc-alice')).to.deep.equal([]);
      });

      it('never stops anything with idle stop off', async () => {
        await fiveHoursLaterAndReconciled(await runningWorkspace(false));
        expect(get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.spec?.running).to.equal(true);
      });
    });

    it('follows a change of its WorkspaceImage into the StatefulSet', async () => {
      await managerWithWorkspace();
      await eventually(() => get(RESOURCES.statefulSet, 'alice-dev', 'svc-alice'), 'the StatefulSet');
      const stored = get(RESOURCES.workspaceImage, 'ubuntu')!;
      api.seed({ ...stored, spec: { ...stored.spec, image: 'registry.example.com/dev/ubuntu:26.04' } });
      const containerImage = () => get(RESOURCES.statefulSet, 'alice-dev', 'svc-alice')?.spec?.template?.spec?.containers?.[0]?.image;
      await eventually(() => containerImage() === 'registry.example.com/dev/ubuntu:26.04', 'the new image in the pod template');
    });

    it('re-reconciles the Workspaces that use a WorkspaceImage when it goes', async () => {
      await managerWithWorkspace();
      await eventually(() => get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.status?.phase === 'Starting', 'phase Starting');
      await api.client().delete(RESOURCES.workspaceImage, 'ubuntu');
      const status = await eventually(() => get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.status?.phase === 'Pending' && get(RESOURCES.workspace, 'alice-dev', 'svc-alice')!.status, 'phase Pending');
      expect(status.conditions.find((c: { type: string }) => c.type === 'ImageResolved')).to.include({ status: 'False' });
      // The hook holds the children while the image is missing: nothing is pruned.
      expect(get(RESOURCES.statefulSet, 'alice-dev', 'svc-alice')).to.not.equal(undefined);
    });
  });

});
