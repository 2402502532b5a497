// Sharing a workspace on a real API server, through Den's REST as installed: the share is a Role
// and RoleBinding alice writes with her own token, the cluster's RBAC decides what bob may then
// do (read the workspace, exec and port-forward into its pod; not delete or patch it), the
// escalation check keeps alice from granting more than she holds, and removing the share takes
// it all away again.
import { selfAccessAllowed } from '../../kube/access-review.js';
import { expect } from 'chai';
import type { KubeClient } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { shareObjectName } from '../../contract/share.js';
import { generateSshKey } from '../support/ssh-keys.js';
import { eventually } from '../support/platform.js';
import { realClient } from '../support/real-kube/cluster.js';
import { mintSessionToken, sessionUser, uniqueName, workspaceRequest, type Person } from '../support/real-kube/people.js';
import type { SharedRealKube } from '../support/real-kube/shared.js';
import type { Rest, Session } from './rest.js';
import { refusal, removeSignedInPeople, signInNewPeople } from './real-person.js';

/** Whether the cluster would let `client`'s identity do `verb` on `resource`/`name` (a SelfSubjectAccessReview). */
function may(client: KubeClient, verb: string, resource: string, namespace: string, name: string, subresource?: string, group = ''): Promise<boolean> {
  return selfAccessAllowed(client, { verb, group, resource, subresource, namespace, name });
}

describe('sharing a workspace on a real API server: the cluster decides what the guest may do', function () {
  this.timeout(180_000);
  const image = uniqueName('ubuntu');
  const workspace = 'dev';
  const pod = `${workspace}-0`;
  let shared: SharedRealKube;
  let admin: KubeClient;
  let rest: Rest;
  let alice: Person;
  let bob: Person;
  let aliceSession: Session;
  let bobSession: Session;
  let asBob: KubeClient;
  let asAlice: KubeClient;

  before(async function () {
    this.timeout(300_000);
    ({ shared, admin, rest, people: [{ person: alice, session: aliceSession }, { person: bob, session: bobSession }] } = await signInNewPeople(['alice', 'bob'], image));
    const created = await rest.call('POST', '/workspaces', { body: workspaceRequest(workspace, image, generateSshKey('ed25519').publicLine), as: { session: aliceSession } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    asBob = realClient(shared.kube, await mintSessionToken(shared.kube, bob));
    asAlice = realClient(shared.kube, await mintSessionToken(shared.kube, alice));
  });

  after(async function () {
    this.timeout(180_000);
    await removeSignedInPeople(admin, [alice, bob], image);
  });

  it('refuses bob the workspace and its pod before anything is shared', async () => {
    const refused = await refusal(asBob.get(RESOURCES.workspace, workspace, alice.namespace));
    expect(refused.status).to.equal(403);
    expect(await may(asBob, 'create', 'pods', alice.namespace, pod, 'exec')).to.equal(false);
    const list = await rest.call('GET', '/shared-workspaces', { as: { session: bobSession } });
    expect(list.status).to.equal(200);
    expect(list.body.items).to.deep.equal([]);
  });

  it('lets alice share it through REST (201, then 200 again), written as her own Role and RoleBinding with an Event and listed for both', async () => {
    const first = await rest.call('PUT', `/workspaces/${workspace}/shares/${bob.name}`, { as: { session: aliceSession } });
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    expect(first.body).to.include({ owner: alice.name, workspace, person: bob.name });
    const again = await rest.call('PUT', `/workspaces/${workspace}/shares/${bob.name}`, { as: { session: aliceSession } });
    expect(again.status).to.equal(200);

    const binding = await admin.get<any>(RESOURCES.roleBinding, shareObjectName(workspace, bob.name), alice.namespace);
    expect(binding.subjects).to.deep.equal([{ kind: 'ServiceAccount', name: 'session', namespace: bob.namespace }]);
    const role = await admin.get<any>(RESOURCES.role, shareObjectName(workspace, bob.name), alice.namespace);
    expect(role.rules.every((r: { resourceNames: string[] }) => r.resourceNames.length === 1)).to.equal(true);

    const shares = await rest.call('GET', `/workspaces/${workspace}/shares`, { as: { session: aliceSession } });
    expect(shares.body.items.map((s: { person: string }) => s.person)).to.deep.equal([bob.name]);
    // Each server replica finds shares in its watch-backed cache: a share made a moment ago shows once the watch brought it.
    const listed = await eventually(async () => {
      const mine = await rest.call('GET', '/shared-workspaces', { as: { session: bobSession } });
      expect(mine.status, JSON.stringify(mine.body)).to.equal(200);
      return mine.body.items.length > 0 && mine.body.items;
    }, "dev in bob's shared list", 10_000, 100);
    expect(listed.map((s: any) => [s.owner, s.name, s.ssh_user])).to.deep.equal([[alice.name, workspace, `${workspace}.${alice.name}`]]);
    const events = await rest.call('GET', `/workspaces/${workspace}/events`, { as: { session: aliceSession } });
    expect(events.body.items.map((e: any) => `${e.reason}: ${e.message}`)).to.include(`Shared: Shared with ${bob.name} by ${alice.name}: SSH, terminal and apps, not stop, resize or delete.`);
  });

  it('lets bob read the workspace and exec and port-forward into its pod, and refuses him deleting, patching or reading anything else', async () => {
    const got = await asBob.get<any>(RESOURCES.workspace, workspace, alice.namespace);
    expect(got.metadata.name).to.equal(workspace);
    expect(await may(asBob, 'create', 'pods', alice.namespace, pod, 'exec')).to.equal(true);
    expect(await may(asBob, 'create', 'pods', alice.namespace, pod, 'portforward')).to.equal(true);
    expect(await may(asBob, 'get', 'pods', alice.namespace, pod)).to.equal(true);
    expect(await may(asBob, 'create', 'pods', alice.namespace, 'other-0', 'exec'), 'another pod').to.equal(false);
    expect(await may(asBob, 'get', 'secrets', alice.namespace, 'den-personal-env'), "alice's own variables").to.equal(false);

    const deleted = await rest.call('DELETE', `/workspaces/${workspace}?namespace=${alice.namespace}`, { as: { session: bobSession } });
    expect(deleted.status).to.equal(403);
    expect(deleted.body.error).to.equal(`workspaces.den.dev "${workspace}" is forbidden: User "${sessionUser(bob)}" cannot delete resource "workspaces" in API group "den.dev" in the namespace "${alice.namespace}"`);
    const stopped = await rest.call('POST', `/workspaces/${workspace}/stop?namespace=${alice.namespace}`, { as: { session: bobSession } });
    expect(stopped.status, 'stop is a patch').to.equal(403);
    const patched = await refusal(asBob.patch(RESOURCES.workspace, workspace, { spec: { resources: { limits: { cpu: '4' } } } }, { namespace: alice.namespace }));
    expect(patched.status).to.equal(403);
    const share = await rest.call('PUT', `/workspaces/${workspace}/shares/${alice.name}`, { as: { session: bobSession } });
    expect(share.status, 'bob cannot pass it on: /shares names only his own namespace, where there is no such workspace').to.equal(404);
    const resharing = await refusal(asBob.create(RESOURCES.roleBinding, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'pass-on', namespace: alice.namespace }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: shareObjectName(workspace, bob.name) }, subjects: [{ kind: 'User', name: 'mallory' }] }, alice.namespace));
    expect(resharing.status).to.equal(403);
  });

  it("refuses alice granting more than she holds: the cluster's escalation check, for a Role and for a binding to a broader ClusterRole", async () => {
    const role = await refusal(asAlice.create(RESOURCES.role, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'too-much', namespace: alice.namespace }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }] }, alice.namespace));
    expect(role.status).to.equal(403);
    expect(role.message).to.include('is attempting to grant RBAC permissions not currently held');
    const binding = await refusal(asAlice.create(RESOURCES.roleBinding, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'too-much', namespace: alice.namespace }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' }, subjects: [{ kind: 'ServiceAccount', name: 'session', namespace: bob.namespace }] }, alice.namespace));
    expect(binding.status).to.equal(403);
    const elsewhere = await refusal(asAlice.create(RESOURCES.role, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'in-bobs', namespace: bob.namespace }, rules: [] }, bob.namespace));
    expect(elsewhere.status, "no Roles in bob's namespace").to.equal(403);
    const managed = await refusal(asAlice.patch(RESOURCES.roleBinding, 'svc-owner', { subjects: [{ kind: 'User', name: 'mallory' }] }, { namespace: alice.namespace }));
    expect(managed.status, "the manager's bindings cannot be changed").to.equal(403);
  });

  it('takes it all away when alice removes the share (204, then 404), with an Event', async () => {
    const removed = await rest.call('DELETE', `/workspaces/${workspace}/shares/${bob.name}`, { as: { session: aliceSession } });
    expect(removed.status, JSON.stringify(removed.body)).to.equal(204);
    const again = await rest.call('DELETE', `/workspaces/${workspace}/shares/${bob.name}`, { as: { session: aliceSession } });
    expect(again.status).to.equal(404);
    expect(again.body).to.deep.equal({ error: `workspace ${workspace} is not shared with ${bob.name}` });
    expect((await refusal(asBob.get(RESOURCES.workspace, workspace, alice.namespace))).status).to.equal(403);
    expect(await may(asBob, 'create', 'pods', alice.namespace, pod, 'exec')).to.equal(false);
    expect((await rest.call('GET', '/shared-workspaces', { as: { session: bobSession } })).body.items).to.deep.equal([]);
    const events = await rest.call('GET', `/workspaces/${workspace}/events`, { as: { session: aliceSession } });
    expect(events.body.items.map((e: any) => e.reason)).to.include('Unshared');
  });

  it('answers a share with nobody or with oneself with a 404 or 400 that says why, and writes nothing', async () => {
    const nobody = await rest.call('PUT', `/workspaces/${workspace}/shares/nobody-${bob.name}`, { as: { session: aliceSession } });
    expect(nobody.status).to.equal(404);
    expect(nobody.body.error).to.equal(`there is no person "nobody-${bob.name}" in this Den: use their Den user name`);
    const self = await rest.call('PUT', `/workspaces/${workspace}/shares/${alice.name}`, { as: { session: aliceSession } });
    expect(self.status).to.equal(400);
    const bad = await rest.call('PUT', `/workspaces/${workspace}/shares/Bob_1`, { as: { session: aliceSession } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.match(/^person "Bob_1" is not a person's name/);
    const missing = await rest.call('PUT', `/workspaces/nope/shares/${bob.name}`, { as: { session: aliceSession } });
    expect(missing.status).to.equal(404);
    const left = await admin.list(RESOURCES.roleBinding, { namespace: alice.namespace, labelSelector: 'den.dev/share-guest' });
    expect(left.items).to.deep.equal([]);
  });

  it('goes with the workspace: the share is owned by it, so deleting dev leaves no grant for a new dev of that name', async () => {
    expect((await rest.call('PUT', `/workspaces/${workspace}/shares/${bob.name}`, { as: { session: aliceSession } })).status).to.equal(201);
    const owned = await admin.get<any>(RESOURCES.roleBinding, shareObjectName(workspace, bob.name), alice.namespace);
    const ws = await admin.get<any>(RESOURCES.workspace, workspace, alice.namespace);
    expect(owned.metadata.ownerReferences).to.deep.equal([{ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', name: workspace, uid: ws.metadata.uid }]);
    expect((await rest.call('DELETE', `/workspaces/${workspace}`, { as: { session: aliceSession } })).status).to.equal(204);
    await eventually(
      async () => (await admin.list(RESOURCES.roleBinding, { namespace: alice.namespace, labelSelector: 'den.dev/share-guest' })).items.length === 0 && (await admin.list(RESOURCES.role, { namespace: alice.namespace, labelSelector: 'den.dev/share-guest' })).items.length === 0,
      "the share's Role and RoleBinding collected with the workspace",
      60_000,
      250,
    );
  });
});
