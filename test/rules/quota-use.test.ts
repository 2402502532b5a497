// What workspaces hold against a quota has one home, contract/quota-use.ts, fed alike here to
// its two readers: the webhook that admits a workspace (hooks/admission/workspace-quota.ts)
// and the quota lines of the /new and profile pages (server/pages/new.ts). A workspace asking
// for exactly what is left is admitted and one asking for a little more is refused, at the very
// amount the pages show as used. The count of workspaces is also kept by the cluster, in the
// ResourceQuota svc-quota: the chart limits it under the key REST reads it back from, and the
// cluster refuses the workspace too many where the webhook does.
import { expect } from 'chai';
import { checkQuota } from '../../hooks/admission/workspace-quota.js';
import { parseResources } from '../../hooks/admission/workspace-resources.js';
import { quotaHard } from '../../hooks/userspace/children/resource-quota.js';
import { denCrds } from '../../contract/index.js';
import { quotaUse } from '../../contract/quota-use.js';
import { QUOTA_NAME } from '../../contract/user-space.js';
import type { Workspace } from '../../contract/workspace.js';
import type { KubeObject } from '../../kube/client.js';
import { formatQuantity } from '../../kube/quantity.js';
import { RESOURCES } from '../../kube/resources.js';
import { usageOf } from '../../server/api/mapping.js';
import { quotaLines } from '../../server/pages/new.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { refusal } from '../support/fake-apiserver/refusal.js';

const GPU = 'nvidia.com/gpu';

function workspace(name: string, spec: Workspace['spec']): Workspace {
  return { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name, namespace: 'svc-alice' }, spec: { imageRef: { name: 'ubuntu' }, storage: '10Gi', ...spec } };
}

const HELD: Workspace[] = [
  workspace('requests', { running: true, resources: { requests: { cpu: '1500m', memory: '2Gi' }, limits: { cpu: '2', memory: '4Gi' } } }),
  workspace('limits-only', { resources: { limits: { cpu: '500m', memory: '1Gi', [GPU]: '1' } }, storage: '5Gi' }),
  workspace('stopped', { running: false, resources: { requests: { cpu: '4', memory: '8Gi', [GPU]: '2' }, limits: { [GPU]: '2' } }, storage: '1Gi' }),
];

const QUOTA = { cpu: '4', memory: '8Gi', storage: '20Gi', gpu: 2, workspaces: 5 };

/** The webhook's refusals of a new workspace next to `others`, by field. */
function refusals(spec: Workspace['spec'], others: Workspace[] = HELD): string[] {
  const ws = workspace('new', { running: true, ...spec });
  return checkQuota({
    operation: 'CREATE',
    workspace: ws,
    parsed: parseResources(ws.spec?.resources, []),
    userSpace: { metadata: { name: 'alice' }, spec: { owner: 'alice@example.com', quota: QUOTA } },
    others,
    claims: [],
    gpuResource: GPU,
  }).map((v) => v.field);
}

describe('what workspaces hold against a quota, as the webhook and the pages count it', () => {
  const used = Object.fromEntries(quotaLines({ spec: { quota: QUOTA } }, HELD, GPU).map((l) => [l.what, l.used]));

  it('shows the running workspaces’ requests (a limit where no request is set), every workspace’s storage and the count', () => {
    expect(used).to.deep.equal({ workspaces: '3', CPU: '2', memory: '3Gi', storage: '16Gi', GPUs: '1' });
    const use = quotaUse(HELD, [], GPU);
    expect([use.workspaces, use.cpu, use.memory, use.storage, use.gpu].map(formatQuantity), 'the rule').to.deep.equal(['3', '2', '3Gi', '16Gi', '1']);
  });

  it('admits a workspace asking for exactly what the pages show as left, in every dimension', () => {
    expect(refusals({ resources: { requests: { cpu: '2', memory: '5Gi', [GPU]: '1' }, limits: { cpu: '2', memory: '5Gi', [GPU]: '1' } }, storage: '4Gi' })).to.deep.equal([]);
  });

  it('refuses a workspace asking for a little more than is left, naming each field', () => {
    expect(refusals({ resources: { requests: { cpu: '2001m', memory: '5121Mi', [GPU]: '2' }, limits: { cpu: '3', memory: '6Gi', [GPU]: '2' } }, storage: '4097Mi' })).to.deep.equal([
      'spec.resources.requests.cpu',
      'spec.resources.requests.memory',
      `spec.resources.limits.${GPU}`,
      'spec.storage',
    ]);
  });
});

describe('the count of workspaces in the ResourceQuota svc-quota, as the chart limits it, the cluster keeps it and REST reads it', () => {
  let api: FakeApiServer;
  before(async () => {
    api = new FakeApiServer();
    await api.start();
    api.installCrds(denCrds().map((crd) => ({ ...crd })));
    await api.client().create(RESOURCES.namespace, { metadata: { name: 'svc-alice' } });
  });
  after(() => api.close());

  it('counts every workspace under the key REST reads, and refuses the one over quota.workspaces where the webhook does', async () => {
    const admin = api.client();
    await admin.create(RESOURCES.resourceQuota, { metadata: { name: QUOTA_NAME }, spec: { hard: quotaHard({ quota: QUOTA, gpuResource: GPU }) } }, 'svc-alice');
    const countRefused = (others: Workspace[]) => refusals({}, others).includes('metadata.name');
    const stored: Workspace[] = [];
    for (const ws of [...HELD, workspace('fourth', {}), workspace('fifth', {})]) {
      expect(countRefused(stored), `the webhook counts room for ${ws.metadata?.name}`).to.equal(false);
      await admin.create(RESOURCES.workspace, ws as KubeObject, 'svc-alice');
      stored.push(ws);
      const usage = usageOf(await admin.get(RESOURCES.resourceQuota, QUOTA_NAME, 'svc-alice'), GPU);
      expect(usage.workspaces, 'REST').to.equal(stored.length);
      expect(quotaLines({ spec: { quota: QUOTA } }, stored, GPU)[0], 'the pages').to.deep.include({ what: 'workspaces', used: String(stored.length) });
    }
    expect(countRefused(stored), 'the webhook refuses the sixth').to.equal(true);
    const refused = await refusal(admin.create(RESOURCES.workspace, workspace('sixth', {}) as KubeObject, 'svc-alice'));
    expect(refused.status, 'the cluster refuses the sixth').to.equal(403);
    expect(refused.message).to.contain('exceeded quota');
  });
});
