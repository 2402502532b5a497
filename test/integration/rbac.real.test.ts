// Per-person authorization on a real API server, through Den's REST as installed: the cluster's
// RBAC decides and REST answers its 403 with the cluster's own message (SPEC 5 and 7, DESIGN
// "How REST maps cluster answers"), and the tokens den server mints are bound to the
// ServiceAccount's UID: a person deleted and made again under the same name refuses the old
// token (the cluster's 401), while REST goes on with a newly minted one.
import { expect } from 'chai';
import type { KubeClient } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { generateSshKey } from '../support/ssh-keys.js';
import { eventually } from '../support/platform.js';
import { realClient } from '../support/real-kube/cluster.js';
import { deleteUserSpace, mintSessionToken, sessionUser, uniqueName, workspaceRequest, type Person } from '../support/real-kube/people.js';
import type { SharedRealKube } from '../support/real-kube/shared.js';
import type { Rest, Session } from './rest.js';
import { refusal, removeSignedInPeople, signInNewPeople } from './real-person.js';

describe('per-person RBAC on a real API server, through REST', function () {
  this.timeout(180_000);
  const image = uniqueName('ubuntu');
  const workspace = 'dev';
  const key = generateSshKey('ed25519').publicLine;
  let shared: SharedRealKube;
  let admin: KubeClient;
  let rest: Rest;
  let alice: Person;
  let bob: Person;
  let aliceSession: Session;
  let bobSession: Session;

  before(async function () {
    this.timeout(300_000);
    ({ shared, admin, rest, people: [{ person: alice, session: aliceSession }, { person: bob, session: bobSession }] } = await signInNewPeople(['alice', 'bob'], image));
    const created = await rest.call('POST', '/workspaces', { body: workspaceRequest(workspace, image, key), as: { session: aliceSession } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
  });

  after(async function () {
    this.timeout(180_000);
    await removeSignedInPeople(admin, [alice, bob], image);
  });

  it("refuses bob reading alice's workspace with the cluster's 403, word for word what his identity gets from the API server", async () => {
    const answer = await rest.call('GET', `/workspaces/${workspace}?namespace=${alice.namespace}`, { as: { session: bobSession } });
    const direct = await refusal(realClient(shared.kube, await mintSessionToken(shared.kube, bob)).get(RESOURCES.workspace, workspace, alice.namespace));
    expect(direct.status).to.equal(403);
    expect(answer.status).to.equal(403);
    expect(answer.body).to.deep.equal({ error: direct.message });
    expect(answer.body.error).to.equal(`workspaces.den.dev "${workspace}" is forbidden: User "${sessionUser(bob)}" cannot get resource "workspaces" in API group "den.dev" in the namespace "${alice.namespace}"`);
  });

  it("refuses bob deleting alice's workspace with the cluster's 403, and the workspace stays", async () => {
    const answer = await rest.call('DELETE', `/workspaces/${workspace}?namespace=${alice.namespace}`, { as: { session: bobSession } });
    expect(answer.status).to.equal(403);
    expect(answer.body).to.deep.equal({ error: `workspaces.den.dev "${workspace}" is forbidden: User "${sessionUser(bob)}" cannot delete resource "workspaces" in API group "den.dev" in the namespace "${alice.namespace}"` });
    const still = await admin.get<{ metadata: { deletionTimestamp?: string } }>(RESOURCES.workspace, workspace, alice.namespace);
    expect(still.metadata.deletionTimestamp).to.equal(undefined);
  });

  it("lists only bob's own namespace for bob (the cluster would refuse him alice's), and refuses him the administration endpoints with the cluster's message", async () => {
    const list = await rest.call('GET', '/workspaces', { as: { session: bobSession } });
    expect(list.status).to.equal(200);
    expect(list.body.items).to.deep.equal([]);
    const narrowed = await rest.call('GET', `/workspaces?namespace=${alice.namespace}`, { as: { session: bobSession } });
    expect(narrowed.status, "another's namespace narrows a person's own list to nothing").to.equal(200);
    expect(narrowed.body.items).to.deep.equal([]);
    const direct = await refusal(realClient(shared.kube, await mintSessionToken(shared.kube, bob)).list(RESOURCES.workspace, { namespace: alice.namespace }));
    expect(direct.message).to.equal(`workspaces.den.dev is forbidden: User "${sessionUser(bob)}" cannot list resource "workspaces" in API group "den.dev" in the namespace "${alice.namespace}"`);
    const people = await rest.call('GET', '/admin/userspaces', { as: { session: bobSession } });
    expect(people.status).to.equal(403);
    expect(people.body.error).to.equal(`userspaces.den.dev is forbidden: User "${sessionUser(bob)}" cannot list resource "userspaces" in API group "den.dev" at the cluster scope`);
  });

  it('lets alice read her own workspace', async () => {
    const own = await rest.call('GET', `/workspaces/${workspace}`, { as: { session: aliceSession } });
    expect(own.status, JSON.stringify(own.body)).to.equal(200);
    expect(own.body.metadata.namespace).to.equal(alice.namespace);
  });

  it('refuses a token minted before alice was deleted and made again (401 from the cluster), while REST mints a new one and answers', async function () {
    this.timeout(240_000);
    const issued = await rest.call('POST', '/tokens', { as: { session: aliceSession } });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    const apiToken = { token: issued.body.token as string };
    // Both server replicas (round robin) mint and cache a token for alice's old ServiceAccount.
    for (let i = 0; i < 4; i++) expect((await rest.call('GET', '/workspaces', { as: apiToken })).status).to.equal(200);
    const old = await mintSessionToken(shared.kube, alice);
    expect((await realClient(shared.kube, old).list(RESOURCES.workspace, { namespace: alice.namespace })).items).to.have.length(1);

    const before = await admin.get<{ metadata: { uid: string }; spec: unknown }>(RESOURCES.userSpace, alice.name);
    await deleteUserSpace(admin, alice.name);
    await admin.create(RESOURCES.userSpace, { apiVersion: RESOURCES.userSpace.apiVersion, kind: 'UserSpace', metadata: { name: alice.name }, spec: before.spec });
    await eventually(async () => (await admin.get<{ status?: { phase?: string } }>(RESOURCES.userSpace, alice.name)).status?.phase === 'Ready', `UserSpace ${alice.name} Ready again`, 120_000, 250);

    const refused = await refusal(realClient(shared.kube, old).list(RESOURCES.workspace, { namespace: alice.namespace }));
    expect(refused.status, 'the old token, same ServiceAccount name, new UID').to.equal(401);
    expect(refused.body).to.include({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    const fresh = await mintSessionToken(shared.kube, alice);
    expect((await realClient(shared.kube, fresh).list(RESOURCES.workspace, { namespace: alice.namespace })).items).to.deep.equal([]);
    for (let i = 0; i < 4; i++) {
      const answer = await rest.call('GET', '/workspaces', { as: apiToken });
      expect(answer.status, `call ${i + 1} after alice was made again: ${JSON.stringify(answer.body)}`).to.equal(200);
      expect(answer.body.items).to.deep.equal([]);
    }
    const unknown = await rest.call('GET', '/workspaces', { as: { token: `svc_${'A'.repeat(43)}` } });
    expect(unknown.status).to.equal(401);
    expect(unknown.body.error).to.be.a('string').and.not.equal('');
  });
});
