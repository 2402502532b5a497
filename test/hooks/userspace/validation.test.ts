import { expect } from 'chai';
import { syncUserSpace } from '../../../hooks/userspace/sync.js';
import { CONFIG, input, observe, userSpace } from './inputs.js';

const VALID_QUOTA = { cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 0, workspaces: 3 };

describe('syncUserSpace with a spec it cannot render', () => {
  const cases: { name?: string; spec: Record<string, unknown>; message: string }[] = [
    { spec: { quota: { ...VALID_QUOTA, cpu: 'lots' } }, message: 'spec.quota.cpu: "lots" is not a valid quantity (examples: 500m, 2, 8Gi)' },
    { spec: { quota: { ...VALID_QUOTA, memory: '1.5 Gi' } }, message: 'spec.quota.memory: "1.5 Gi" is not a valid quantity (examples: 500m, 2, 8Gi)' },
    { spec: { quota: { ...VALID_QUOTA, storage: '-10Gi' } }, message: 'spec.quota.storage: "-10Gi" must not be negative' },
    { spec: { quota: { ...VALID_QUOTA, storage: undefined } }, message: 'spec.quota.storage: required' },
    { spec: { quota: { ...VALID_QUOTA, cpu: true } }, message: 'spec.quota.cpu: true is not a valid quantity (examples: 500m, 2, 8Gi)' },
    { spec: { quota: { ...VALID_QUOTA, gpu: 1.5 } }, message: 'spec.quota.gpu: must be a whole number of at least 0, got 1.5' },
    { spec: { quota: { ...VALID_QUOTA, workspaces: -1 } }, message: 'spec.quota.workspaces: must be a whole number of at least 0, got -1' },
    { spec: { quota: { ...VALID_QUOTA, workspaces: undefined } }, message: 'spec.quota.workspaces: required' },
    { spec: { quota: undefined }, message: 'spec.quota: required' },
    { spec: { owner: '' }, message: 'spec.owner: required, a non-empty string' },
    { spec: { networkPolicy: 'Open' }, message: 'spec.networkPolicy: must be Isolated or ClusterEgress, got "Open"' },
    { spec: { networkPolicy: undefined }, message: 'spec.networkPolicy: required, Isolated or ClusterEgress' },
    {
      name: 'a.b',
      spec: {},
      message: `metadata.name: "a.b" gives the namespace "svc-a.b", which is not a valid namespace name (lower-case letters, digits and '-', at most 63 characters)`,
    },
    {
      spec: { owner: '', quota: { ...VALID_QUOTA, cpu: 'x', memory: 'y' } },
      message: 'spec.owner: required, a non-empty string; spec.quota.cpu: "x" is not a valid quantity (examples: 500m, 2, 8Gi); spec.quota.memory: "y" is not a valid quantity (examples: 500m, 2, 8Gi)',
    },
  ];
  for (const c of cases) {
    it(`fails with "${c.message}"`, () => {
      const { status, children } = syncUserSpace(input(userSpace({ name: c.name, spec: c.spec })));
      expect(status.phase).to.equal('Failed');
      const ready = status.conditions.find((x) => x.type === 'Ready')!;
      expect(ready).to.include({ status: 'False', reason: 'InvalidSpec', message: `${c.message}; the existing children are kept as they are` });
      expect(children).to.deep.equal([]);
    });
  }

  it('returns the observed children as they are, so the loop changes and prunes nothing', () => {
    const good = syncUserSpace(input(userSpace({ labels: { 'den.dev/role': 'admin' } }))).children;
    const observed = observe(good);
    const { children } = syncUserSpace(input(userSpace({ labels: { 'den.dev/role': 'admin' }, spec: { quota: { ...VALID_QUOTA, cpu: 'lots' } } }), { children: observed }));
    // The observed ones carry what the API server added; the held ones are what the hook wrote.
    expect(children).to.deep.equal(good.slice().sort(byKindThenName));
  });

  const reserved: { what: string; name: string; managerNamespace: string }[] = [
    { what: 'svc-system', name: 'system', managerNamespace: 'svc-system' },
    { what: "the manager's own --namespace", name: 'platform', managerNamespace: 'svc-platform' },
  ];
  for (const c of reserved) {
    it(`refuses a name that gives ${c.what}, and renders nothing into it`, () => {
      const { status, children } = syncUserSpace(input(userSpace({ name: c.name }), { config: { ...CONFIG, managerNamespace: c.managerNamespace } }));
      expect(status.phase).to.equal('Failed');
      expect(status.conditions[0]!.message).to.equal(
        `metadata.name: "${c.name}" gives the namespace "svc-${c.name}", which is the platform's own namespace; choose another name; the existing children are kept as they are`,
      );
      expect(children).to.deep.equal([]);
    });
  }

  it('still empties the bindings when the UserSpace is disabled while its spec is broken', () => {
    const observed = observe(syncUserSpace(input(userSpace())).children);
    const { children, status } = syncUserSpace(input(userSpace({ labels: { 'den.dev/disabled': 'true' }, spec: { quota: 'none' } }), { children: observed }));
    const bindings = children.filter((c) => c.kind.endsWith('RoleBinding'));
    expect(bindings.length).to.equal(4);
    for (const b of bindings) expect(b, b.metadata.name).not.to.have.property('subjects');
    expect(status.conditions.find((c) => c.type === 'Disabled')).to.include({ status: 'True' });
  });
});

const ORDER = ['Namespace', 'ServiceAccount', 'ResourceQuota', 'LimitRange', 'NetworkPolicy', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding', 'Secret'];
function byKindThenName(a: { kind: string; metadata: { name: string } }, b: { kind: string; metadata: { name: string } }): number {
  return ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind) || a.metadata.name.localeCompare(b.metadata.name);
}

describe('syncUserSpace with a malformed parent', () => {
  const parents: { what: string; parent: Record<string, unknown>; message: string }[] = [
    { what: 'a spec that is a string', parent: { ...userSpace(), spec: 'x' }, message: 'spec.owner: required, a non-empty string; spec.quota: required; spec.networkPolicy: required, Isolated or ClusterEgress' },
    { what: 'a quota that is a list', parent: userSpace({ spec: { quota: ['4'] } }), message: 'spec.quota: required' },
    {
      what: 'no metadata.name',
      parent: { ...userSpace(), metadata: { uid: 'u' } },
      message: `metadata.name: "" gives the namespace "svc-", which is not a valid namespace name (lower-case letters, digits and '-', at most 63 characters)`,
    },
  ];
  for (const c of parents) {
    it(`answers Failed, never throws, for ${c.what}`, () => {
      const { status } = syncUserSpace(input(c.parent));
      expect(status.phase).to.equal('Failed');
      expect(status.conditions[0]!.message).to.equal(`${c.message}; the existing children are kept as they are`);
    });
  }

  it('ignores previous conditions that are not conditions', () => {
    const parent = userSpace({ status: { conditions: [null, 'Ready', { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] } as never });
    const { status } = syncUserSpace(input(parent));
    expect(status.conditions.map((c) => `${c.type}=${c.status}@${c.lastTransitionTime}`)).to.deep.equal([
      'Ready=False@2026-11-22T10:00:00Z',
      'Disabled=False@2026-11-22T10:00:00Z',
    ]);
  });
});
