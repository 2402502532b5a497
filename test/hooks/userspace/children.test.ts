import { expect } from 'chai';
import { userSpaceSpec } from '../../../hooks/userspace/controller.js';
import { syncUserSpace } from '../../../hooks/userspace/sync.js';
import { childOf, input, pullSecret, related, userSpace } from './inputs.js';

const ref = (c: { kind?: string; metadata?: { name?: string; namespace?: string } }) =>
  `${c.kind}/${c.metadata?.namespace ? `${c.metadata.namespace}/` : ''}${c.metadata?.name}`;

describe('syncUserSpace children (SPEC 1.2)', () => {
  it('renders every child of SPEC 1.2 with its exact name, the namespace first', () => {
    const { children } = syncUserSpace(input(userSpace({ name: 'alice' })));
    expect(children.map(ref)).to.deep.equal([
      'Namespace/svc-alice',
      'ServiceAccount/svc-alice/workspace',
      'ServiceAccount/svc-alice/session',
      'ServiceAccount/svc-alice/session-readonly',
      'ResourceQuota/svc-alice/svc-quota',
      'LimitRange/svc-alice/svc-limits',
      'NetworkPolicy/svc-alice/svc-isolation',
      'Role/svc-alice/svc-workspace-user',
      'Role/svc-alice/svc-workspace-reader',
      'RoleBinding/svc-alice/svc-owner',
      'RoleBinding/svc-alice/svc-reader',
      'RoleBinding/svc-alice/svc-workspace-edit',
      'ClusterRole/svc-userspace-alice',
      'ClusterRoleBinding/svc-userspace-alice',
      'Secret/svc-alice/den-personal-env',
      'Secret/svc-alice/den-git-credentials',
    ]);
  });

  it("renders the person's variables and git credentials Secrets empty, labelled for what they hold, so only their metadata is the manager's", () => {
    const { children } = syncUserSpace(input(userSpace({ name: 'alice' })));
    for (const [name, holds] of [['den-personal-env', 'env'], ['den-git-credentials', 'git-credentials']] as const) {
      expect(childOf(children, 'Secret', name)).to.deep.equal({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: 'svc-alice', labels: { 'app.kubernetes.io/managed-by': 'den-manager', 'den.dev/userspace': 'alice', 'den.dev/personal': holds } },
        type: 'Opaque',
      });
    }
  });

  it("has the manager's caches hold none of the person's Secrets' data, and every other child's as it is", () => {
    const spec = userSpaceSpec({ namespace: 'den-system', gpuResource: 'nvidia.com/gpu' });
    const { children } = syncUserSpace(input(userSpace({ name: 'alice' })));
    const heldBack = children.filter((c) => spec.childDataHeldBack?.(c)).map(ref);
    expect(heldBack).to.deep.equal(['Secret/svc-alice/den-personal-env', 'Secret/svc-alice/den-git-credentials']);
    expect(spec.childDataHeldBack?.(pullSecret('regcred'))).to.equal(false);
  });

  it('uses the apiVersion each kind is served under', () => {
    const { children } = syncUserSpace(input(userSpace()));
    const versions = Object.fromEntries(children.map((c) => [c.kind, c.apiVersion]));
    expect(versions).to.deep.equal({
      Namespace: 'v1',
      ServiceAccount: 'v1',
      ResourceQuota: 'v1',
      LimitRange: 'v1',
      NetworkPolicy: 'networking.k8s.io/v1',
      Role: 'rbac.authorization.k8s.io/v1',
      RoleBinding: 'rbac.authorization.k8s.io/v1',
      ClusterRole: 'rbac.authorization.k8s.io/v1',
      ClusterRoleBinding: 'rbac.authorization.k8s.io/v1',
      Secret: 'v1',
    });
  });

  it('labels every child with its UserSpace and manager, and sets no ownerReferences (the loop does)', () => {
    const { children } = syncUserSpace(input(userSpace({ name: 'bob', labels: { 'den.dev/role': 'admin' } }), { related: related({ pullSecrets: [pullSecret('regcred')] }) }));
    for (const child of children) {
      expect(child.metadata.labels, ref(child)).to.include({ 'den.dev/userspace': 'bob', 'app.kubernetes.io/managed-by': 'den-manager' });
      expect(child.metadata, ref(child)).not.to.have.property('ownerReferences');
    }
  });

  it('puts every namespaced child in svc-<name> and gives cluster-scoped ones no namespace', () => {
    const { children } = syncUserSpace(input(userSpace({ name: 'bob' })));
    for (const child of children) {
      const clusterScoped = ['Namespace', 'ClusterRole', 'ClusterRoleBinding'].includes(child.kind);
      if (clusterScoped) expect(child.metadata, ref(child)).not.to.have.property('namespace');
      else expect(child.metadata.namespace, ref(child)).to.equal('svc-bob');
    }
  });

  it('labels the namespace for Pod Security "baseline", because the workspace identity holds edit there', () => {
    const ns = childOf(syncUserSpace(input(userSpace())).children, 'Namespace', 'svc-alice');
    expect(ns).to.deep.equal({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'svc-alice',
        labels: {
          'app.kubernetes.io/managed-by': 'den-manager',
          'den.dev/userspace': 'alice',
          'pod-security.kubernetes.io/enforce': 'baseline',
        },
      },
    });
  });

  it('keeps the session identities from being mounted into pods by default', () => {
    const { children } = syncUserSpace(input(userSpace()));
    const mount = Object.fromEntries(
      children.filter((c) => c.kind === 'ServiceAccount').map((c) => [c.metadata.name, c.automountServiceAccountToken ?? 'default']),
    );
    expect(mount).to.deep.equal({ workspace: 'default', session: false, 'session-readonly': false });
  });

  it('gives the same output, in the same order, for the same input', () => {
    const first = syncUserSpace(input(userSpace(), { related: related({ pullSecrets: [pullSecret('b'), pullSecret('a')] }) }));
    const second = syncUserSpace(input(userSpace(), { related: related({ pullSecrets: [pullSecret('b'), pullSecret('a')] }) }));
    expect(JSON.stringify(second)).to.equal(JSON.stringify(first));
  });

  it('does not modify the parent, the observed children or the related objects', () => {
    const parent = userSpace({ labels: { 'den.dev/disabled': 'true', 'den.dev/role': 'admin' }, status: { phase: 'Ready', conditions: [] } });
    const rel = related({ pullSecrets: [pullSecret('regcred')] });
    const before = JSON.stringify({ parent, rel });
    const out = syncUserSpace(input(parent, { related: rel }));
    syncUserSpace(input(parent, { related: rel, children: { 'Namespace.v1': { 'svc-alice': out.children[0]! } } }));
    expect(JSON.stringify({ parent, rel })).to.equal(before);
  });

  it('returns children that share no objects with its input, so the loop may decorate them freely', () => {
    const rel = related({ pullSecrets: [pullSecret('regcred')] });
    const { children } = syncUserSpace(input(userSpace(), { related: rel }));
    const secret = childOf(children, 'Secret', 'regcred');
    (secret.data as Record<string, string>)['.dockerconfigjson'] = 'changed';
    expect(rel.pullSecrets[0]!.data).to.deep.equal({ '.dockerconfigjson': 'eyJhdXRocyI6e319' });
  });
});
