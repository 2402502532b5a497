import { expect } from 'chai';
import { syncUserSpace } from '../../../hooks/userspace/sync.js';
import type { KubeObject } from '../../../kube/client.js';
import { childOf, input, userSpace } from './inputs.js';

const RBAC = 'rbac.authorization.k8s.io';
const OWNER = { kind: 'User', apiGroup: RBAC, name: 'alice@example.com' };
const sa = (name: string) => ({ kind: 'ServiceAccount', name, namespace: 'svc-alice' });

function render(labels: Record<string, string> = {}): KubeObject[] {
  return syncUserSpace(input(userSpace({ name: 'alice', labels }))).children;
}

describe('syncUserSpace RBAC (SPEC 1.2 rules 1-6)', () => {
  it('gives svc-workspace-user full CRUD on Workspaces, pod/log/event reads, writing Den\'s Events, pods/exec, pods/portforward, home PVC deletion, its own two personal Secrets by name, and making and removing Roles and RoleBindings (shares) in its namespace', () => {
    expect(childOf(render(), 'Role', 'svc-workspace-user').rules).to.deep.equal([
      { apiGroups: ['den.dev'], resources: ['workspaces'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] },
      { apiGroups: [''], resources: ['pods', 'events'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      { apiGroups: [''], resources: ['pods/exec', 'pods/portforward'], verbs: ['create', 'get'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'list', 'watch', 'delete'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'patch'], resourceNames: ['den-personal-env', 'den-git-credentials'] },
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
    ]);
  });

  it('gives svc-workspace-reader the same reads and no write verb, pods/exec and pods/portforward included', () => {
    expect(childOf(render(), 'Role', 'svc-workspace-reader').rules).to.deep.equal([
      { apiGroups: ['den.dev'], resources: ['workspaces'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['pods', 'events'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['den-personal-env', 'den-git-credentials'] },
    ]);
  });

  it('makes the reader exactly the owner role minus every write verb', () => {
    const writes = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
    type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
    const owner = childOf(render(), 'Role', 'svc-workspace-user').rules as Rule[];
    const reader = childOf(render(), 'Role', 'svc-workspace-reader').rules as Rule[];
    const minusWrites = owner
      .map((r) => ({ ...r, verbs: r.verbs.filter((v) => !writes.has(v)) }))
      // pods/exec and pods/portforward reach into the pod: their "get" is a websocket upgrade, a write in effect.
      .filter((r) => r.verbs.length > 0 && !r.resources.includes('pods/exec'))
      // Sharing a workspace is the owner's act (docs/sharing.md): a read-scoped token does not read the shares' RBAC either.
      .filter((r) => !r.apiGroups.includes('rbac.authorization.k8s.io'));
    expect(reader).to.deep.equal(minusWrites);
  });

  const bindings: { name: string; kind: string; roleRef: Record<string, string>; subjects: unknown[] }[] = [
    { name: 'svc-owner', kind: 'RoleBinding', roleRef: { apiGroup: RBAC, kind: 'Role', name: 'svc-workspace-user' }, subjects: [OWNER, sa('session')] },
    { name: 'svc-reader', kind: 'RoleBinding', roleRef: { apiGroup: RBAC, kind: 'Role', name: 'svc-workspace-reader' }, subjects: [sa('session-readonly')] },
    { name: 'svc-workspace-edit', kind: 'RoleBinding', roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'edit' }, subjects: [sa('workspace')] },
    {
      name: 'svc-userspace-alice',
      kind: 'ClusterRoleBinding',
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'svc-userspace-alice' },
      subjects: [OWNER, sa('session'), sa('session-readonly')],
    },
  ];
  for (const b of bindings) {
    it(`binds ${b.kind} ${b.name} to ${b.roleRef.kind} ${b.roleRef.name} for ${b.subjects.length} subject(s)`, () => {
      const binding = childOf(render(), b.kind, b.name);
      expect(binding.roleRef).to.deep.equal(b.roleRef);
      expect(binding.subjects).to.deep.equal(b.subjects);
    });
  }

  it('grants get, watch and patch on exactly this UserSpace, and get, list, watch and use on WorkspaceImages', () => {
    expect(childOf(render(), 'ClusterRole', 'svc-userspace-alice').rules).to.deep.equal([
      { apiGroups: ['den.dev'], resources: ['userspaces'], resourceNames: ['alice'], verbs: ['get', 'watch', 'patch'] },
      { apiGroups: ['den.dev'], resources: ['workspaceimages'], verbs: ['get', 'list', 'watch', 'use'] },
    ]);
  });

  const labelCases: { labels: Record<string, string>; admin: boolean; disabled: boolean }[] = [
    { labels: {}, admin: false, disabled: false },
    { labels: { 'den.dev/role': 'user' }, admin: false, disabled: false },
    { labels: { 'den.dev/role': 'admin' }, admin: true, disabled: false },
    { labels: { 'den.dev/role': 'Admin' }, admin: false, disabled: false },
    { labels: { 'den.dev/disabled': 'true' }, admin: false, disabled: true },
    { labels: { 'den.dev/disabled': 'false' }, admin: false, disabled: false },
    { labels: { 'den.dev/disabled': 'yes' }, admin: false, disabled: false },
    { labels: { 'den.dev/role': 'admin', 'den.dev/disabled': 'true' }, admin: true, disabled: true },
  ];
  for (const c of labelCases) {
    it(`with labels ${JSON.stringify(c.labels)} ${c.admin ? 'adds' : 'has no'} admin binding and ${c.disabled ? 'empties' : 'fills'} every binding's subjects`, () => {
      const children = render(c.labels);
      const admin = children.filter((x) => x.kind === 'ClusterRoleBinding' && x.metadata?.name === 'svc-admin-alice');
      expect(admin.length).to.equal(c.admin ? 1 : 0);
      if (c.admin) {
        expect(admin[0]!.roleRef).to.deep.equal({ apiGroup: RBAC, kind: 'ClusterRole', name: 'den-admin' });
        if (!c.disabled) expect(admin[0]!.subjects).to.deep.equal([OWNER, sa('session')]);
      }
      const all = children.filter((x) => x.kind === 'RoleBinding' || x.kind === 'ClusterRoleBinding');
      expect(all.length).to.equal(c.admin ? 5 : 4);
      for (const binding of all) {
        if (c.disabled) expect(binding, binding.metadata!.name).not.to.have.property('subjects');
        else expect(binding.subjects, binding.metadata!.name).to.be.an('array').that.is.not.empty;
      }
    });
  }
});
