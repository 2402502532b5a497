import { setFlagsFromString } from 'node:v8';
import { expect } from 'chai';
import {
  APPLIED_HASH_ANNOTATION, ChildIndex, childAsCached, childrenMap, decorateChild, desiredStatus, isHeldAsObserved, isSubset, planChildren, sameStatus, stableJson, withoutServerFields, withSiblingParts,
} from '../../../hooks/loop/plan.js';
import { RESOURCES } from '../../../kube/resources.js';
import type { KubeObject } from '../../../kube/client.js';

const parent = { apiVersion: 'den.dev/v1alpha1', kind: 'UserSpace', metadata: { name: 'alice', uid: 'u-1', generation: 3 } };
const workspace = { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev', namespace: 'svc-alice', uid: 'w-1', generation: 1 } };
const decoration = { parent, parentResource: RESOURCES.userSpace, parentLabel: 'den.dev/userspace' };

function quota(hard: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'svc-quota', namespace: 'svc-alice' }, spec: { hard } };
}

describe('loop plan', () => {
  describe('isSubset', () => {
    const cases: [string, unknown, unknown, boolean][] = [
      ['equal scalars', 'a', 'a', true],
      ['different scalars', '1', 1, false],
      ['fields the server added', { a: 1 }, { a: 1, b: 2 }, true],
      ['a missing field', { a: 1, b: 2 }, { a: 1 }, false],
      ['arrays of equal length', [{ a: 1 }], [{ a: 1, extra: true }], true],
      ['an entry added to an array by hand', [{ a: 1 }], [{ a: 1 }, { a: 2 }], false],
      ['null wanted, field absent', { a: null }, {}, true],
      ['an object where an array is observed', { a: {} }, { a: [] }, false],
      ['undefined wanted', { a: undefined }, {}, true],
    ];
    for (const [name, desired, observed, result] of cases) {
      it(`${result ? 'accepts' : 'rejects'} ${name}`, () => expect(isSubset(desired, observed)).to.equal(result));
    }
  });

  it('writes JSON with sorted keys at every depth', () => {
    expect(stableJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 2 } })).to.equal('{"a":{"c":2,"d":[{"y":2,"z":1}]},"b":1}');
  });

  describe('decorateChild', () => {
    it('adds the controller reference, the labels and the applied hash without touching the input', () => {
      const child = quota({ cpu: '2' });
      const before = JSON.stringify(child);
      const out = decorateChild(child, decoration);
      expect(JSON.stringify(child)).to.equal(before);
      expect(out.metadata?.ownerReferences).to.deep.equal([{ apiVersion: 'den.dev/v1alpha1', kind: 'UserSpace', name: 'alice', uid: 'u-1', controller: true, blockOwnerDeletion: true }]);
      expect(out.metadata?.labels).to.deep.equal({ 'app.kubernetes.io/managed-by': 'den-manager', 'den.dev/userspace': 'alice' });
      expect(out.metadata?.annotations?.[APPLIED_HASH_ANNOTATION]).to.match(/^[0-9a-f]{16}$/);
    });

    it('gives a different hash when the desired object changes', () => {
      const a = decorateChild(quota({ cpu: '2' }), decoration);
      const b = decorateChild(quota({ cpu: '3' }), decoration);
      expect(a.metadata?.annotations?.[APPLIED_HASH_ANNOTATION]).to.not.equal(b.metadata?.annotations?.[APPLIED_HASH_ANNOTATION]);
    });

    it("puts a namespaced child of a namespaced parent in the parent's namespace", () => {
      const out = decorateChild({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'dev' } }, { parent: workspace, parentResource: RESOURCES.workspace, parentLabel: 'den.dev/workspace' });
      expect(out.metadata?.namespace).to.equal('svc-alice');
    });

    it('refuses a namespaced child of a cluster-scoped parent without a namespace', () => {
      expect(() => decorateChild({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'session' } }, decoration)).to.throw(/ServiceAccount\/session without metadata.namespace/);
    });

    it('refuses a child of a kind it does not know', () => {
      expect(() => decorateChild({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } }, decoration)).to.throw(/Gadget\/g of a kind the loop does not know/);
    });

    it('replaces another controller reference but keeps plain owner references', () => {
      const plain = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'c-1' };
      const child = { ...quota({}), metadata: { ...quota({}).metadata, ownerReferences: [plain, { ...plain, uid: 'c-2', controller: true }] } };
      expect(decorateChild(child, decoration).metadata?.ownerReferences?.map((r) => r.uid)).to.deep.equal(['c-1', 'u-1']);
    });
  });

  describe('planChildren', () => {
    const ns = decorateChild({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-alice' } }, decoration);
    const q = decorateChild(quota({ cpu: '2' }), decoration);

    it('applies Namespaces in a wave before everything else', () => {
      const plan = planChildren([q, ns], []);
      expect(plan.apply.map((wave) => wave.map((c) => c.kind))).to.deep.equal([['Namespace'], ['ResourceQuota']]);
      expect(plan.prune).to.deep.equal([]);
    });

    it('applies ServiceAccounts and Roles after the Namespace and before the bindings that name them', () => {
      const rbac = (kind: string, name: string, extra: Record<string, unknown> = {}) => decorateChild({ apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name, namespace: 'svc-alice' }, ...extra } as KubeObject, decoration);
      const role = rbac('Role', 'svc-workspace-user', { rules: [] });
      const binding = rbac('RoleBinding', 'svc-owner', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'svc-workspace-user' } });
      const clusterRole = decorateChild({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'svc-userspace-alice' }, rules: [] } as KubeObject, decoration);
      const clusterBinding = decorateChild({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'svc-userspace-alice' } } as KubeObject, decoration);
      const account = decorateChild({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'workspace', namespace: 'svc-alice' } }, decoration);
      const plan = planChildren([binding, clusterBinding, q, role, clusterRole, account, ns], []);
      expect(plan.apply.map((wave) => wave.map((c) => c.kind))).to.deep.equal([['Namespace'], ['Role', 'ClusterRole', 'ServiceAccount'], ['RoleBinding', 'ClusterRoleBinding', 'ResourceQuota']]);
    });

    it('applies a Service before the StatefulSet it governs', () => {
      const decorate = (child: KubeObject) => decorateChild(child, { parent: workspace, parentResource: RESOURCES.workspace, parentLabel: 'den.dev/workspace' });
      const service = decorate({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'dev' }, spec: { clusterIP: 'None' } });
      const sts = decorate({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'dev' }, spec: { serviceName: 'dev' } });
      expect(planChildren([sts, service], []).apply.map((wave) => wave.map((c) => c.kind))).to.deep.equal([['Service'], ['StatefulSet']]);
    });

    it('skips a child whose observed object already matches, server defaults and all', () => {
      const observed = { ...q, metadata: { ...q.metadata, uid: 'x', resourceVersion: '7' }, status: { used: {} } };
      const plan = planChildren([q], [observed]);
      expect(plan.apply).to.deep.equal([]);
      expect(plan.unchanged).to.equal(1);
    });

    it('applies a child edited by hand', () => {
      const edited = { ...q, spec: { hard: { cpu: '100' } } };
      expect(planChildren([q], [edited]).apply).to.deep.equal([[q]]);
    });

    it('applies a child when the hook dropped a field, which only the hash shows', () => {
      const old = decorateChild(quota({ cpu: '2', memory: '1Gi' }), decoration);
      expect(planChildren([q], [old]).apply).to.deep.equal([[q]]);
    });

    it('prunes observed children the hook no longer returns, unless already going', () => {
      const stale = decorateChild({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'old-pull', namespace: 'svc-alice' } }, decoration);
      const going = { ...decorateChild({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'gone', namespace: 'svc-alice' } }, decoration) };
      going.metadata = { ...going.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' };
      const plan = planChildren([q], [q, stale, going]);
      expect(plan.prune.map((c) => c.metadata?.name)).to.deep.equal(['old-pull']);
    });

    it('neither applies nor prunes a held child', () => {
      const observed = { ...q, metadata: { ...q.metadata, uid: 'x', resourceVersion: '7' } };
      const plan = planChildren([], [observed], [observed]);
      expect(plan).to.deep.equal({ apply: [], prune: [], unchanged: 1 });
    });

    it('matches children across API versions of the same group', () => {
      const observed = { ...q, apiVersion: 'v1' };
      expect(planChildren([q], [observed]).prune).to.deep.equal([]);
    });
  });

  describe('held and observed children', () => {
    const observed = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'dev', namespace: 'svc-alice', uid: 'x', resourceVersion: '7', managedFields: [{}], annotations: { [APPLIED_HASH_ANNOTATION]: 'abc' } }, spec: { clusterIP: 'None' }, status: { loadBalancer: {} } };

    it('takes an observed object returned as it is for a held child', () => {
      expect(isHeldAsObserved(observed, [observed])).to.equal(true);
      expect(isHeldAsObserved({ ...observed, metadata: { ...observed.metadata, resourceVersion: '6' } }, [observed])).to.equal(false);
      expect(isHeldAsObserved({ ...observed, metadata: { name: 'dev' } }, [observed])).to.equal(false);
    });

    it('strips what the API server wrote before applying', () => {
      expect(withoutServerFields(observed)).to.deep.equal({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'dev', namespace: 'svc-alice' }, spec: { clusterIP: 'None' } });
    });

    it('gives an observed object re-applied the hash of its content, not of its bookkeeping', () => {
      const once = decorateChild(observed, { parent: workspace, parentResource: RESOURCES.workspace, parentLabel: 'den.dev/workspace' });
      const again = decorateChild({ ...observed, metadata: { ...observed.metadata, resourceVersion: '9', annotations: once.metadata?.annotations } }, { parent: workspace, parentResource: RESOURCES.workspace, parentLabel: 'den.dev/workspace' });
      expect(again.metadata?.annotations).to.deep.equal(once.metadata?.annotations);
    });
  });

  describe('desiredStatus', () => {
    it("adds observedGeneration and takes fields other writers own from the latest parent, over the hook's copy", () => {
      const current = { ...workspace, status: { phase: 'Running', lastActivityTime: '2026-01-01T00:00:00Z', podName: 'dev-0' } };
      expect(desiredStatus({ phase: 'Suspended', lastActivityTime: '2025-12-31T00:00:00Z' }, current, ['lastActivityTime'])).to.deep.equal({
        phase: 'Suspended', lastActivityTime: '2026-01-01T00:00:00Z', observedGeneration: 1,
      });
    });

    it('drops undefined fields so equal statuses compare equal', () => {
      const status = desiredStatus({ phase: 'Ready', namespace: undefined }, parent);
      expect(status).to.deep.equal({ phase: 'Ready', observedGeneration: 3 });
      expect(sameStatus(status, { observedGeneration: 3, phase: 'Ready' })).to.equal(true);
      expect(sameStatus(status, { observedGeneration: 2, phase: 'Ready' })).to.equal(false);
    });
  });

  describe('ChildIndex', () => {
    const owned = (uid: string, name: string): KubeObject => ({
      apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'svc-alice', ownerReferences: [{ apiVersion: 'den.dev/v1alpha1', kind: 'UserSpace', name: 'alice', uid, controller: true }] },
    });

    it('lists the children of a controller and forgets deleted ones', () => {
      const index = new ChildIndex();
      index.update({ type: 'ADDED', object: owned('u-1', 'session') });
      index.update({ type: 'ADDED', object: owned('u-1', 'workspace') });
      index.update({ type: 'ADDED', object: owned('u-2', 'session') });
      expect(index.of('u-1').map((c) => c.metadata?.name)).to.deep.equal(['session', 'workspace']);
      index.update({ type: 'DELETED', object: owned('u-1', 'session'), old: owned('u-1', 'session') });
      expect(index.of('u-1').map((c) => c.metadata?.name)).to.deep.equal(['workspace']);
    });

    it('moves a child whose controller reference changed', () => {
      const index = new ChildIndex();
      index.update({ type: 'ADDED', object: owned('u-1', 'session') });
      index.update({ type: 'MODIFIED', object: owned('u-2', 'session'), old: owned('u-1', 'session') });
      expect(index.of('u-1')).to.deep.equal([]);
      expect(index.of('u-2')).to.have.length(1);
    });

    it('replaces a child deleted and created again under the same name by the new one, uid and all', () => {
      const index = new ChildIndex();
      const first = { ...owned('u-1', 'session'), metadata: { ...owned('u-1', 'session').metadata, uid: 'sa-1' } };
      const again = { ...owned('u-1', 'session'), metadata: { ...owned('u-1', 'session').metadata, uid: 'sa-2' } };
      index.update({ type: 'ADDED', object: first });
      index.update({ type: 'MODIFIED', object: again, old: first });
      expect(index.of('u-1').map((c) => c.metadata?.uid)).to.deep.equal(['sa-2']);
      index.update({ type: 'DELETED', object: again, old: again });
      expect(index.of('u-1')).to.deep.equal([]);
    });

    it('names one child of a controller, and none of a parent without children', () => {
      const index = new ChildIndex();
      index.update({ type: 'ADDED', object: owned('u-1', 'session') });
      expect(index.anyOf('u-1')?.metadata?.name).to.equal('session');
      expect(index.anyOf('u-2')).to.equal(undefined);
    });

    it('ignores objects without a controller', () => {
      const index = new ChildIndex();
      index.update({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } } });
      expect(index.of('')).to.deep.equal([]);
    });
  });

  describe('withSiblingParts', () => {
    const parsed = (kind: string, labels: Record<string, string>): KubeObject =>
      JSON.parse(JSON.stringify({ apiVersion: 'v1', kind, metadata: { name: 'ws1', namespace: 'svc-alice', labels, ownerReferences: [{ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', name: 'ws1', uid: 'w-1', controller: true, blockOwnerDeletion: true }] } })) as KubeObject;

    it('gives a child the very controller reference and labels of a sibling of another kind when they are equal', () => {
      const sibling = Object.freeze(parsed('Service', { 'den.dev/workspace': 'ws1' }));
      const child = withSiblingParts(parsed('ServiceAccount', { 'den.dev/workspace': 'ws1' }), sibling);
      expect(child.metadata?.ownerReferences).to.equal(sibling.metadata?.ownerReferences);
      expect(child.metadata?.labels).to.equal(sibling.metadata?.labels);
      expect(child.kind).to.equal('ServiceAccount');
    });

    it('keeps what differs, and a child without a sibling, as it is', () => {
      const sibling = parsed('Service', { 'den.dev/workspace': 'ws1', extra: 'x' });
      const child = withSiblingParts(parsed('ServiceAccount', { 'den.dev/workspace': 'ws1' }), sibling);
      expect(child.metadata?.labels).to.not.equal(sibling.metadata?.labels);
      expect(child.metadata?.labels).to.deep.equal({ 'den.dev/workspace': 'ws1' });
      expect(child.metadata?.ownerReferences).to.equal(sibling.metadata?.ownerReferences);
      const alone = parsed('ServiceAccount', { a: 'b' });
      expect(withSiblingParts(alone, undefined)).to.deep.equal(parsed('ServiceAccount', { a: 'b' }));
    });
  });

  describe('childAsCached', () => {
    const applied = decorateChild(quota({ pods: '10' }), decoration);
    const stored: KubeObject = {
      ...applied,
      metadata: { ...applied.metadata, uid: 'q-1', resourceVersion: '42', generation: 1, creationTimestamp: '2026-11-26T10:00:00Z', managedFields: [{ manager: 'den-manager' }] },
      spec: { hard: { pods: '10' }, scopes: [] },
      status: { hard: { pods: '10' }, used: { pods: '3' } },
    };

    it('keeps what the loop compares and reads, and drops the status and the server\'s bookkeeping', () => {
      const cached = childAsCached(stored);
      expect(cached).to.not.have.property('status');
      expect(cached.metadata).to.have.keys(['name', 'namespace', 'labels', 'annotations', 'ownerReferences', 'uid', 'resourceVersion']);
      expect(cached.spec).to.deep.equal(stored.spec);
      expect(planChildren([applied], [cached]).apply).to.deep.equal([]);
    });

    it('keeps the status where the hook reads it, and still plans no apply for it', () => {
      const cached = childAsCached(stored, { keepStatus: true });
      expect(cached.status).to.deep.equal({ hard: { pods: '10' }, used: { pods: '3' } });
      expect(cached.metadata).to.have.keys(['name', 'namespace', 'labels', 'annotations', 'ownerReferences', 'uid', 'resourceVersion']);
      expect(planChildren([applied], [cached]).apply).to.deep.equal([]);
    });

    it("keeps none of the data of a Secret held back (a person's own), and still plans no apply for it; another Secret keeps its data", () => {
      const personal = decorateChild({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'den-personal-env', namespace: 'svc-alice', labels: { 'den.dev/personal': 'env' } }, type: 'Opaque' }, decoration);
      const cached = childAsCached({ ...personal, metadata: { ...personal.metadata, uid: 's-1', resourceVersion: '7' }, data: { TOKEN: 'c2VjcmV0' } }, { dropData: true });
      expect(cached).to.not.have.property('data');
      expect(planChildren([personal], [cached]).apply).to.deep.equal([]);
      const mirror = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'regcred', namespace: 'svc-alice' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': 'e30=' } };
      expect(childAsCached(mirror)).to.have.property('data').that.deep.equals({ '.dockerconfigjson': 'e30=' });
    });

    it('keeps the metadata an object of a shared shape, not a dictionary of its own', () => {
      setFlagsFromString('--allow-natives-syntax');
      const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
      const parsed = JSON.parse(JSON.stringify(stored)) as KubeObject;
      expect(hasFastProperties(childAsCached(parsed).metadata!)).to.equal(true);
    });

    it('still shows a hand edit as a difference to restore', () => {
      const edited = childAsCached({ ...stored, spec: { hard: { pods: '99' } } });
      expect(planChildren([applied], [edited]).apply).to.deep.equal([[applied]]);
    });

    it('keeps a child that is going away as going away', () => {
      const leaving = childAsCached({ ...stored, metadata: { ...stored.metadata, deletionTimestamp: '2026-11-26T11:00:00Z' } });
      expect(leaving.metadata?.deletionTimestamp).to.equal('2026-11-26T11:00:00Z');
      expect(planChildren([applied], [leaving]).apply).to.deep.equal([[applied]]);
    });
  });

  it('builds the hook children map with every child type present', () => {
    const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'session', namespace: 'svc-alice' } };
    expect(childrenMap([sa], [RESOURCES.serviceAccount, RESOURCES.clusterRole])).to.deep.equal({
      'ServiceAccount.v1': { 'svc-alice/session': sa },
      'ClusterRole.rbac.authorization.k8s.io/v1': {},
    });
  });
});
