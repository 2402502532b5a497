// The journey's access steps (journey.ts): what another person, a non-administrator, the
// administrator and a read-scoped API token may and may not do, in the cluster's words.
import { expect } from 'chai';
import type { KubeObject } from '../../kube/client.js';
import { userNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import type { JourneyState, Json } from './journey-state.js';

/** Defines these steps (mocha `it`s, in order) on the journey's shared state. */
export function accessSteps(s: JourneyState): void {
  it("another person can neither see nor delete the first person's workspace", () =>
    s.diagnose(async () => {
      const { names, rest, cluster, aliceNs } = s;
      const bob = (s.bob = await rest.login(names.bob, names.password));
      const list = await rest.call('GET', '/workspaces', { as: { session: bob } });
      expect(list.status).to.equal(200);
      expect(list.body.items.map((w: KubeObject) => w.metadata?.name)).to.not.include(names.workspace);
      const own = await rest.call('GET', `/workspaces/${names.workspace}`, { as: { session: bob } });
      expect(own.status, 'looked up in their own namespace').to.equal(404);
      const other = await rest.call('GET', `/workspaces/${names.workspace}?namespace=${aliceNs()}`, { as: { session: bob } });
      expect(other.status).to.equal(403);
      const bobUser = `system:serviceaccount:${userNamespace(names.bob)}:session`;
      expect(other.body.error).to.equal(`workspaces.den.dev "${names.workspace}" is forbidden: User "${bobUser}" cannot get resource "workspaces" in API group "den.dev" in the namespace "${aliceNs()}"`);
      const del = await rest.call('DELETE', `/workspaces/${names.workspace}?namespace=${aliceNs()}`, { as: { session: bob } });
      expect(del.status).to.equal(403);
      expect(del.body.error).to.include(`User "${bobUser}" cannot delete resource "workspaces"`);
      await cluster(RESOURCES.workspace, names.workspace, aliceNs());
    }));

  it('a person who is not an administrator is refused the administration endpoints with the cluster\'s message', () =>
    s.diagnose(async () => {
      const { names, rest, alice, cluster, aliceNs } = s;
      const list = await rest.call('GET', '/admin/userspaces', { as: { session: alice } });
      expect(list.status).to.equal(403);
      expect(list.body.error).to.include(`User "system:serviceaccount:${aliceNs()}:session" cannot list resource "userspaces" in API group "den.dev" at the cluster scope`);
      const del = await rest.call('DELETE', `/admin/userspaces/${names.bob}`, { as: { session: alice } });
      expect(del.status).to.equal(403);
      await cluster(RESOURCES.userSpace, names.bob);
    }));

  it("the administrator sees everyone's workspaces", () =>
    s.diagnose(async () => {
      const { names, rest, admin, aliceNs } = s;
      const list = await rest.call('GET', '/workspaces', { as: { session: admin } });
      expect(list.status, JSON.stringify(list.body)).to.equal(200);
      const found = list.body.items.find((w: KubeObject) => w.metadata?.name === names.workspace);
      expect(found?.metadata?.namespace).to.equal(aliceNs());
      const one = await rest.call('GET', `/workspaces/${names.workspace}?namespace=${aliceNs()}`, { as: { session: admin } });
      expect(one.status).to.equal(200);
      expect(one.body.status.phase).to.equal('Running');
    }));

  it('a read-scoped API token lists workspaces but cannot create one', () =>
    s.diagnose(async () => {
      const { names, rest, aliceKey, alice, aliceNs } = s;
      const issued = await rest.call('POST', '/tokens?scope=read', { as: { session: alice } });
      expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
      expect(issued.body.token).to.match(/^svc_/);
      const token = issued.body.token as string;
      const list = await rest.call('GET', '/workspaces', { as: { token } });
      expect(list.status).to.equal(200);
      expect(list.body.items.map((w: KubeObject) => w.metadata?.name)).to.include(names.workspace);
      const create = await rest.call('POST', '/workspaces', {
        body: { name: `${names.workspace}-ro`, image: names.image, storage: '1Gi', ssh_public_key: aliceKey.publicKey },
        as: { token },
      });
      expect(create.status).to.equal(403);
      expect(create.body.error).to.include(`User "system:serviceaccount:${aliceNs()}:session-readonly" cannot create resource "workspaces"`);
      const listed = await rest.call('GET', '/tokens', { as: { session: alice } });
      expect(listed.status).to.equal(200);
      const record = listed.body.items.find((t: Json) => t.name === issued.body.name);
      expect(record, 'the token in GET /tokens').to.not.equal(undefined);
      expect(record).to.not.have.property('token');
      const revoked = await rest.call('DELETE', `/tokens/${encodeURIComponent(issued.body.name)}`, { as: { session: alice } });
      expect(revoked.status).to.equal(204);
      const after = await rest.call('GET', '/workspaces', { as: { token } });
      expect(after.status, 'the revoked token at once').to.equal(401);
    }));
}
