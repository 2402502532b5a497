import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { DEFAULT_QUOTA } from '../../../server/api/userspaces.js';
import { ApiTestEnv, GPU_RESOURCE } from './support.js';

describe('REST administration of UserSpaces and quota (SPEC 4.6)', () => {
  let env: ApiTestEnv;
  let alice: string;
  let carol: string;
  let carolReader: string;

  beforeEach(async () => {
    env = await new ApiTestEnv().start();
    alice = await env.person('alice');
    carol = await env.person('carol', { role: 'admin' });
    carolReader = await env.signIn('carol', { role: 'admin', scope: 'read' });
  });
  afterEach(() => env.close());

  function userSpace(name: string): any {
    return env.api.object(RESOURCES.userSpace, name);
  }

  describe('GET /admin/userspaces', () => {
    it('lists every UserSpace as the cluster holds it, role in its label and quota in its spec', async () => {
      const res = await env.request('GET', '/admin/userspaces', { token: carol });
      expect(res.status).to.equal(200);
      expect(res.body.items.map((u: KubeObject) => [u.metadata?.name, u.metadata?.labels?.['den.dev/role']])).to.deep.equal([['alice', 'user'], ['carol', 'admin']]);
      expect(res.body.items[0].spec.quota).to.deep.equal({ cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 1, workspaces: 3 });
    });

    it('answers 403 verbatim to a non-administrator and to an administrator\'s read-only token', async () => {
      const res = await env.request('GET', '/admin/userspaces', { token: alice });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.equal('userspaces.den.dev is forbidden: User "system:serviceaccount:svc-alice:session" cannot list resource "userspaces" in API group "den.dev" at the cluster scope');
      expect((await env.request('GET', '/admin/userspaces', { token: carolReader })).status).to.equal(403);
    });
  });

  describe('POST /admin/userspaces', () => {
    it('creates a UserSpace with the role label and the default quota', async () => {
      const res = await env.request('POST', '/admin/userspaces', { token: carol, body: { name: 'bob', owner: 'bob@example.com', role: 'admin' } });
      expect(res.status).to.equal(201);
      expect(res.body.metadata.labels).to.deep.equal({ 'den.dev/role': 'admin' });
      expect(userSpace('bob').spec).to.deep.equal({ owner: 'bob@example.com', quota: { ...DEFAULT_QUOTA }, networkPolicy: 'Isolated' });
    });

    it('makes a user when no role is given', async () => {
      await env.request('POST', '/admin/userspaces', { token: carol, body: { name: 'bob', owner: 'bob' } });
      expect(userSpace('bob').metadata.labels).to.deep.equal({ 'den.dev/role': 'user' });
    });

    it('answers 400 naming the field and creates nothing', async () => {
      for (const [body, message] of [
        [{ name: 'bob' }, 'owner is required'],
        [{ name: 'Bob', owner: 'bob' }, 'name must be an RFC 1123 label'],
        [{ name: 'bob', owner: 'bob', role: 'owner' }, 'role must be one of user, admin'],
        [{ name: 'bob', owner: 'bob', quota: {} }, 'unknown field quota'],
        [{ name: 'system', owner: 'bob' }, 'name "system" is reserved'],
      ] as const) {
        const res = await env.request('POST', '/admin/userspaces', { token: carol, body });
        expect(res.status, message).to.equal(400);
        expect(res.body.error).to.contain(message);
      }
      expect(env.api.objects(RESOURCES.userSpace)).to.have.length(2);
    });

    it('answers 403 to a non-administrator and creates nothing', async () => {
      const res = await env.request('POST', '/admin/userspaces', { token: alice, body: { name: 'bob', owner: 'bob' } });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.contain('cannot create resource "userspaces"');
      expect(userSpace('bob')).to.equal(undefined);
    });

    it('answers 409 when the UserSpace exists', async () => {
      expect((await env.request('POST', '/admin/userspaces', { token: carol, body: { name: 'alice', owner: 'alice@example.com' } })).status).to.equal(409);
    });
  });

  describe('PATCH /admin/userspaces/{name}', () => {
    it('disables a person and answers the membership', async () => {
      const res = await env.request('PATCH', '/admin/userspaces/alice', { token: carol, body: { disabled: true } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ name: 'alice', role: 'user', disabled: true });
      expect(userSpace('alice').metadata.labels).to.deep.equal({ 'den.dev/role': 'user', 'den.dev/disabled': 'true' });
    });

    it('keeps a disabled person disabled when only the role is sent (SPEC 2.8)', async () => {
      await env.request('PATCH', '/admin/userspaces/alice', { token: carol, body: { disabled: true } });
      const res = await env.request('PATCH', '/admin/userspaces/alice', { token: carol, body: { role: 'admin' } });
      expect(res.body).to.deep.equal({ name: 'alice', role: 'admin', disabled: true });
    });

    it('re-enables a person by removing the label', async () => {
      await env.request('PATCH', '/admin/userspaces/alice', { token: carol, body: { disabled: true } });
      const res = await env.request('PATCH', '/admin/userspaces/alice', { token: carol, body: { disabled: false } });
      expect(res.body).to.deep.equal({ name: 'alice', role: 'user', disabled: false });
      expect(userSpace('alice').metadata.labels).to.deep.equal({ 'den.dev/role': 'user' });
    });

    it('answers 400 for a wrong type or an unknown field, and changes nothing', async () => {
      const before = env.api.resourceVersion;
      expect((await env.request('PATCH', '/admin/userspaces/alice', { token: carol, body: { disabled: 'yes' } })).body.error).to.equal('disabled must be true or false');
      expect((await env.request('PATCH', '/admin/userspaces/alice', { token: carol, body: { owner: 'mallory' } })).body.error).to.equal('unknown field owner');
      expect(env.api.resourceVersion).to.equal(before);
    });

    it('answers 403 to a non-administrator on someone else\'s UserSpace, and 404 for a missing one', async () => {
      const before = env.api.resourceVersion;
      const res = await env.request('PATCH', '/admin/userspaces/carol', { token: alice, body: { disabled: true } });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.contain('cannot patch resource "userspaces"');
      expect(env.api.resourceVersion).to.equal(before);
      expect((await env.request('PATCH', '/admin/userspaces/nobody', { token: carol, body: { role: 'admin' } })).status).to.equal(404);
    });

    it('refuses a person making themselves an administrator: the validator answers, 400 with its message', async () => {
      const before = env.api.resourceVersion;
      const res = await env.request('PATCH', '/admin/userspaces/alice', { token: alice, body: { role: 'admin' } });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.match(/^admission webhook "vuserspace.den.dev" denied the request: .*den\.dev\/role/);
      expect(env.api.resourceVersion).to.equal(before);
      expect(userSpace('alice').metadata.labels['den.dev/role']).to.equal('user');
    });
  });

  describe('DELETE /admin/userspaces/{name}', () => {
    it('deletes the UserSpace object with 204', async () => {
      expect((await env.request('DELETE', '/admin/userspaces/alice', { token: carol })).status).to.equal(204);
      expect(userSpace('alice')).to.equal(undefined);
    });

    it('answers 403 to a non-administrator and 404 for a missing one', async () => {
      expect((await env.request('DELETE', '/admin/userspaces/carol', { token: alice })).status).to.equal(403);
      expect(userSpace('carol')).to.not.equal(undefined);
      expect((await env.request('DELETE', '/admin/userspaces/nobody', { token: carol })).status).to.equal(404);
    });
  });

  describe('GET /admin/quota', () => {
    it('answers every UserSpace with its usage beside its quota, read from the namespace\'s ResourceQuota', async () => {
      // What the namespace holds; the API server's quota controller sums it into status.used.
      const namespace = 'svc-alice';
      env.api.seed(
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'w1-0', namespace }, spec: { containers: [{ name: 'dev', image: 'python', resources: { requests: { cpu: '1500m', memory: '3Gi', [GPU_RESOURCE]: '1' } } }] }, status: { phase: 'Running' } },
        { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'home-w1-0', namespace }, spec: { resources: { requests: { storage: '20Gi' } } } },
        ...['w1', 'w2'].map((name) => ({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name, namespace }, spec: { imageRef: { name: 'python' }, storage: '10Gi' } })),
      );
      env.api.remove(RESOURCES.resourceQuota, 'svc-quota', 'svc-carol');
      const res = await env.request('GET', '/admin/quota', { token: carol });
      expect(res.status).to.equal(200);
      const [alice, carolItem] = res.body.items;
      expect(alice.metadata.name).to.equal('alice');
      expect(alice.spec.quota).to.deep.equal({ cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 1, workspaces: 3 });
      expect(alice.usage).to.deep.equal({ cpu: '1500m', memory: '3Gi', storage: '20Gi', gpu: 1, workspaces: 2 });
      expect(carolItem.usage).to.equal(null);
    });

    it('answers 403 to a non-administrator', async () => {
      expect((await env.request('GET', '/admin/quota', { token: alice })).status).to.equal(403);
    });
  });

  describe('PATCH /admin/quota/{name}', () => {
    it('changes only the keys sent and answers the whole quota', async () => {
      const res = await env.request('PATCH', '/admin/quota/alice', { token: carol, body: { cpu: '8', workspaces: 5 } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ cpu: '8', memory: '8Gi', storage: '50Gi', gpu: 1, workspaces: 5 });
      expect(userSpace('alice').spec.quota).to.deep.equal({ cpu: '8', memory: '8Gi', storage: '50Gi', gpu: 1, workspaces: 5 });
    });

    it('answers 400 naming the field and changes nothing', async () => {
      const before = env.api.resourceVersion;
      for (const [body, message] of [
        [{ cpu: 8 }, 'cpu must be a string'],
        [{ memory: 'eight' }, 'memory must be a Kubernetes quantity'],
        [{ workspaces: -1 }, 'workspaces must be at least 0'],
        [{ gpu: 0.5 }, 'gpu must be an integer'],
        [{ disks: 2 }, 'unknown field disks'],
      ] as const) {
        const res = await env.request('PATCH', '/admin/quota/alice', { token: carol, body });
        expect(res.status, message).to.equal(400);
        expect(res.body.error).to.contain(message);
      }
      expect(env.api.resourceVersion).to.equal(before);
    });

    it('answers 403 to a non-administrator changing someone else\'s quota, and 404 for a missing UserSpace', async () => {
      const before = env.api.resourceVersion;
      const res = await env.request('PATCH', '/admin/quota/carol', { token: alice, body: { cpu: '64' } });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.equal('userspaces.den.dev "carol" is forbidden: User "system:serviceaccount:svc-alice:session" cannot patch resource "userspaces" in API group "den.dev" at the cluster scope');
      expect(env.api.resourceVersion).to.equal(before);
      expect((await env.request('PATCH', '/admin/quota/nobody', { token: carol, body: { cpu: '1' } })).status).to.equal(404);
    });

    it('answers 400 with the validator\'s message to a person raising their own quota (RBAC lets them patch their UserSpace for SSH keys)', async () => {
      const before = env.api.resourceVersion;
      const res = await env.request('PATCH', '/admin/quota/alice', { token: alice, body: { cpu: '64' } });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.match(/^admission webhook "vuserspace.den.dev" denied the request: .*spec.quota.cpu/);
      expect(env.api.resourceVersion).to.equal(before);
    });
  });
});
