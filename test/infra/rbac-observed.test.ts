// The three real processes under the chart's RBAC (test/support/platform.ts), one UserSpace
// with a pull Secret provisioned and deleted: every API call each process made is one
// test/infra/rbac-needs.ts lists, and so one the chart grants (rbac.test.ts).
import { expect } from 'chai';
import type { KubeObject } from '../../kube/client.js';
import { LABELS, SYSTEM_NAMESPACE, userNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { entryName } from '../../hooks/registry/names.js';
import { KubeApiError } from '../../kube/errors.js';
import { fakeAwsEnvironment, FakeEcr, useAwsEnvironment } from '../support/fake-ecr.js';
import { eventually, gone, LocalPlatform } from '../support/platform.js';
import { uncoveredRequests, type Process } from './rbac-needs.js';

const CONVERGE_MS = 15_000;

describe('install RBAC in use', function () {
  this.timeout(60_000);
  const platform = new LocalPlatform();
  const ecr = new FakeEcr({ accounts: { AKIDDENTEST: '111122223333' } });
  let restoreEnv: () => void = () => undefined;

  before(async () => {
    // The processes inherit this environment: den manager's AWS SDK lists the loopback ECR.
    await ecr.start();
    restoreEnv = useAwsEnvironment(fakeAwsEnvironment(ecr.url, 'AKIDDENTEST'));
    await platform.start();
  });

  after(async function () {
    this.timeout(20_000);
    await platform.stop();
    restoreEnv();
    await ecr.stop();
  });

  it('provisions and removes a UserSpace, mirroring a pull Secret, with only the calls rbac-needs.ts lists', async () => {
    const admin = platform.admin;
    await admin.create(RESOURCES.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'registry', namespace: SYSTEM_NAMESPACE, labels: { [LABELS.pullSecret]: 'true' } },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') },
    } as KubeObject, SYSTEM_NAMESPACE);
    await admin.create(RESOURCES.userSpace, {
      apiVersion: RESOURCES.userSpace.apiVersion,
      kind: RESOURCES.userSpace.kind,
      metadata: { name: 'carol', labels: { [LABELS.role]: 'admin' } },
      spec: { owner: 'carol@example.com', quota: { cpu: '2', memory: '4Gi', storage: '10Gi', workspaces: 1 }, networkPolicy: 'Isolated' },
    });
    const namespace = userNamespace('carol');
    await eventually(async () => (await admin.get<{ status?: { phase?: string } }>(RESOURCES.userSpace, 'carol')).status?.phase === 'Ready', 'UserSpace carol Ready', CONVERGE_MS);
    await admin.get(RESOURCES.secret, 'registry', namespace);

    await admin.delete(RESOURCES.userSpace, 'carol');
    await eventually(() => gone(admin.get(RESOURCES.userSpace, 'carol')), 'UserSpace carol to go', CONVERGE_MS);
    await eventually(() => gone(admin.get(RESOURCES.namespace, namespace)), `namespace ${namespace} to go`, CONVERGE_MS);

    const calls = (process: Process) => platform.api.requests.filter((r) => r.user === `system:serviceaccount:svc-system:${process}`);
    for (const process of ['den-manager', 'den-server', 'den-gateway'] as const) {
      expect(calls(process), `${process} made no call at all`).to.not.deep.equal([]);
      expect(uncoveredRequests(process, platform.api.requests), process).to.deep.equal([]);
    }
    expect(calls('den-manager').map((r) => `${r.verb} ${r.path}`)).to.include.members([
      'patch /api/v1/namespaces/svc-carol/secrets/registry',
      'delete /api/v1/namespaces/svc-carol',
      'create /apis/coordination.k8s.io/v1/namespaces/svc-system/leases',
    ]);
  });

  it('syncs an ImageRegistry into the catalog and collects its entries with it, with only the calls rbac-needs.ts lists', async () => {
    const admin = platform.admin;
    ecr.putRepository('111122223333', 'team/app', [{ tags: ['1.0'], pushedAt: 1_750_000_000 }]);
    ecr.putRepository('111122223333', 'base/ubuntu', [{ tags: ['24.04'], pushedAt: 1_750_000_000 }]);
    const registry = (include: string[]): KubeObject => ({
      apiVersion: RESOURCES.imageRegistry.apiVersion,
      kind: RESOURCES.imageRegistry.kind,
      metadata: { name: 'ecr' },
      spec: { provider: 'cloud-registry', cloud: { region: 'eu-west-1' }, sync: { include, prune: true } },
    });
    const denied = await admin.create(RESOURCES.imageRegistry, registry(['('])).then(() => undefined, (err: unknown) => err);
    expect(denied).to.be.instanceOf(KubeApiError);
    expect((denied as KubeApiError).message).to.match(/^admission webhook "vimageregistry\.den\.dev" denied the request: spec\.sync\.include\[0\]/);
    await admin.create(RESOURCES.imageRegistry, registry([]));
    const synced = () => admin.list(RESOURCES.workspaceImage, { labelSelector: 'den.dev/image-registry=ecr' }).then((l) => l.items);
    await eventually(async () => (await synced()).length === 2, 'two synced entries', CONVERGE_MS);
    await eventually(async () => (await admin.get<{ status?: { images?: number } }>(RESOURCES.imageRegistry, 'ecr')).status?.images === 2, 'status.images 2', CONVERGE_MS);
    ecr.deleteRepository('111122223333', 'base/ubuntu');
    await admin.patch(RESOURCES.imageRegistry, 'ecr', { metadata: { annotations: { 'den.dev/force-sync': 'rbac' } } });
    await eventually(async () => (await synced()).length === 1, 'the pruned entry deleted', CONVERGE_MS);
    await admin.delete(RESOURCES.imageRegistry, 'ecr');
    await eventually(async () => (await synced()).length === 0, 'the entries collected with their registry', CONVERGE_MS);
    expect(uncoveredRequests('den-manager', platform.api.requests)).to.deep.equal([]);
    const manager = platform.api.requests.filter((r) => r.user === 'system:serviceaccount:svc-system:den-manager').map((r) => `${r.verb} ${r.path}`);
    expect(manager).to.include.members([`patch /apis/den.dev/v1alpha1/workspaceimages/${entryName('ecr', 'team/app', '1.0')}`, 'update /apis/den.dev/v1alpha1/imageregistries/ecr/status']);
    expect(manager.some((r) => r.startsWith('delete /apis/den.dev/v1alpha1/workspaceimages/'))).to.equal(true);
  });

  it('notices a call the list does not name', () => {
    const record = { method: 'GET', path: '/api/v1/namespaces/svc-system/configmaps', query: '', user: 'system:serviceaccount:svc-system:den-gateway', verb: 'list' };
    expect(uncoveredRequests('den-gateway', [record])).to.deep.equal(['list configmaps in svc-system']);
    expect(uncoveredRequests('den-server', [record])).to.deep.equal([]);
  });

  it('lets every process read /version (system:public-info-viewer) and no other non-resource path', () => {
    const user = 'system:serviceaccount:svc-system:den-gateway';
    const version = { method: 'GET', path: '/version', query: '', user };
    const metrics = { method: 'GET', path: '/metrics', query: '', user };
    expect(uncoveredRequests('den-gateway', [version, metrics])).to.deep.equal(['GET /metrics']);
  });
});
