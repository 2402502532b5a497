// REST of sharing a workspace (docs/sharing.md) through the real app against the fake API server
// with the chart's RBAC and its escalation check: every answer checked against the OpenAPI
// document, the Role and RoleBinding alice's own token wrote, the guest's list, the Shared and
// Unshared Events and the audit lines.
import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { shareObjectName } from '../../../contract/share.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, call, login, startCluster, startDen, untilSharesCached, type Den, type Signed } from '../core/cluster.js';

interface CoreEvent extends KubeObject {
  reason: string;
  message: string;
  involvedObject?: { name?: string };
}

describe('REST: sharing a workspace with a person', function () {
  this.timeout(30_000);
  let api: FakeApiServer;
  let den: Den;
  let alice: Signed;
  let bob: Signed;
  const logs: { msg: string; fields?: Record<string, unknown> }[] = [];
  const audits = (act: string) => logs.filter((l) => l.msg === 'audit' && l.fields?.audit === act).map((l) => l.fields!);
  const events = () => api.objects<CoreEvent>(RESOURCES.event, 'svc-alice').filter((e) => e.involvedObject?.name === 'dev' && (e.reason === 'Shared' || e.reason === 'Unshared'));

  before(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
    await addPerson(api, 'bob');
    api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev', namespace: 'svc-alice' }, spec: { imageRef: { name: 'python' }, storage: '1Gi', sshAuthorizedKeys: [], running: true }, status: { phase: 'Running' } } as KubeObject);
    den = await startDen(api, { log: (msg, fields) => logs.push({ msg, fields }) });
    [alice, bob] = await Promise.all([login(den, 'alice', 'alice-password'), login(den, 'bob', 'bob-password')]);
  });
  after(async () => {
    await den.close();
    await api.close();
  });

  it("PUT answers 201 with the share, written as alice's Role and RoleBinding naming only dev's objects, with a Shared Event and an audit line; again 200", async () => {
    const res = await call(den, 'PUT', '/workspaces/dev/shares/bob', { as: alice });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.include({ owner: 'alice', workspace: 'dev', person: 'bob' });
    const role = api.object<{ rules: { resources: string[]; verbs: string[]; resourceNames: string[] }[] } & KubeObject>(RESOURCES.role, shareObjectName('dev', 'bob'), 'svc-alice')!;
    expect(role.rules).to.deep.equal([
      { apiGroups: ['den.dev'], resources: ['workspaces'], verbs: ['get'], resourceNames: ['dev'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: ['dev-0'] },
      { apiGroups: [''], resources: ['pods/exec', 'pods/portforward'], verbs: ['create', 'get'], resourceNames: ['dev-0'] },
    ]);
    const binding = api.object<{ subjects: unknown[] } & KubeObject>(RESOURCES.roleBinding, shareObjectName('dev', 'bob'), 'svc-alice')!;
    expect(binding.subjects).to.deep.equal([{ kind: 'ServiceAccount', name: 'session', namespace: 'svc-bob' }]);
    expect(binding.metadata?.labels).to.deep.equal({ 'den.dev/share-workspace': 'dev', 'den.dev/share-guest': 'bob' });
    const writer = api.requests.find((r) => r.method === 'POST' && r.path === '/apis/rbac.authorization.k8s.io/v1/namespaces/svc-alice/rolebindings');
    expect(writer?.user, "written with alice's own token").to.equal('system:serviceaccount:svc-alice:session');
    expect(events().map((e) => `${e.reason}: ${e.message}`)).to.deep.equal(['Shared: Shared with bob by alice: SSH, terminal and apps, not stop, resize or delete.']);
    expect(audits('share-granted')).to.have.length(1);
    expect(audits('share-granted')[0]).to.include({ userspace: 'alice', guest: 'bob', namespace: 'svc-alice', workspace: 'dev', via: 'rest' });
    const again = await call(den, 'PUT', '/workspaces/dev/shares/bob', { as: alice });
    expect(again.status).to.equal(200);
    expect(audits('share-granted'), 'a repeat records nothing new').to.have.length(1);
  });

  it("lists bob for alice, and dev.alice for bob with the workspace read with bob's own token", async () => {
    await untilSharesCached(den, 'bob', 1);
    const shares = await call(den, 'GET', '/workspaces/dev/shares', { as: alice });
    expect(shares.body.items.map((s: { person: string }) => s.person)).to.deep.equal(['bob']);
    const mine = await call(den, 'GET', '/shared-workspaces', { as: bob });
    expect(mine.status).to.equal(200);
    expect(mine.body.items).to.have.length(1);
    expect(mine.body.items[0]).to.include({ owner: 'alice', namespace: 'svc-alice', name: 'dev', ssh_user: 'dev.alice' });
    expect(mine.body.items[0].workspace.metadata.name).to.equal('dev');
    const read = api.requests.filter((r) => r.method === 'GET' && r.path === '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces/dev').at(-1);
    expect(read?.user).to.equal('system:serviceaccount:svc-bob:session');
    expect((await call(den, 'GET', '/shared-workspaces', { as: alice })).body.items).to.deep.equal([]);
  });

  it('lists nothing for bob from a binding labelled for him that grants him nothing (the label is only a pointer)', async () => {
    // Bob's session identity, labelled as a share of alice's workspace `secret`, bound to a Role that does not exist.
    api.seed({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'decoy', namespace: 'svc-alice', labels: { 'den.dev/share-workspace': 'secret', 'den.dev/share-guest': 'bob' } }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'nothing' }, subjects: [{ kind: 'ServiceAccount', name: 'session', namespace: 'svc-bob' }] } as KubeObject);
    api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'secret', namespace: 'svc-alice' }, spec: { imageRef: { name: 'python' }, storage: '1Gi', sshAuthorizedKeys: [], running: true } } as KubeObject);
    try {
      await untilSharesCached(den, 'bob', 2);
      const mine = await call(den, 'GET', '/shared-workspaces', { as: bob });
      expect(mine.body.items.map((s: { ssh_user: string }) => s.ssh_user)).to.deep.equal(['dev.alice']);
      const asked = api.requests.filter((r) => r.path === '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces/secret');
      expect(asked.map((r) => r.user), "asked as bob, and the cluster refused him").to.deep.equal(['system:serviceaccount:svc-bob:session']);
    } finally {
      api.remove(RESOURCES.roleBinding, 'decoy', 'svc-alice');
      api.remove(RESOURCES.workspace, 'secret', 'svc-alice');
    }
  });

  it('refuses a cookie PUT without the CSRF token, and a bad person name with a 400 naming it, writing nothing', async () => {
    const csrf = await call(den, 'PUT', '/workspaces/dev/shares/carol', { as: alice, csrf: false });
    expect(csrf.status).to.equal(403);
    const bad = await call(den, 'PUT', '/workspaces/dev/shares/Carol', { as: alice });
    expect(bad.status).to.equal(400);
    expect(bad.body).to.deep.equal({ error: 'person "Carol" is not a person\'s name: use their Den user name (lower-case letters, digits and \'-\')' });
    expect(api.object(RESOURCES.roleBinding, shareObjectName('dev', 'carol'), 'svc-alice')).to.equal(undefined);
  });

  it('keeps workspace a-b shared with carol apart from workspace a shared with b-carol: the names cannot collide', async () => {
    await addPerson(api, 'b-carol');
    await addPerson(api, 'carol');
    const ws = (name: string) => ({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name, namespace: 'svc-alice' }, spec: { imageRef: { name: 'python' }, storage: '1Gi', sshAuthorizedKeys: [], running: true } }) as KubeObject;
    api.seed(ws('a'), ws('a-b'));
    try {
      expect((await call(den, 'PUT', '/workspaces/a/shares/b-carol', { as: alice })).status).to.equal(201);
      expect((await call(den, 'PUT', '/workspaces/a-b/shares/carol', { as: alice })).status).to.equal(201);
      expect((await call(den, 'GET', '/workspaces/a/shares', { as: alice })).body.items.map((s: { person: string }) => s.person)).to.deep.equal(['b-carol']);
      expect((await call(den, 'GET', '/workspaces/a-b/shares', { as: alice })).body.items.map((s: { person: string }) => s.person)).to.deep.equal(['carol']);
    } finally {
      for (const name of ['a', 'a-b']) api.remove(RESOURCES.workspace, name, 'svc-alice');
      for (const [w, p] of [['a', 'b-carol'], ['a-b', 'carol']] as const) for (const r of [RESOURCES.role, RESOURCES.roleBinding]) api.remove(r, shareObjectName(w, p), 'svc-alice');
    }
  });

  it('DELETE answers 204, removes both objects, records Unshared and an audit line; then 404', async () => {
    const res = await call(den, 'DELETE', '/workspaces/dev/shares/bob', { as: alice });
    expect(res.status).to.equal(204);
    expect(api.object(RESOURCES.roleBinding, shareObjectName('dev', 'bob'), 'svc-alice')).to.equal(undefined);
    expect(api.object(RESOURCES.role, shareObjectName('dev', 'bob'), 'svc-alice')).to.equal(undefined);
    expect(events().map((e) => e.reason)).to.deep.equal(['Shared', 'Unshared']);
    expect(audits('share-removed')[0]).to.include({ userspace: 'alice', guest: 'bob', workspace: 'dev', via: 'rest' });
    const again = await call(den, 'DELETE', '/workspaces/dev/shares/bob', { as: alice });
    expect(again.status).to.equal(404);
    await untilSharesCached(den, 'bob', 0);
    expect((await call(den, 'GET', '/shared-workspaces', { as: bob })).body.items).to.deep.equal([]);
  });
});
