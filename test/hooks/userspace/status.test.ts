import { expect } from 'chai';
import { syncUserSpace } from '../../../hooks/userspace/sync.js';
import type { Condition, ObservedChildren } from '../../../hooks/userspace/types.js';
import { input, NOW, NOW_TEXT, observe, related, userSpace } from './inputs.js';

const LATER = new Date('2026-11-22T10:05:00Z');
const LATER_TEXT = '2026-11-22T10:05:00Z';

function converged(labels: Record<string, string> = {}): ObservedChildren {
  return observe(syncUserSpace(input(userSpace({ labels }))).children);
}

function without(observed: ObservedChildren, kind: string, key: string): ObservedChildren {
  const copy = structuredClone(observed);
  delete copy[kind]![key];
  return copy;
}

const ready = (conditions: Condition[]) => conditions.find((c) => c.type === 'Ready')!;
const disabled = (conditions: Condition[]) => conditions.find((c) => c.type === 'Disabled')!;

describe('syncUserSpace status (SPEC 2.4, 3.2)', () => {
  it('is Pending and names what is missing while no child exists yet', () => {
    const { status } = syncUserSpace(input(userSpace({ generation: 3 })));
    expect(status).to.deep.equal({
      phase: 'Pending',
      observedGeneration: 3,
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'ChildrenMissing',
          message:
            'waiting for 16 of 16 children: Namespace/svc-alice, ServiceAccount/workspace, ServiceAccount/session, ServiceAccount/session-readonly, ResourceQuota/svc-quota, LimitRange/svc-limits, NetworkPolicy/svc-isolation, Role/svc-workspace-user and 8 more',
          lastTransitionTime: NOW_TEXT,
          observedGeneration: 3,
        },
        { type: 'Disabled', status: 'False', reason: 'Enabled', message: 'den.dev/disabled is not "true"', lastTransitionTime: NOW_TEXT, observedGeneration: 3 },
      ],
    });
  });

  it('is Ready with status.namespace once every child is observed', () => {
    const { status } = syncUserSpace(input(userSpace(), { children: converged() }));
    expect(status.phase).to.equal('Ready');
    expect(status.namespace).to.equal('svc-alice');
    expect(ready(status.conditions)).to.include({ status: 'True', reason: 'ChildrenReady', message: 'all 16 children exist' });
  });

  it('stays Pending while one child is missing, and names it', () => {
    const observed = without(converged(), 'RoleBinding.rbac.authorization.k8s.io/v1', 'svc-alice/svc-reader');
    const { status } = syncUserSpace(input(userSpace(), { children: observed }));
    expect(status.phase).to.equal('Pending');
    expect(status.namespace).to.equal('svc-alice');
    expect(ready(status.conditions)).to.include({ status: 'False', reason: 'ChildrenMissing', message: 'waiting for 1 of 16 children: RoleBinding/svc-reader' });
  });

  it('counts a mirrored pull Secret among the children to wait for', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'regcred', namespace: 'svc-system', labels: { 'den.dev/pull-secret': 'true' } }, type: 'kubernetes.io/dockerconfigjson', data: {} };
    const { status } = syncUserSpace(input(userSpace(), { children: converged(), related: related({ pullSecrets: [secret] }) }));
    expect(ready(status.conditions).message).to.equal('waiting for 1 of 17 children: Secret/regcred');
  });

  it('treats a child that is being deleted as missing', () => {
    const observed = converged();
    observed['ResourceQuota.v1']!['svc-alice/svc-quota']!.metadata!.deletionTimestamp = '2026-11-22T10:00:00Z';
    const { status } = syncUserSpace(input(userSpace(), { children: observed }));
    expect(ready(status.conditions).message).to.equal('waiting for 1 of 16 children: ResourceQuota/svc-quota');
  });

  it('is Pending while the namespace of a deleted and recreated UserSpace is still terminating', () => {
    const observed = converged();
    const ns = observed['Namespace.v1']!['svc-alice']!;
    ns.metadata!.deletionTimestamp = '2026-11-22T09:59:30Z';
    ns.status = { phase: 'Terminating' };
    const { status } = syncUserSpace(input(userSpace(), { children: observed }));
    expect(status.phase).to.equal('Pending');
    expect(status).not.to.have.property('namespace');
    expect(ready(status.conditions)).to.include({ reason: 'NamespaceTerminating', message: 'Namespace/svc-alice is being deleted; it is created again once it is gone' });
  });

  it('is Failed and repeats the cluster message for every child the loop could not apply', () => {
    const errors = [
      { child: 'ResourceQuota/svc-quota', message: 'resourcequotas "svc-quota" is forbidden: User "system:serviceaccount:svc-system:den-manager" cannot patch resource "resourcequotas" in API group "" in the namespace "svc-alice"' },
      { child: 'Namespace/svc-alice', message: 'Internal error occurred: etcdserver: request timed out' },
    ];
    const { status } = syncUserSpace(input(userSpace(), { children: converged(), errors }));
    expect(status.phase).to.equal('Failed');
    expect(ready(status.conditions)).to.include({
      status: 'False',
      reason: 'ApplyFailed',
      message:
        'ResourceQuota/svc-quota: resourcequotas "svc-quota" is forbidden: User "system:serviceaccount:svc-system:den-manager" cannot patch resource "resourcequotas" in API group "" in the namespace "svc-alice"; ' +
        'Namespace/svc-alice: Internal error occurred: etcdserver: request timed out',
    });
  });

  describe('until the quota controller has counted svc-quota', () => {
    const QUOTA = 'svc-alice/svc-quota';
    function withQuotaStatus(status: Record<string, unknown> | undefined): ObservedChildren {
      const observed = converged();
      const quota = observed['ResourceQuota.v1']![QUOTA]!;
      if (status) quota.status = status;
      else delete quota.status;
      return observed;
    }
    const HARD = { 'count/workspaces.den.dev': '3', 'requests.cpu': '4', 'requests.memory': '8Gi', 'requests.nvidia.com/gpu': '0', 'requests.storage': '50Gi' };

    it('is Pending while svc-quota has no status, and says who counts it and what to check if it lasts', () => {
      const { status } = syncUserSpace(input(userSpace(), { children: withQuotaStatus(undefined) }));
      expect(status.phase).to.equal('Pending');
      expect(status.namespace).to.equal('svc-alice');
      expect(ready(status.conditions)).to.include({
        status: 'False',
        reason: 'QuotaNotCounted',
        message:
          "ResourceQuota/svc-quota has not yet counted count/workspaces.den.dev, requests.cpu, requests.memory, requests.nvidia.com/gpu, requests.storage: Kubernetes' quota controller (in kube-controller-manager) counts them, usually within seconds, " +
          'and until then the cluster may refuse new workspaces ("status unknown for quota"); if this lasts, check that kube-controller-manager is running and what it logs',
      });
    });

    it('names only the keys status.used lacks (a custom resource the quota controller has not discovered yet)', () => {
      const used = { 'requests.cpu': '0', 'requests.memory': '0', 'requests.nvidia.com/gpu': '0', 'requests.storage': '0' };
      const { status } = syncUserSpace(input(userSpace(), { children: withQuotaStatus({ hard: HARD, used }) }));
      expect(ready(status.conditions).reason).to.equal('QuotaNotCounted');
      expect(ready(status.conditions).message).to.match(/^ResourceQuota\/svc-quota has not yet counted count\/workspaces\.den\.dev: /);
    });

    it('names a key whose status.hard still holds the limit before a change', () => {
      const used = Object.fromEntries(Object.keys(HARD).map((k) => [k, '0']));
      const { status } = syncUserSpace(input(userSpace(), { children: withQuotaStatus({ hard: { ...HARD, 'requests.cpu': '2' }, used }) }));
      expect(ready(status.conditions).message).to.match(/^ResourceQuota\/svc-quota has not yet counted requests\.cpu: /);
    });

    it('is Ready once status.hard is the spec and status.used has every key, whatever is used', () => {
      const used = { ...Object.fromEntries(Object.keys(HARD).map((k) => [k, '0'])), 'count/workspaces.den.dev': '3', 'requests.cpu': '3500m' };
      const { status } = syncUserSpace(input(userSpace(), { children: withQuotaStatus({ hard: HARD, used }) }));
      expect(status.phase).to.equal('Ready');
      expect(ready(status.conditions)).to.include({ status: 'True', reason: 'ChildrenReady' });
    });

    it('names missing children first: svc-quota must exist before it can be counted', () => {
      const observed = without(withQuotaStatus(undefined), 'LimitRange.v1', 'svc-alice/svc-limits');
      expect(ready(syncUserSpace(input(userSpace(), { children: observed })).status.conditions)).to.include({ reason: 'ChildrenMissing', message: 'waiting for 1 of 16 children: LimitRange/svc-limits' });
    });
  });

  it('is Pending when the API server address is unknown, since the policy cannot allow egress to it yet', () => {
    const rel = related({ apiServer: { service: null, endpointSlices: [] } });
    const observed = observe(syncUserSpace(input(userSpace(), { related: rel })).children);
    const { status } = syncUserSpace(input(userSpace(), { children: observed, related: rel }));
    expect(status.phase).to.equal('Pending');
    expect(ready(status.conditions).reason).to.equal('APIServerUnresolved');
  });

  it('says so in the Disabled condition when den.dev/disabled is "true", and stays Ready', () => {
    const labels = { 'den.dev/disabled': 'true' };
    const { status } = syncUserSpace(input(userSpace({ labels }), { children: converged(labels) }));
    expect(status.phase).to.equal('Ready');
    expect(disabled(status.conditions)).to.deep.equal({
      type: 'Disabled',
      status: 'True',
      reason: 'DisabledByLabel',
      message: 'den.dev/disabled is "true": every RoleBinding and ClusterRoleBinding of this UserSpace has no subjects',
      lastTransitionTime: NOW_TEXT,
      observedGeneration: 1,
    });
  });

  describe('lastTransitionTime', () => {
    it('keeps the time of a condition whose status did not change, even when its reason and message did', () => {
      const first = syncUserSpace(input(userSpace())).status;
      const parent = userSpace({ status: first });
      const observed = without(converged(), 'Namespace.v1', 'svc-alice');
      const second = syncUserSpace(input(parent, { children: observed, now: LATER })).status;
      expect(ready(second.conditions).message).to.equal('waiting for 1 of 16 children: Namespace/svc-alice');
      expect(ready(second.conditions).lastTransitionTime).to.equal(NOW_TEXT);
      expect(disabled(second.conditions).lastTransitionTime).to.equal(NOW_TEXT);
    });

    it('moves to now for the condition whose status changed, and only for it', () => {
      const first = syncUserSpace(input(userSpace())).status;
      const second = syncUserSpace(input(userSpace({ status: first }), { children: converged(), now: LATER })).status;
      expect(ready(second.conditions)).to.include({ status: 'True', lastTransitionTime: LATER_TEXT });
      expect(disabled(second.conditions)).to.include({ status: 'False', lastTransitionTime: NOW_TEXT });
      const labels = { 'den.dev/disabled': 'true' };
      const third = syncUserSpace(input(userSpace({ labels, status: second }), { children: converged(labels), now: new Date('2026-11-22T11:00:00Z') })).status;
      expect(ready(third.conditions).lastTransitionTime).to.equal(LATER_TEXT);
      expect(disabled(third.conditions)).to.include({ status: 'True', lastTransitionTime: '2026-11-22T11:00:00Z' });
    });

    it('writes whole seconds, as the API server stores them', () => {
      expect(NOW.getMilliseconds()).to.equal(250);
      expect(ready(syncUserSpace(input(userSpace())).status.conditions).lastTransitionTime).to.equal('2026-11-22T10:00:00Z');
    });
  });
});
