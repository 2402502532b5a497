import { expect } from 'chai';
import { RESOURCES, resourcePath } from '../../kube/resources.js';
import { FakeApiServer } from './fake-apiserver.js';
import { refusal } from './fake-apiserver/refusal.js';
import { rawWatch } from './fake-apiserver/stream.js';


describe('the fake API server, namespace deletion', () => {
  let api: FakeApiServer;
  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
  });
  afterEach(() => api.close());

  it('creates a namespace Active with the kubernetes finalizer', async () => {
    const ns = await api.client().create<any>(RESOURCES.namespace, { metadata: { name: 'svc-demo' } });
    expect(ns.spec).to.deep.equal({ finalizers: ['kubernetes'] });
    expect(ns.status).to.deep.equal({ phase: 'Active' });
  });

  it('answers DELETE with a Terminating namespace, deletes its contents afterwards, and removes it only once its last finalizer is gone', async () => {
    const admin = api.client();
    await admin.create(RESOURCES.namespace, { metadata: { name: 'svc-demo' } });
    await admin.create(RESOURCES.configMap, { metadata: { name: 'plain' } }, 'svc-demo');
    await admin.create(RESOURCES.configMap, { metadata: { name: 'held', finalizers: ['den.dev/x'] } }, 'svc-demo');
    const from = { resourceVersion: String(api.resourceVersion) };
    const configMaps = await rawWatch(admin, resourcePath(RESOURCES.configMap, { namespace: 'svc-demo' }), from);
    const namespaces = await rawWatch(admin, resourcePath(RESOURCES.namespace), from);

    const terminating = await admin.delete<any>(RESOURCES.namespace, 'svc-demo');
    expect(terminating.metadata.deletionTimestamp).to.be.a('string');
    expect(terminating.status.phase).to.equal('Terminating');
    expect(terminating.spec.finalizers).to.deep.equal(['kubernetes']);

    await configMaps.next((e) => e.type === 'DELETED' && e.object.metadata.name === 'plain');
    const held = await configMaps.next((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'held');
    expect(held.object.metadata.deletionTimestamp).to.be.a('string');
    expect(api.object<any>(RESOURCES.namespace, 'svc-demo')?.status.phase).to.equal('Terminating');

    await admin.patch(RESOURCES.configMap, 'held', { metadata: { finalizers: null } }, { namespace: 'svc-demo' });
    const finalized = await namespaces.next((e) => e.type === 'MODIFIED' && e.object.spec.finalizers.length === 0);
    expect(finalized.object.metadata.name).to.equal('svc-demo');
    await namespaces.next((e) => e.type === 'DELETED' && e.object.metadata.name === 'svc-demo');
    expect(api.object(RESOURCES.namespace, 'svc-demo')).to.equal(undefined);
    configMaps.close();
    namespaces.close();
  });

  it('refuses new content, and TokenRequests, in a terminating namespace with the real 403', async () => {
    const admin = api.client();
    await admin.create(RESOURCES.namespace, { metadata: { name: 'svc-demo' } });
    await admin.create(RESOURCES.serviceAccount, { metadata: { name: 'session' } }, 'svc-demo');
    await admin.create(RESOURCES.configMap, { metadata: { name: 'held', finalizers: ['den.dev/x'] } }, 'svc-demo');
    await admin.delete(RESOURCES.namespace, 'svc-demo');

    const create = await refusal(admin.create(RESOURCES.configMap, { metadata: { name: 'late' } }, 'svc-demo'));
    expect(create.status).to.equal(403);
    expect(create.body).to.deep.equal({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "late" is forbidden: unable to create new content in namespace svc-demo because it is being terminated',
      reason: 'Forbidden',
      details: { name: 'late', kind: 'configmaps', causes: [{ reason: 'NamespaceTerminating', message: 'namespace svc-demo is being terminated', field: 'metadata.namespace' }] },
      code: 403,
    });
    const token = await refusal(admin.request({ method: 'POST', path: resourcePath(RESOURCES.serviceAccount, { namespace: 'svc-demo', name: 'session', subresource: 'token' }), body: { spec: {} } }));
    expect(token.status).to.equal(403);
    expect(token.message).to.equal('serviceaccounts "session" is forbidden: unable to create new content in namespace svc-demo because it is being terminated');
    expect(api.objects(RESOURCES.configMap, 'svc-demo').map((o) => o.metadata?.name)).to.deep.equal(['held']);
  });

  it('terminates a namespace its owner took with it, as the garbage collector deletes it', async () => {
    const admin = api.client();
    const owner = await admin.create<any>(RESOURCES.configMap, { metadata: { name: 'owner' } }, 'default');
    await admin.create(RESOURCES.namespace, { metadata: { name: 'svc-owned', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }] } });
    await admin.create(RESOURCES.configMap, { metadata: { name: 'held', finalizers: ['den.dev/x'] } }, 'svc-owned');
    await admin.delete(RESOURCES.configMap, 'owner', 'default');
    expect(api.object<any>(RESOURCES.namespace, 'svc-owned')?.status.phase).to.equal('Terminating');
  });
});
