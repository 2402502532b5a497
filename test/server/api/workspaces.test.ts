import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import { fixture } from '../../support/fixtures.js';
import { ApiTestEnv, GPU_RESOURCE, KEY } from './support.js';

const CREATE = { name: 'dev', image: 'python', cpu: '1', memory: '2Gi', gpu: '1', storage: '10Gi', ssh_public_key: KEY };

describe('REST workspaces (SPEC 4.2)', () => {
  let env: ApiTestEnv;
  let alice: string;
  let bob: string;
  let carol: string;
  let aliceReader: string;

  beforeEach(async () => {
    env = await new ApiTestEnv().start();
    alice = await env.person('alice');
    bob = await env.person('bob');
    carol = await env.person('carol', { role: 'admin' });
    aliceReader = await env.signIn('alice', { scope: 'read' });
  });
  afterEach(() => env.close());

  describe('GET /workspaces', () => {
    it('lists only the caller\'s own namespace for a user', async () => {
      env.workspace('dev', 'svc-alice');
      env.workspace('other', 'svc-bob');
      const res = await env.request('GET', '/workspaces', { token: alice });
      expect(res.status).to.equal(200);
      expect(res.body.items.map((w: any) => `${w.metadata.namespace}/${w.metadata.name}`)).to.deep.equal(['svc-alice/dev']);
    });

    it('lists the whole cluster for an administrator, and narrows it with namespace', async () => {
      env.workspace('dev', 'svc-alice');
      env.workspace('other', 'svc-bob');
      const all = await env.request('GET', '/workspaces', { token: carol });
      expect(all.status).to.equal(200);
      expect(all.body.items.map((w: any) => w.metadata.name).sort()).to.deep.equal(['dev', 'other']);
      const narrowed = await env.request('GET', '/workspaces?namespace=svc-bob', { token: carol });
      expect(narrowed.body.items.map((w: any) => w.metadata.name)).to.deep.equal(['other']);
    });

    it('narrows a user\'s result to nothing when asked for another namespace', async () => {
      env.workspace('other', 'svc-bob');
      const res = await env.request('GET', '/workspaces?namespace=svc-bob', { token: alice });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ items: [] });
    });

    it('passes the cluster\'s 403 on when an administrator\'s identity may not list cluster-wide', async () => {
      const res = await env.request('GET', '/workspaces', { token: await env.signIn('alice', { role: 'admin' }) });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.equal('workspaces.den.dev is forbidden: User "system:serviceaccount:svc-alice:session" cannot list resource "workspaces" in API group "den.dev" at the cluster scope');
    });

    it('answers 400 for a malformed namespace or an unknown query parameter', async () => {
      expect((await env.request('GET', '/workspaces?namespace=Not_A_Namespace', { token: alice })).body.error).to.contain('namespace must be an RFC 1123 label');
      const res = await env.request('GET', '/workspaces?limit=3', { token: alice });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('unknown field limit');
    });

    it('answers 401 without authentication', async () => {
      expect((await env.request('GET', '/workspaces')).status).to.equal(401);
    });
  });

  describe('POST /workspaces', () => {
    it('creates the Workspace in the caller\'s namespace, sized request=limit, and answers 201 with the stored object', async () => {
      const res = await env.request('POST', '/workspaces', { token: alice, body: CREATE });
      expect(res.status).to.equal(201);
      const stored = env.api.object<any>(RESOURCES.workspace, 'dev', 'svc-alice');
      expect(stored.spec).to.deep.include({
        imageRef: { name: 'python' },
        resources: { requests: { cpu: '1', memory: '2Gi', [GPU_RESOURCE]: '1' }, limits: { cpu: '1', memory: '2Gi', [GPU_RESOURCE]: '1' } },
        storage: '10Gi',
        sshAuthorizedKeys: [KEY],
        running: true,
      });
      expect(res.body.metadata.uid).to.equal(stored.metadata.uid);
      // Returned as the cluster stored it, CRD defaults included.
      expect(res.body.spec.idleTimeout).to.equal('4h');
    });

    it('answers 400 naming the field and creates nothing for a bad body', async () => {
      const before = env.api.resourceVersion;
      for (const [body, message] of [
        [{ ...CREATE, cpu: 'lots' }, 'cpu must be a Kubernetes quantity'],
        [{ ...CREATE, replicas: 2 }, 'unknown field replicas'],
        [{ ...CREATE, storage: undefined }, 'storage is required'],
        [{ ...CREATE, name: 'Dev' }, 'name must be an RFC 1123 label'],
      ] as const) {
        const res = await env.request('POST', '/workspaces', { token: alice, body });
        expect(res.status, message).to.equal(400);
        expect(res.body.error).to.contain(message);
      }
      const raw = await env.request('POST', '/workspaces', { token: alice, raw: '{"name":' });
      expect(raw.status).to.equal(400);
      expect(env.api.resourceVersion).to.equal(before);
      expect(env.api.requests.filter((r) => r.method === 'POST' && r.path.includes('/workspaces'))).to.deep.equal([]);
    });

    it('creates the Workspace with spec.source.git from source, ref and path as given, for an https or an SSH address', async () => {
      for (const [name, url] of [['dev', 'https://git.example.com/team/api.git'], ['dev2', 'git@git.example.com:team/api.git']] as const) {
        const source = { git: { url, ref: 'v1.2.0', path: 'src/api' }, devcontainer: 'python' };
        expect([(await env.request('POST', '/workspaces', { token: alice, body: { ...CREATE, name, source } })).status, env.api.object<any>(RESOURCES.workspace, name, 'svc-alice')?.spec.source]).to.deep.equal([201, source]);
      }
    });

    it('answers 400 naming source\'s field and creates nothing for a repository Den cannot clone', async () => {
      const before = env.api.resourceVersion;
      for (const [source, message] of [
        [{ git: { url: 'ssh://git:pw@github.com/team/api.git' } }, 'source.git.url must not carry a password'],
        [{ git: { url: 'https://alice:tok@git.example.com/api.git' } }, 'source.git.url must not carry a user name or token'],
        [{ git: { url: 'ftp://git.example.com/api.git' } }, 'only https (or http) and SSH URLs can be cloned'],
        [{ git: { url: 'https://git.example.com/api.git', ref: 'a b' } }, 'source.git.ref "a b" must not contain spaces'],
        [{ git: { url: 'https://git.example.com/api.git', path: '../elsewhere' } }, 'source.git.path "../elsewhere" must name a folder inside the home'],
        [{ git: { url: 'https://git.example.com/api.git', path: '/etc' } }, 'source.git.path "/etc" must be relative to the home'],
        [{ git: {} }, 'source.git.url is required'],
        [{ git: { url: 'https://git.example.com/api.git' }, devcontainer: '../up.json' }, 'source.devcontainer "../up.json" must stay inside the repository'],
        [{ git: { url: 'https://git.example.com/api.git', branch: 'x' } }, 'unknown field source.git.branch'],
      ] as const) {
        const res = await env.request('POST', '/workspaces', { token: alice, body: { ...CREATE, source } });
        expect(res.status, message).to.equal(400);
        expect(res.body.error).to.contain(message);
      }
      expect(env.api.resourceVersion).to.equal(before);
    });

    it('answers 400 with the webhook\'s message when admission denies the workspace', async () => {
      const denied = fixture('webhook-denied.json');
      env.api.failNext('POST', /\/namespaces\/svc-alice\/workspaces$/, denied.status, denied.body);
      const res = await env.request('POST', '/workspaces', { token: alice, body: CREATE });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ error: denied.body.message });
    });

    it('answers 403 with the cluster\'s message when the quota is exhausted', async () => {
      const forbidden = fixture('forbidden-create-workspace-like.json').body;
      forbidden.message = 'workspaces.den.dev "dev" is forbidden: exceeded quota: svc-quota, requested: count/workspaces.den.dev=1, used: count/workspaces.den.dev=3, limited: count/workspaces.den.dev=3';
      env.api.failNext('POST', /\/namespaces\/svc-alice\/workspaces$/, 403, forbidden);
      const res = await env.request('POST', '/workspaces', { token: alice, body: CREATE });
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal({ error: forbidden.message });
    });

    it('answers 403 verbatim for a read-only token and creates nothing', async () => {
      const res = await env.request('POST', '/workspaces', { token: aliceReader, body: CREATE });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.equal('workspaces.den.dev is forbidden: User "system:serviceaccount:svc-alice:session-readonly" cannot create resource "workspaces" in API group "den.dev" in the namespace "svc-alice"');
      expect(env.api.objects(RESOURCES.workspace)).to.deep.equal([]);
    });

    it('answers 409 when a workspace of that name exists', async () => {
      env.workspace('dev', 'svc-alice');
      const res = await env.request('POST', '/workspaces', { token: alice, body: CREATE });
      expect(res.status).to.equal(409);
      expect(res.body.error).to.equal('workspaces.den.dev "dev" already exists');
    });
  });

  describe('GET /workspaces/{name}', () => {
    it('answers the workspace from the caller\'s namespace', async () => {
      env.workspace('dev', 'svc-alice');
      const res = await env.request('GET', '/workspaces/dev', { token: alice });
      expect(res.status).to.equal(200);
      expect(res.body.metadata).to.include({ name: 'dev', namespace: 'svc-alice' });
    });

    it('reaches another namespace with namespace= when the cluster allows it', async () => {
      env.workspace('dev', 'svc-alice');
      expect((await env.request('GET', '/workspaces/dev?namespace=svc-alice', { token: carol })).status).to.equal(200);
      const res = await env.request('GET', '/workspaces/dev?namespace=svc-alice', { token: bob });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.equal('workspaces.den.dev "dev" is forbidden: User "system:serviceaccount:svc-bob:session" cannot get resource "workspaces" in API group "den.dev" in the namespace "svc-alice"');
    });

    it('answers 404 when the workspace does not exist', async () => {
      const res = await env.request('GET', '/workspaces/nope', { token: alice });
      expect(res.status).to.equal(404);
      expect(res.body.error).to.equal('workspaces.den.dev "nope" not found');
    });

    it('answers 404 without asking the cluster for a name no object can have', async () => {
      const before = env.api.requests.length;
      const res = await env.request('GET', '/workspaces/Not..Valid', { token: alice });
      expect(res.status).to.equal(404);
      expect(env.api.requests.length).to.equal(before);
    });
  });

  describe('DELETE /workspaces/{name}', () => {
    beforeEach(() => {
      env.workspace('dev', 'svc-alice');
      env.homeClaim('dev', 'svc-alice');
    });

    it('deletes the workspace and its home PVC by default, with the caller\'s identity', async () => {
      const res = await env.request('DELETE', '/workspaces/dev', { token: alice });
      expect(res.status).to.equal(204);
      expect(env.api.object(RESOURCES.workspace, 'dev', 'svc-alice')).to.equal(undefined);
      expect(env.api.object(RESOURCES.persistentVolumeClaim, 'home-dev-0', 'svc-alice')).to.equal(undefined);
      const pvcDelete = env.api.requests.find((r) => r.method === 'DELETE' && r.path.endsWith('/persistentvolumeclaims/home-dev-0'));
      expect(pvcDelete?.user).to.equal('system:serviceaccount:svc-alice:session');
    });

    it('keeps the home PVC only for delete_volume=false exactly', async () => {
      const res = await env.request('DELETE', '/workspaces/dev?delete_volume=false', { token: alice });
      expect(res.status).to.equal(204);
      expect(env.api.object(RESOURCES.workspace, 'dev', 'svc-alice')).to.equal(undefined);
      expect(env.api.object(RESOURCES.persistentVolumeClaim, 'home-dev-0', 'svc-alice')).to.not.equal(undefined);
    });

    for (const value of ['FALSE', 'False', 'no', '0', 'true', '', ' false', 'false ']) {
      it(`deletes the home PVC for delete_volume=${JSON.stringify(value)}`, async () => {
        const res = await env.request('DELETE', `/workspaces/dev?delete_volume=${encodeURIComponent(value)}`, { token: alice });
        expect(res.status).to.equal(204);
        expect(env.api.object(RESOURCES.persistentVolumeClaim, 'home-dev-0', 'svc-alice')).to.equal(undefined);
      });
    }

    it('deletes the home PVC for a bare delete_volume without a value', async () => {
      expect((await env.request('DELETE', '/workspaces/dev?delete_volume', { token: alice })).status).to.equal(204);
      expect(env.api.object(RESOURCES.persistentVolumeClaim, 'home-dev-0', 'svc-alice')).to.equal(undefined);
    });

    it('answers 400 and deletes nothing when delete_volume is given twice', async () => {
      const res = await env.request('DELETE', '/workspaces/dev?delete_volume=false&delete_volume=true', { token: alice });
      expect(res).to.deep.include({ status: 400, body: { error: 'query parameter delete_volume is given 2 times; give it once' } });
      expect(env.api.object(RESOURCES.workspace, 'dev', 'svc-alice')).to.not.equal(undefined);
      expect(env.api.object(RESOURCES.persistentVolumeClaim, 'home-dev-0', 'svc-alice')).to.not.equal(undefined);
    });

    it('answers 204 when there is no home PVC to delete', async () => {
      env.api.remove(RESOURCES.persistentVolumeClaim, 'home-dev-0', 'svc-alice');
      expect((await env.request('DELETE', '/workspaces/dev', { token: alice })).status).to.equal(204);
    });

    it('answers 409 naming the PVC that is left when its deletion fails', async () => {
      env.api.failNext('DELETE', /persistentvolumeclaims\/home-dev-0$/, 500, { message: 'etcdserver: request timed out' });
      const res = await env.request('DELETE', '/workspaces/dev', { token: alice });
      expect(res.status).to.equal(409);
      expect(res.body.error).to.equal('workspace dev was deleted, but its home volume PersistentVolumeClaim home-dev-0 in namespace svc-alice is left: etcdserver: request timed out');
      expect(env.api.object(RESOURCES.workspace, 'dev', 'svc-alice')).to.equal(undefined);
      expect(env.api.object(RESOURCES.persistentVolumeClaim, 'home-dev-0', 'svc-alice')).to.not.equal(undefined);
    });

    it('deletes someone\'s workspace and home PVC for an administrator', async () => {
      expect((await env.request('DELETE', '/workspaces/dev?namespace=svc-alice', { token: carol })).status).to.equal(204);
      expect(env.api.object(RESOURCES.persistentVolumeClaim, 'home-dev-0', 'svc-alice')).to.equal(undefined);
    });

    it('answers 409 with the cluster\'s reason when RBAC lets the caller delete the workspace but not the PVC', async () => {
      const admin = env.api.object<any>(RESOURCES.clusterRole, 'den-admin');
      env.api.seed({ ...admin, rules: admin.rules.filter((r: any) => !(r.resources.includes('persistentvolumeclaims') && r.verbs.includes('delete'))) });
      const res = await env.request('DELETE', '/workspaces/dev?namespace=svc-alice', { token: carol });
      expect(res.status).to.equal(409);
      expect(res.body.error).to.contain('PersistentVolumeClaim home-dev-0 in namespace svc-alice is left');
      expect(res.body.error).to.contain('cannot delete resource "persistentvolumeclaims"');
    });

    it('answers 404 and deletes no PVC when the workspace does not exist', async () => {
      env.homeClaim('gone', 'svc-alice');
      const res = await env.request('DELETE', '/workspaces/gone', { token: alice });
      expect(res.status).to.equal(404);
      expect(env.api.object(RESOURCES.persistentVolumeClaim, 'home-gone-0', 'svc-alice')).to.not.equal(undefined);
    });

    it('answers 403 and deletes nothing for another user or a read-only token', async () => {
      // What was stored, object by object (the quota controller may count the namespace meanwhile).
      const stored = () => [RESOURCES.workspace, RESOURCES.persistentVolumeClaim].map((t) => env.api.objects(t, 'svc-alice').map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`));
      const before = stored();
      expect((await env.request('DELETE', '/workspaces/dev?namespace=svc-alice', { token: bob })).status).to.equal(403);
      expect((await env.request('DELETE', '/workspaces/dev', { token: aliceReader })).status).to.equal(403);
      expect(stored()).to.deep.equal(before);
      expect(before[0]).to.have.length.above(0);
    });
  });

  describe('POST /workspaces/{name}/start and /stop', () => {
    it('sets spec.running and answers the workspace', async () => {
      env.workspace('dev', 'svc-alice');
      const stopped = await env.request('POST', '/workspaces/dev/stop', { token: alice });
      expect(stopped.status).to.equal(200);
      expect(stopped.body.spec.running).to.equal(false);
      expect(env.api.object<any>(RESOURCES.workspace, 'dev', 'svc-alice').spec.running).to.equal(false);
      const started = await env.request('POST', '/workspaces/dev/start', { token: alice });
      expect(started.status).to.equal(200);
      expect(started.body.spec.running).to.equal(true);
      expect(env.api.object<any>(RESOURCES.workspace, 'dev', 'svc-alice').spec.running).to.equal(true);
    });

    it('answers 404 for a workspace that does not exist', async () => {
      const res = await env.request('POST', '/workspaces/nope/start', { token: alice });
      expect(res.status).to.equal(404);
      expect(res.body.error).to.equal('workspaces.den.dev "nope" not found');
    });

    it('answers 403 for a read-only token and changes nothing', async () => {
      env.workspace('dev', 'svc-alice', { running: false });
      const before = env.api.object(RESOURCES.workspace, 'dev', 'svc-alice');
      const res = await env.request('POST', '/workspaces/dev/start', { token: aliceReader });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.contain('cannot patch resource "workspaces"');
      expect(env.api.object(RESOURCES.workspace, 'dev', 'svc-alice')).to.deep.equal(before);
    });
  });

  describe('GET /workspaces/{name}/logs', () => {
    const LOG = Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

    it('answers the last 200 lines of the workspace pod by default', async () => {
      env.workspace('dev', 'svc-alice');
      env.pod('dev-0', 'svc-alice', 'dev', 'Running', LOG);
      const res = await env.request('GET', '/workspaces/dev/logs', { token: alice });
      expect(res.status).to.equal(200);
      expect(res.body.namespace).to.equal('svc-alice');
      expect(res.body.pod).to.equal('dev-0');
      const lines = res.body.lines.trimEnd().split('\n');
      expect(lines.length).to.equal(200);
      expect(lines[0]).to.equal('line 101');
      expect(lines[199]).to.equal('line 300');
    });

    it('honours tail and takes the pod from status.podName', async () => {
      env.workspace('dev', 'svc-alice', { podName: 'dev-custom' });
      env.pod('dev-custom', 'svc-alice', 'dev', 'Running', LOG);
      const res = await env.request('GET', '/workspaces/dev/logs?tail=2', { token: aliceReader });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ namespace: 'svc-alice', pod: 'dev-custom', lines: 'line 299\nline 300\n' });
    });

    for (const tail of ['0', '-1', 'abc', '1.5', '']) {
      it(`answers 400 for tail=${JSON.stringify(tail)}`, async () => {
        env.workspace('dev', 'svc-alice');
        env.pod('dev-0', 'svc-alice', 'dev');
        const res = await env.request('GET', `/workspaces/dev/logs?tail=${tail}`, { token: alice });
        expect(res.status).to.equal(400);
        expect(res.body.error).to.equal('tail must be an integer of at least 1');
      });
    }

    it('answers 409 when the workspace has no pod', async () => {
      env.workspace('dev', 'svc-alice', { running: false });
      const res = await env.request('GET', '/workspaces/dev/logs', { token: alice });
      expect(res.status).to.equal(409);
      expect(res.body.error).to.equal('workspace dev has no running pod, start it first');
    });

    it('answers 409 for a stopped workspace whose pod is still terminating, without reading its log', async () => {
      env.workspace('dev', 'svc-alice', { running: false });
      env.pod('dev-0', 'svc-alice', 'dev', 'Running', LOG);
      const res = await env.request('GET', '/workspaces/dev/logs', { token: alice });
      expect(res.status).to.equal(409);
      expect(res.body.error).to.equal('workspace dev has no running pod, start it first');
      expect(env.api.requests.some((r) => r.path.endsWith('/pods/dev-0/log'))).to.equal(false);
    });

    it('answers 409 for a pod being deleted, even of a running workspace', async () => {
      env.workspace('dev', 'svc-alice');
      const pod = env.pod('dev-0', 'svc-alice', 'dev', 'Running', LOG);
      env.api.seed({ ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date().toISOString() } });
      expect((await env.request('GET', '/workspaces/dev/logs', { token: alice })).status).to.equal(409);
    });

    it('answers 409 when the pod is not running yet', async () => {
      env.workspace('dev', 'svc-alice');
      env.pod('dev-0', 'svc-alice', 'dev', 'Pending');
      expect((await env.request('GET', '/workspaces/dev/logs', { token: alice })).status).to.equal(409);
    });

    it('answers 409 rather than reading a pod that does not carry the workspace label', async () => {
      env.workspace('dev', 'svc-alice', { podName: 'intruder' });
      env.pod('intruder', 'svc-alice', 'someone-else', 'Running', 'secret\n');
      const res = await env.request('GET', '/workspaces/dev/logs', { token: alice });
      expect(res.status).to.equal(409);
      expect(env.api.requests.some((r) => r.path.endsWith('/pods/intruder/log'))).to.equal(false);
    });

    it('answers 409 when the container stops between the pod check and the log read', async () => {
      env.workspace('dev', 'svc-alice');
      env.pod('dev-0', 'svc-alice', 'dev', 'Running', LOG);
      env.api.failNext('GET', /\/pods\/dev-0\/log/, 400, { reason: 'BadRequest', message: 'container "workspace" in pod "dev-0" is waiting to start: ContainerCreating' });
      const res = await env.request('GET', '/workspaces/dev/logs', { token: alice });
      expect(res.status).to.equal(409);
      expect(res.body.error).to.equal('workspace dev has no running pod, start it first');
    });

    it('answers 404 for a workspace that does not exist', async () => {
      expect((await env.request('GET', '/workspaces/nope/logs', { token: alice })).status).to.equal(404);
    });

    it('answers 403 for another user\'s workspace', async () => {
      env.workspace('dev', 'svc-alice');
      env.pod('dev-0', 'svc-alice', 'dev', 'Running', LOG);
      const res = await env.request('GET', '/workspaces/dev/logs?namespace=svc-alice', { token: bob });
      expect(res.status).to.equal(403);
    });
  });
});
