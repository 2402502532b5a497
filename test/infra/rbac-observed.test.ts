// The three real processes under the chart's RBAC (test/support/platform.ts), one UserSpace
// with a pull Secret provisioned and deleted: every API call each process made is one
// test/infra/rbac-needs.ts lists, and so one the chart grants (rbac.test.ts).
import { expect } from 'chai';
import type { KubeObject } from '../../kube/client.js';
import { LABELS, SYSTEM_NAMESPACE, userNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { eventually, gone, LocalPlatform } from '../support/platform.js';
import { uncoveredRequests, type Process } from './rbac-needs.js';

const CONVERGE_MS = 15_000;

describe('install RBAC in use', function () {
  this.timeout(60_000);
  const platform = new LocalPlatform();

  before(async () => {
    await platform.start();
  });

  after(async function () {
    this.timeout(20_000);
    await platform.stop();
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
