import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { ApiTestEnv } from './support.js';

const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

describe('REST catalog (SPEC 4.3)', () => {
  let env: ApiTestEnv;
  let alice: string;
  let carol: string;

  beforeEach(async () => {
    env = await new ApiTestEnv().start();
    alice = await env.person('alice');
    carol = await env.person('carol', { role: 'admin' });
  });
  afterEach(() => env.close());

  /** Narrows dave's `use` to some entries, as an administrator could with RBAC alone. */
  async function restrictedPerson(usable: string[]): Promise<string> {
    env.provision('dave', 'dave@example.com');
    const role = env.api.object<any>(RESOURCES.clusterRole, 'svc-userspace-dave');
    role.rules = [
      ...role.rules.map((r: any) => (r.resources.includes('workspaceimages') ? { ...r, verbs: r.verbs.filter((v: string) => v !== 'use') } : r)),
      { apiGroups: ['den.dev'], resources: ['workspaceimages'], verbs: ['use'], resourceNames: usable },
    ];
    env.api.seed(role);
    return env.signIn('dave');
  }

  describe('GET /workspace-images', () => {
    it('lists every entry, deprecated ones included, when the caller may use them all, with one access review', async () => {
      env.image('python');
      env.image('go');
      env.api.seed({ ...env.image('old'), spec: { displayName: 'old', image: 'old:1', deprecated: true } });
      const res = await env.request('GET', '/workspace-images', { token: alice });
      expect(res.status).to.equal(200);
      expect(res.body.items.map((i: KubeObject) => i.metadata?.name)).to.deep.equal(['go', 'old', 'python']);
      expect(env.api.requests.filter((r) => r.path === SSAR)).to.have.length(1);
    });

    it('lists only the entries the caller may use, each reviewed with the caller\'s own identity', async () => {
      for (const name of ['python', 'go', 'rust', 'java']) env.image(name);
      const dave = await restrictedPerson(['python', 'rust']);
      const res = await env.request('GET', '/workspace-images', { token: dave });
      expect(res.status).to.equal(200);
      expect(res.body.items.map((i: KubeObject) => i.metadata?.name)).to.deep.equal(['python', 'rust']);
      const reviews = env.api.requests.filter((r) => r.path === SSAR);
      expect(reviews).to.have.length(5);
      expect(new Set(reviews.map((r) => r.user))).to.deep.equal(new Set(['system:serviceaccount:svc-dave:session']));
    });

    it('filters a catalog of hundreds of entries, keeping the cluster\'s order', async () => {
      const names = Array.from({ length: 300 }, (_, i) => `image-${String(i).padStart(3, '0')}`);
      for (const name of names) env.image(name);
      const usable = names.filter((_, i) => i % 7 === 0);
      const dave = await restrictedPerson(usable);
      const res = await env.request('GET', '/workspace-images', { token: dave });
      expect(res.status).to.equal(200);
      expect(res.body.items.map((i: KubeObject) => i.metadata?.name)).to.deep.equal(usable);
    });

    it('lists nothing when the caller may use nothing', async () => {
      env.image('python');
      // An empty resourceNames would mean every name to RBAC, so name one that does not exist.
      const dave = await restrictedPerson(['not-in-the-catalog']);
      expect((await env.request('GET', '/workspace-images', { token: dave })).body).to.deep.equal({ items: [] });
    });

    it('answers 502 when an access review fails, rather than guessing', async () => {
      env.image('python');
      env.api.failNext('POST', /selfsubjectaccessreviews/, 500, { message: 'etcdserver: leader changed' });
      const res = await env.request('GET', '/workspace-images', { token: alice });
      expect(res.status).to.equal(502);
      expect(res.body.error).to.contain('etcdserver: leader changed');
    });

    it('answers 401 without authentication', async () => {
      expect((await env.request('GET', '/workspace-images')).status).to.equal(401);
    });
  });

  describe('POST /workspace-images', () => {
    it('creates the entry for an administrator and answers 201', async () => {
      const res = await env.request('POST', '/workspace-images', { token: carol, body: { name: 'python', image: 'python:3.12', display_name: 'Python 3.12', description: 'CPython', icon: 'https://example.com/py.svg', tags: ['py'], deprecated: false } });
      expect(res.status).to.equal(201);
      expect(env.api.object<any>(RESOURCES.workspaceImage, 'python').spec).to.deep.include({ displayName: 'Python 3.12', description: 'CPython', icon: 'https://example.com/py.svg', tags: ['py'], deprecated: false, image: 'python:3.12' });
      expect(res.body.spec.shell).to.equal('/bin/bash');
    });

    it('stores declared apps (spec.apps) and refuses broken ones with 400 naming the field, storing nothing', async () => {
      const apps = [{ name: 'Notebook', port: 8888, path: '/lab' }];
      const res = await env.request('POST', '/workspace-images', { token: carol, body: { name: 'jupyter', image: 'jupyter/base:1', apps } });
      expect(res.status).to.equal(201);
      expect(env.api.object<any>(RESOURCES.workspaceImage, 'jupyter').spec.apps).to.deep.equal(apps);
      const bad = await env.request('POST', '/workspace-images', { token: carol, body: { name: 'broken', image: 'x:1', apps: [{ name: 'A', port: 70000 }] } });
      expect(bad.status).to.equal(400);
      expect(bad.body.error).to.equal('apps[0].port must be a whole number from 1 to 65535');
      expect(env.api.object(RESOURCES.workspaceImage, 'broken')).to.equal(undefined);
      env.api.remove(RESOURCES.workspaceImage, 'jupyter');
    });

    it('answers 403 verbatim for a non-administrator and creates nothing', async () => {
      const res = await env.request('POST', '/workspace-images', { token: alice, body: { name: 'python', image: 'python:3.12' } });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.equal('workspaceimages.den.dev is forbidden: User "system:serviceaccount:svc-alice:session" cannot create resource "workspaceimages" in API group "den.dev" at the cluster scope');
      expect(env.api.objects(RESOURCES.workspaceImage)).to.deep.equal([]);
    });

    it('answers 400 naming the field', async () => {
      const res = await env.request('POST', '/workspace-images', { token: carol, body: { name: 'python', image: 'python:3.12', shell: '/bin/zsh' } });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('unknown field shell');
    });

    it('answers 409 when the entry exists', async () => {
      env.image('python');
      expect((await env.request('POST', '/workspace-images', { token: carol, body: { name: 'python', image: 'python:3.12' } })).status).to.equal(409);
    });
  });

  describe('GET, PATCH and DELETE /workspace-images/{name}', () => {
    it('answers one entry, or 404', async () => {
      env.image('python');
      expect((await env.request('GET', '/workspace-images/python', { token: alice })).body.spec.image).to.equal('registry.example.com/python:1');
      const res = await env.request('GET', '/workspace-images/nope', { token: alice });
      expect(res.status).to.equal(404);
      expect(res.body.error).to.equal('workspaceimages.den.dev "nope" not found');
    });

    it('changes only the keys sent', async () => {
      env.api.seed({ ...env.image('python'), spec: { displayName: 'Python', description: 'CPython', image: 'python:3.11', tags: ['py'] } });
      const res = await env.request('PATCH', '/workspace-images/python', { token: carol, body: { image: 'python:3.12', deprecated: true } });
      expect(res.status).to.equal(200);
      expect(env.api.object<any>(RESOURCES.workspaceImage, 'python').spec).to.deep.include({ displayName: 'Python', description: 'CPython', image: 'python:3.12', tags: ['py'], deprecated: true });
    });

    it('refuses a name change with 400 and changes nothing', async () => {
      env.image('python');
      const before = env.api.resourceVersion;
      const res = await env.request('PATCH', '/workspace-images/python', { token: carol, body: { name: 'snake' } });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('name is create-only and cannot be changed');
      expect(env.api.resourceVersion).to.equal(before);
    });

    it('answers 403 to a non-administrator\'s PATCH and DELETE and changes nothing', async () => {
      env.image('python');
      const before = env.api.resourceVersion;
      expect((await env.request('PATCH', '/workspace-images/python', { token: alice, body: { deprecated: true } })).status).to.equal(403);
      expect((await env.request('DELETE', '/workspace-images/python', { token: alice })).status).to.equal(403);
      expect(env.api.resourceVersion).to.equal(before);
    });

    it('answers 404 to PATCH and DELETE of a missing entry', async () => {
      expect((await env.request('PATCH', '/workspace-images/nope', { token: carol, body: { deprecated: true } })).status).to.equal(404);
      expect((await env.request('DELETE', '/workspace-images/nope', { token: carol })).status).to.equal(404);
    });

    it('deletes the entry with 204', async () => {
      env.image('python');
      const res = await env.request('DELETE', '/workspace-images/python', { token: carol });
      expect(res.status).to.equal(204);
      expect(env.api.object(RESOURCES.workspaceImage, 'python')).to.equal(undefined);
    });
  });
});
