import { expect } from 'chai';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { denCrds } from '../../contract/index.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from './fake-apiserver.js';
import { fixture } from './fixtures.js';
import { selfSigned } from './self-signed.js';

describe('the fake API server', () => {
  let api: FakeApiServer;
  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-demo' } });
  });
  afterEach(() => api.close());

  it('grants through a RoleBinding to a Role and denies outside it', async () => {
    api.addUser('alice', { username: 'alice@example.com' });
    api.seed(
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r', namespace: 'svc-demo' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] } as any,
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'b', namespace: 'svc-demo' }, subjects: [{ kind: 'User', name: 'alice@example.com', apiGroup: 'rbac.authorization.k8s.io' }], roleRef: { kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.k8s.io' } } as any,
    );
    const alice = api.client('alice');
    expect((await alice.list(RESOURCES.configMap, { namespace: 'svc-demo' })).items).to.deep.equal([]);
    const err = await alice.create(RESOURCES.configMap, { metadata: { name: 'x' } }, 'svc-demo').catch((e) => e);
    expect(err.body).to.deep.equal(fixture('forbidden-create-workspace-like.json').body);
  });

  describe('RBAC escalation check on Roles and bindings', () => {
    const RBAC = 'rbac.authorization.k8s.io';
    const role = { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'svc-workspace-user', namespace: 'svc-demo' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] } as any;
    const binding = { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'svc-owner', namespace: 'svc-demo' }, subjects: [{ kind: 'User', name: 'bob@example.com', apiGroup: RBAC }], roleRef: { kind: 'Role', name: 'svc-workspace-user', apiGroup: RBAC } } as any;
    /** carol may write Roles and bindings in svc-demo and, with `extra`, more. */
    function carol(...extra: object[]) {
      api.addUser('carol', { username: 'carol@example.com' });
      api.seed(
        { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'carol' }, rules: [{ apiGroups: [RBAC], resources: ['roles', 'rolebindings', 'clusterrolebindings'], verbs: ['create', 'patch'] }, ...extra] } as any,
        { apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'carol' }, subjects: [{ kind: 'User', name: 'carol@example.com' }], roleRef: { kind: 'ClusterRole', name: 'carol' } } as any,
      );
      return api.client('carol');
    }

    it('refuses a RoleBinding whose Role does not exist yet, as kube-apiserver does, and stores nothing', async () => {
      const err = await carol({ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }).create(RESOURCES.roleBinding, binding, 'svc-demo').catch((e) => e);
      expect(err.status).to.equal(404);
      expect(err.message).to.equal('roles.rbac.authorization.k8s.io "svc-workspace-user" not found');
      expect(api.objects(RESOURCES.roleBinding, 'svc-demo')).to.deep.equal([]);
    });

    it('accepts the same RoleBinding once the Role exists and its author holds every rule of it', async () => {
      const client = carol({ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] });
      await client.create(RESOURCES.role, role, 'svc-demo');
      await client.create(RESOURCES.roleBinding, binding, 'svc-demo');
      expect(api.object(RESOURCES.roleBinding, 'svc-owner', 'svc-demo')).to.not.equal(undefined);
    });

    it('refuses a Role or binding that grants what its author does not hold', async () => {
      const client = carol();
      const roleErr = await client.create(RESOURCES.role, role, 'svc-demo').catch((e) => e);
      expect(roleErr.status).to.equal(403);
      expect(roleErr.message).to.match(/^roles\.rbac\.authorization\.k8s\.io "svc-workspace-user" is forbidden: user "carol@example\.com" .* is attempting to grant RBAC permissions not currently held/);
      api.seed(role);
      const bindErr = await client.create(RESOURCES.roleBinding, binding, 'svc-demo').catch((e) => e);
      expect(bindErr.status).to.equal(403);
    });

    it('lets an author with bind on the ClusterRole bind it without holding it, and no other', async () => {
      const client = carol({ apiGroups: [RBAC], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['edit'] });
      const to = (name: string) => ({ ...binding, metadata: { name, namespace: 'svc-demo' }, roleRef: { kind: 'ClusterRole', name, apiGroup: RBAC } });
      await client.create(RESOURCES.roleBinding, to('edit'), 'svc-demo');
      const err = await client.create(RESOURCES.roleBinding, to('admin'), 'svc-demo').catch((e) => e);
      expect(err.message).to.equal('clusterroles.rbac.authorization.k8s.io "admin" not found');
    });

    it('refuses a namespaced object in a namespace that does not exist', async () => {
      const err = await api.client().create(RESOURCES.configMap, { metadata: { name: 'x' } }, 'svc-missing').catch((e) => e);
      expect(err.status).to.equal(404);
      expect(err.message).to.equal('namespaces "svc-missing" not found');
    });
  });

  it('refuses, as kube-apiserver does, a label value it cannot hold and a Service name that starts with a digit', async () => {
    const admin = api.client();
    const bad = await admin.create(RESOURCES.configMap, { metadata: { name: 'x', labels: { 'den.dev/owner': 'alice@example.com' } } }, 'svc-demo').catch((e) => e);
    expect(bad.status).to.equal(422);
    expect(bad.message).to.match(/^ConfigMap "x" is invalid: metadata\.labels: Invalid value: "alice@example\.com": a valid label must be an empty string/);
    const service = await admin.create(RESOURCES.service, { metadata: { name: '1dev' }, spec: { ports: [{ port: 22 }] } }, 'svc-demo').catch((e) => e);
    expect(service.status).to.equal(422);
    expect(service.message).to.match(/^Service "1dev" is invalid: metadata\.name: Invalid value: "1dev": a DNS-1035 label must consist of/);
    await admin.create(RESOURCES.configMap, { metadata: { name: 'y', labels: { 'den.dev/workspace': 'dev' } } }, 'svc-demo');
    const relabel = await admin.patch(RESOURCES.configMap, 'y', { metadata: { labels: { 'den.dev/workspace': `${'w'.repeat(64)}` } } }, { namespace: 'svc-demo' }).catch((e) => e);
    expect(relabel.status).to.equal(422);
    expect(api.objects(RESOURCES.configMap, 'svc-demo').map((o) => o.metadata?.name)).to.deep.equal(['y']);
  });

  it('answers SelfSubjectAccessReviews in the recorded shape', async () => {
    api.addUser('alice', { username: 'alice@example.com' });
    const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'use', group: 'den.dev', resource: 'workspaceimages', name: 'python' } } };
    const denied = await api.client('alice').request<any>({ method: 'POST', path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', body: review });
    expect(denied.status).to.deep.equal(fixture('ssar-denied.json').body.status);
    api.seed(
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'use-images' }, rules: [{ apiGroups: ['den.dev'], resources: ['workspaceimages'], verbs: ['use'] }] } as any,
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'use-images' }, subjects: [{ kind: 'User', name: 'alice@example.com' }], roleRef: { kind: 'ClusterRole', name: 'use-images' } } as any,
    );
    const allowed = await api.client('alice').request<any>({ method: 'POST', path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', body: review });
    expect(allowed.status.allowed).to.equal(true);
  });

  it('applies CRD defaults and refuses values outside the schema with the API server message', async () => {
    api.installCrds(denCrds().map((crd) => ({ ...crd })));
    const admin = api.client();
    const ws = await admin.create<any>(RESOURCES.workspace, { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'f2' }, spec: { imageRef: { name: 'python' }, storage: '1Gi' } }, 'svc-demo');
    expect(ws.spec.running).to.equal(true);
    expect(ws.spec.idleTimeout).to.equal('4h');
    const err = await admin.create(RESOURCES.workspace, { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'f1' }, spec: { imageRef: { name: '' } } }, 'svc-demo').catch((e) => e);
    expect(err.status).to.equal(422);
    expect(err.message).to.equal('Workspace.den.dev "f1" is invalid: spec.imageRef.name: Invalid value: "": spec.imageRef.name in body should be at least 1 chars long');
  });

  it('calls a validating webhook over HTTPS and reports its denial like the API server', async () => {
    const { cert, key, ca } = selfSigned();
    const hook = https.createServer({ cert, key }, (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const review = JSON.parse(body);
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: false, status: { code: 422, reason: 'Invalid', message: 'spec.sshAuthorizedKeys[0]: not a valid SSH public key' } } }));
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const port = (hook.address() as AddressInfo).port;
    api.seed({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'den-webhooks' },
      webhooks: [{ name: 'vworkspace.den.dev', clientConfig: { url: `https://127.0.0.1:${port}/deny`, caBundle: Buffer.from(ca).toString('base64') }, rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }], failurePolicy: 'Fail', sideEffects: 'None', admissionReviewVersions: ['v1'] }],
    } as any);
    const err = await api.client().create(RESOURCES.configMap, { metadata: { name: 'd1' } }, 'svc-demo').catch((e) => e);
    hook.close();
    const recorded = fixture('webhook-denied.json').body;
    expect(err.status).to.equal(recorded.code);
    expect(err.body).to.deep.include({ message: recorded.message, reason: recorded.reason, code: recorded.code });
    const unreachable = await api.client().create(RESOURCES.configMap, { metadata: { name: 'd2' } }, 'svc-demo').catch((e) => e);
    expect(unreachable.status).to.equal(500);
    expect(unreachable.message).to.match(/^Internal error occurred: failed calling webhook "vworkspace.den.dev": failed to call webhook: Post "https:\/\/127.0.0.1:\d+\/deny\?timeout=10s": /);
  });

  it('deletes dependents with their owner', async () => {
    const admin = api.client();
    const owner = await admin.create<any>(RESOURCES.configMap, { metadata: { name: 'owner' } }, 'svc-demo');
    await admin.create(RESOURCES.secret, { metadata: { name: 'dep', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid, controller: true }] } }, 'svc-demo');
    await admin.delete(RESOURCES.configMap, 'owner', 'svc-demo');
    expect(api.object(RESOURCES.secret, 'dep', 'svc-demo')).to.equal(undefined);
  });

  it('keeps an object with finalizers until the last finalizer is removed', async () => {
    const admin = api.client();
    await admin.create(RESOURCES.configMap, { metadata: { name: 'f', finalizers: ['den.dev/x'] } }, 'svc-demo');
    const marked = await admin.delete<any>(RESOURCES.configMap, 'f', 'svc-demo');
    expect(marked.metadata.deletionTimestamp).to.be.a('string');
    await admin.patch(RESOURCES.configMap, 'f', { metadata: { finalizers: null } }, { namespace: 'svc-demo' });
    expect(api.object(RESOURCES.configMap, 'f', 'svc-demo')).to.equal(undefined);
  });
});
