import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { ApiTestEnv } from './support.js';

function ownerRef(registry: KubeObject) {
  return [{ apiVersion: 'den.dev/v1alpha1', kind: 'ImageRegistry', name: registry.metadata!.name!, uid: registry.metadata!.uid!, controller: true, blockOwnerDeletion: true }];
}

describe('REST image registries (SPEC 4.3)', () => {
  let env: ApiTestEnv;
  let alice: string;
  let carol: string;

  beforeEach(async () => {
    env = await new ApiTestEnv().start();
    alice = await env.person('alice');
    carol = await env.person('carol', { role: 'admin' });
  });
  afterEach(() => env.close());

  describe('GET /image-registries', () => {
    it('lists the registries for an administrator', async () => {
      env.registry('ecr');
      const res = await env.request('GET', '/image-registries', { token: carol });
      expect(res.status).to.equal(200);
      expect(res.body.items.map((r: KubeObject) => r.metadata?.name)).to.deep.equal(['ecr']);
      expect((await env.request('GET', '/image-registries/ecr', { token: carol })).body.spec.cloud.region).to.equal('eu-west-1');
    });

    it('passes the cluster\'s answer on for a person without read rights on registries', async () => {
      env.registry('ecr');
      const res = await env.request('GET', '/image-registries', { token: alice });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.equal('imageregistries.den.dev is forbidden: User "system:serviceaccount:svc-alice:session" cannot list resource "imageregistries" in API group "den.dev" at the cluster scope');
    });

    it('answers 404 for a missing registry', async () => {
      const res = await env.request('GET', '/image-registries/nope', { token: carol });
      expect(res.status).to.equal(404);
      expect(res.body.error).to.equal('imageregistries.den.dev "nope" not found');
    });
  });

  describe('POST /image-registries', () => {
    it('creates the registry with every field in its place, the CRD filling the defaults', async () => {
      const res = await env.request('POST', '/image-registries', {
        token: carol,
        body: { name: 'ecr', region: 'eu-west-1', registry_id: '123456789012', include: ['^team/'], tag_mode: 'pattern', tag_patterns: ['^v'], image_pull_secret: 'ecr-pull' },
      });
      expect(res.status).to.equal(201);
      const spec = env.api.object<any>(RESOURCES.imageRegistry, 'ecr').spec;
      expect(spec.provider).to.equal('cloud-registry');
      expect(spec.cloud).to.deep.equal({ region: 'eu-west-1', registryId: '123456789012' });
      expect(spec.sync).to.deep.include({ intervalSeconds: 900, include: ['^team/'], prune: false });
      expect(spec.sync.tags).to.deep.equal({ mode: 'pattern', patterns: ['^v'], limit: 1 });
      expect(spec.imagePullSecretRef).to.deep.equal({ name: 'ecr-pull' });
    });

    it('checks the limits of SPEC 8 at the edge, naming the field, and creates nothing', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ interval_seconds: 30 }, 'interval_seconds must be at least 60'],
        [{ tag_limit: 0 }, 'tag_limit must be at least 1'],
        [{ region: 'x'.repeat(33) }, 'region must be at most 32 characters'],
        [{ registry_id: '1234567890123' }, 'registry_id must be at most 12 characters'],
        [{ role_arn: 'a'.repeat(2049) }, 'role_arn must be at most 2048 characters'],
        [{ exclude: ['(unclosed'] }, 'exclude[0] is not a valid RE2 pattern'],
      ];
      for (const [extra, message] of cases) {
        const res = await env.request('POST', '/image-registries', { token: carol, body: { name: 'ecr', region: 'eu-west-1', ...extra } });
        expect(res.status, message).to.equal(400);
        expect(res.body.error).to.contain(message);
      }
      expect(env.api.objects(RESOURCES.imageRegistry)).to.deep.equal([]);
    });

    it('answers 403 verbatim to a non-administrator and creates nothing', async () => {
      const res = await env.request('POST', '/image-registries', { token: alice, body: { name: 'ecr', region: 'eu-west-1' } });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.contain('cannot create resource "imageregistries"');
      expect(env.api.objects(RESOURCES.imageRegistry)).to.deep.equal([]);
    });
  });

  describe('PATCH /image-registries/{name}', () => {
    it('changes only the keys sent, nested ones included', async () => {
      env.api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'ImageRegistry', metadata: { name: 'ecr' }, spec: { provider: 'cloud-registry', cloud: { region: 'eu-west-1', roleArn: 'arn:aws:iam::1:role/r' }, sync: { intervalSeconds: 600, tags: { mode: 'pattern', patterns: ['^v'], limit: 2 } } } });
      const res = await env.request('PATCH', '/image-registries/ecr', { token: carol, body: { tag_limit: 5, prune: true } });
      expect(res.status).to.equal(200);
      const spec = env.api.object<any>(RESOURCES.imageRegistry, 'ecr').spec;
      expect(spec.cloud).to.deep.equal({ region: 'eu-west-1', roleArn: 'arn:aws:iam::1:role/r' });
      expect(spec.sync).to.deep.include({ intervalSeconds: 600, prune: true });
      expect(spec.sync.tags).to.deep.equal({ mode: 'pattern', patterns: ['^v'], limit: 5 });
    });

    it('removes role_arn sent empty', async () => {
      env.api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'ImageRegistry', metadata: { name: 'ecr' }, spec: { provider: 'cloud-registry', cloud: { region: 'eu-west-1', roleArn: 'arn:aws:iam::1:role/r' } } });
      expect((await env.request('PATCH', '/image-registries/ecr', { token: carol, body: { role_arn: '' } })).status).to.equal(200);
      expect(env.api.object<any>(RESOURCES.imageRegistry, 'ecr').spec.cloud).to.deep.equal({ region: 'eu-west-1' });
    });

    it('refuses create-only fields with 400', async () => {
      env.registry('ecr');
      for (const [body, message] of [
        [{ name: 'other' }, 'name is create-only and cannot be changed'],
        [{ provider: 'cloud-registry' }, 'provider is create-only and cannot be changed'],
      ] as const) {
        const res = await env.request('PATCH', '/image-registries/ecr', { token: carol, body });
        expect(res.status).to.equal(400);
        expect(res.body.error).to.equal(message);
      }
    });

    it('answers 403 to a non-administrator and 404 for a missing registry', async () => {
      env.registry('ecr');
      const before = env.api.resourceVersion;
      expect((await env.request('PATCH', '/image-registries/ecr', { token: alice, body: { prune: true } })).status).to.equal(403);
      expect(env.api.resourceVersion).to.equal(before);
      expect((await env.request('PATCH', '/image-registries/nope', { token: carol, body: { prune: true } })).status).to.equal(404);
    });
  });

  describe('DELETE /image-registries/{name}', () => {
    it('deletes the registry and every entry it synced, and no other entry', async () => {
      const ecr = env.registry('ecr');
      const other = env.registry('other');
      env.image('ecr-python', { labels: { 'den.dev/image-registry': 'ecr' }, ownerReferences: ownerRef(ecr) });
      env.image('ecr-go', { labels: { 'den.dev/image-registry': 'ecr' }, ownerReferences: ownerRef(ecr) });
      env.image('other-rust', { labels: { 'den.dev/image-registry': 'other' }, ownerReferences: ownerRef(other) });
      env.image('hand-made', { labels: { 'den.dev/image-registry': 'ecr' } });
      const res = await env.request('DELETE', '/image-registries/ecr', { token: carol });
      expect(res.status).to.equal(204);
      expect(env.api.object(RESOURCES.imageRegistry, 'ecr')).to.equal(undefined);
      expect(env.api.objects(RESOURCES.workspaceImage).map((i) => i.metadata?.name).sort()).to.deep.equal(['hand-made', 'other-rust']);
    });

    it('deletes the synced entries itself when the garbage collector has not yet', async () => {
      const ecr = env.registry('ecr');
      env.image('ecr-python', { labels: { 'den.dev/image-registry': 'ecr' }, ownerReferences: ownerRef(ecr) });
      // The API server accepts the deletion; its garbage collector has not run yet.
      env.api.failNext('DELETE', /\/imageregistries\/ecr$/, 200, { status: 'Success', message: 'deleted' });
      expect((await env.request('DELETE', '/image-registries/ecr', { token: carol })).status).to.equal(204);
      expect(env.api.object(RESOURCES.workspaceImage, 'ecr-python')).to.equal(undefined);
      const deletes = env.api.requests.filter((r) => r.method === 'DELETE' && r.path.endsWith('/workspaceimages/ecr-python'));
      expect(deletes.map((r) => r.user)).to.deep.equal(['system:serviceaccount:svc-carol:session']);
    });

    it('answers 403 to a non-administrator and deletes nothing', async () => {
      const ecr = env.registry('ecr');
      env.image('ecr-python', { labels: { 'den.dev/image-registry': 'ecr' }, ownerReferences: ownerRef(ecr) });
      const before = env.api.resourceVersion;
      const res = await env.request('DELETE', '/image-registries/ecr', { token: alice });
      expect(res.status).to.equal(403);
      expect(env.api.resourceVersion).to.equal(before);
    });

    it('answers 404 for a missing registry', async () => {
      expect((await env.request('DELETE', '/image-registries/nope', { token: carol })).status).to.equal(404);
    });
  });

  describe('POST /image-registries/{name}/force-sync', () => {
    it('bumps the force-sync annotation to a new value each time and answers 202 without a body', async () => {
      env.registry('ecr');
      const first = await env.request('POST', '/image-registries/ecr/force-sync', { token: carol });
      expect(first.status).to.equal(202);
      expect(first.body).to.equal('');
      const one = env.api.object<any>(RESOURCES.imageRegistry, 'ecr').metadata.annotations['den.dev/force-sync'];
      expect(one).to.match(/^\d{4}-\d\d-\d\dT.+Z-[0-9a-f]{8}$/);
      expect((await env.request('POST', '/image-registries/ecr/force-sync', { token: carol })).status).to.equal(202);
      expect(env.api.object<any>(RESOURCES.imageRegistry, 'ecr').metadata.annotations['den.dev/force-sync']).to.not.equal(one);
    });

    it('answers 403 to a non-administrator and 404 for a missing registry', async () => {
      env.registry('ecr');
      const before = env.api.resourceVersion;
      const res = await env.request('POST', '/image-registries/ecr/force-sync', { token: alice });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.contain('cannot patch resource "imageregistries"');
      expect(env.api.resourceVersion).to.equal(before);
      expect((await env.request('POST', '/image-registries/nope/force-sync', { token: carol })).status).to.equal(404);
    });
  });
});
