// What the cluster decides of a port's share, on a real API server with Den installed (path-based
// previews only, as the shared Den runs): the owner's own identity may write spec.sharedPorts,
// the CRD's schema and the validating webhook refuse a port listed twice and a people level
// without people in their words, another person's identity may not write it at all, and REST refuses any share but the
// owner in path mode, saying why.
import { expect } from 'chai';
import type { KubeClient } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import type { Workspace } from '../../contract/workspace.js';
import { generateSshKey } from '../support/ssh-keys.js';
import { realClient } from '../support/real-kube/cluster.js';
import { addPerson, mintSessionToken, removePerson, sessionUser, uniqueName, workspaceRequest, type Person } from '../support/real-kube/people.js';
import { sharedRealKube, type SharedRealKube } from '../support/real-kube/shared.js';
import { refusal, removeSignedInPerson, signInNewPerson, type SignedInPerson } from './real-person.js';

describe('sharing a port, on a real API server', function () {
  this.timeout(180_000);
  const image = uniqueName('ubuntu');
  let shared: SharedRealKube;
  let alice: SignedInPerson;
  let bob: Person | undefined;
  let asAlice: KubeClient;
  let asBob: KubeClient;

  before(async function () {
    this.timeout(300_000);
    shared = await sharedRealKube();
    alice = await signInNewPerson('alice', image);
    bob = await addPerson(shared.den.kubeconfig, uniqueName('bob'));
    const created = await alice.rest.call('POST', '/workspaces', { body: workspaceRequest('dev', image, generateSshKey('ed25519').publicLine), as: { session: alice.session } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    asAlice = realClient(shared.kube, await mintSessionToken(shared.kube, alice.person));
    asBob = realClient(shared.kube, await mintSessionToken(shared.kube, bob));
  });

  after(async function () {
    this.timeout(180_000);
    if (bob) await removePerson(alice.admin, bob.name);
    await removeSignedInPerson(alice?.admin, alice?.person, image);
  });

  const patchAs = (kube: KubeClient, sharedPorts: unknown) => kube.patch<Workspace>(RESOURCES.workspace, 'dev', { spec: { sharedPorts } }, { namespace: alice.person.namespace });

  it("lets the owner's identity write a share, and the CRD's schema and the validating webhook refuse a port listed twice or people missing, in their words", async () => {
    const written = await patchAs(asAlice, [{ port: 3000, level: 'authenticated' }, { port: 8080, level: 'people', people: [bob!.name] }]);
    expect(written.spec?.sharedPorts).to.deep.equal([{ port: 3000, level: 'authenticated' }, { port: 8080, level: 'people', people: [bob!.name] }]);
    const twice = await refusal(patchAs(asAlice, [{ port: 3000, level: 'authenticated' }, { port: 3000, level: 'public' }]));
    expect(twice.status).to.equal(422);
    // The list map's key check or the validating webhook (vworkspace.den.dev), whichever answers first.
    expect(twice.message).to.match(/spec\.sharedPorts\[1\]: Duplicate value: .*"port":3000|spec\.sharedPorts\[1\]\.port: port 3000 is listed twice: one entry per port/);
    const noPeople = await refusal(patchAs(asAlice, [{ port: 3000, level: 'people' }]));
    expect(noPeople.status).to.equal(422);
    // The schema's rule where the API server checks CRD validation rules (beta from 1.25.0), else the webhook.
    expect(noPeople.message).to.match(/people is required with level people, and only with it|spec\.sharedPorts\[0\]\.people: name at least one person/);
    const badLevel = await refusal(patchAs(asAlice, [{ port: 3000, level: 'everyone' }]));
    expect(badLevel.message).to.include('spec.sharedPorts[0].level: Unsupported value: "everyone"');
  });

  it("refuses another person's identity writing the owner's share, in the cluster's words", async () => {
    const refused = await refusal(patchAs(asBob, [{ port: 3000, level: 'public' }]));
    expect(refused.status).to.equal(403);
    expect(refused.message).to.include(`User "${sessionUser(bob!)}" cannot patch resource "workspaces" in API group "den.dev" in the namespace "${alice.person.namespace}"`);
  });

  it('refuses through REST any share but the owner on a Den with path-based previews only, and makes a port the owner\'s again', async () => {
    const refused = await alice.rest.call('PUT', '/workspaces/dev/ports/3000/share', { body: { level: 'authenticated' }, as: { session: alice.session } });
    expect(refused.status).to.equal(400);
    expect(refused.body.error).to.include("path-based previews, on Den's own origin, serve only the owner");
    const back = await alice.rest.call('PUT', '/workspaces/dev/ports/3000/share', { body: { level: 'owner' }, as: { session: alice.session } });
    expect(back.status, JSON.stringify(back.body)).to.equal(200);
    const stored = await asAlice.get<Workspace>(RESOURCES.workspace, 'dev', alice.person.namespace);
    expect(stored.spec?.sharedPorts?.map((s) => s.port)).to.deep.equal([8080]);
  });
});
