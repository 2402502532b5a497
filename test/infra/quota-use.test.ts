// What workspaces hold against a quota, fed alike to its two readers: the webhook that admits
// a workspace (hooks/admission/workspace-quota.ts) and the quota lines of the /new and profile
// pages (server/pages/new.ts). Both read infra/crds/quota-use.ts; a workspace asking for
// exactly what is left is admitted and one asking for a little more is refused, at the very
// amount the pages show as used.
import { expect } from 'chai';
import { checkQuota } from '../../hooks/admission/workspace-quota.js';
import { parseResources } from '../../hooks/admission/workspace-resources.js';
import type { Workspace } from '../../infra/crds/workspace.js';
import { quotaLines } from '../../server/pages/new.js';

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

/** The webhook's refusals of a new workspace next to HELD. */
function refusals(spec: Workspace['spec']): string[] {
  const ws = workspace('new', { running: true, ...spec });
  return checkQuota({
    operation: 'CREATE',
    workspace: ws,
    parsed: parseResources(ws.spec?.resources, []),
    userSpace: { metadata: { name: 'alice' }, spec: { owner: 'alice@example.com', quota: QUOTA } },
    others: HELD,
    claims: [],
    gpuResource: GPU,
  }).map((v) => v.field);
}

describe('what workspaces hold against a quota, as the webhook and the pages count it', () => {
  const used = Object.fromEntries(quotaLines({ spec: { quota: QUOTA } }, HELD, GPU).map((l) => [l.what, l.used]));

  it('shows the running workspaces’ requests (a limit where no request is set), every workspace’s storage and the count', () => {
    expect(used).to.deep.equal({ workspaces: '3', CPU: '2', memory: '3Gi', storage: '16Gi', GPUs: '1' });
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
