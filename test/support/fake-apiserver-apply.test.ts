import { expect } from 'chai';
import { denCrds } from '../../contract/index.js';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from './fake-apiserver.js';
import { refusal } from './fake-apiserver/refusal.js';
import { fixtureLines } from './fixtures.js';


const sts = (containers: object[], replicas?: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'dev', namespace: 'svc-demo' },
  spec: { ...(replicas === undefined ? {} : { replicas }), serviceName: 'dev', selector: { matchLabels: { app: 'dev' } }, template: { metadata: { labels: { app: 'dev' } }, spec: { containers } } },
});

describe('the fake API server, server-side apply', () => {
  let api: FakeApiServer;
  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-demo' } });
  });
  afterEach(() => api.close());
  const applyAs = (manager: string, obj: KubeObject, force = false) => api.client().patch<any>(RESOURCES.statefulSet, obj.metadata!.name!, obj, { namespace: 'svc-demo', type: 'apply', fieldManager: manager, force });

  it('records managedFields per manager and operation with fieldsV1 sets, in the recorded shape', async () => {
    api.installCrds(denCrds().map((crd) => ({ ...crd })));
    const created = await api.client().create<any>(RESOURCES.workspace, { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'f2' }, spec: { imageRef: { name: 'python' } } }, 'svc-demo');
    const recorded = fixtureLines('watch-stream-fixtures.jsonl')[0].object.metadata.managedFields[0];
    const [entry] = created.metadata.managedFields;
    expect(Object.keys(entry).sort()).to.deep.equal(Object.keys(recorded).sort());
    expect(entry).to.deep.include({ operation: 'Update', apiVersion: 'den.dev/v1alpha1', fieldsType: 'FieldsV1' });
    expect(entry.fieldsV1['f:spec']['f:imageRef']).to.deep.equal(recorded.fieldsV1['f:spec']['f:imageRef']);

    const applied = await applyAs('den-manager', sts([{ name: 'dev', image: 'python:3' }]));
    expect(applied.metadata.managedFields).to.have.length(1);
    expect(applied.metadata.managedFields[0]).to.deep.include({ manager: 'den-manager', operation: 'Apply', apiVersion: 'apps/v1' });
    expect(applied.metadata.managedFields[0].fieldsV1['f:spec']['f:template']['f:spec']['f:containers']).to.deep.equal({ 'k:{"name":"dev"}': { '.': {}, 'f:image': {}, 'f:name': {} } });
  });

  it('answers 409 with the real message when another manager owns a field with a different value, and hands it over with force', async () => {
    await applyAs('den-manager', sts([{ name: 'dev', image: 'python:3' }], 1));
    await applyAs('kubectl', sts([{ name: 'dev', image: 'python:3' }], 1));
    const err = await refusal(applyAs('kubectl', sts([{ name: 'dev', image: 'python:3.12' }], 2)));
    expect(err.status).to.equal(409);
    expect(err.body).to.deep.include({ reason: 'Conflict', message: 'Apply failed with 2 conflicts: conflicts with "den-manager":\n- .spec.replicas\n- .spec.template.spec.containers[name="dev"].image' });
    const single = await refusal(applyAs('kubectl', sts([{ name: 'dev', image: 'python:3' }], 3)));
    expect(single.message).to.equal('Apply failed with 1 conflict: conflict with "den-manager": .spec.replicas');
    expect(single.body.details?.causes).to.deep.equal([{ reason: 'FieldManagerConflict', message: 'conflict with "den-manager"', field: '.spec.replicas' }]);
    expect(api.object<any>(RESOURCES.statefulSet, 'dev', 'svc-demo').spec.replicas).to.equal(1);

    const forced = await applyAs('kubectl', sts([{ name: 'dev', image: 'python:3' }], 3), true);
    expect(forced.spec.replicas).to.equal(3);
    const owners = Object.fromEntries(forced.metadata.managedFields.map((e: any) => [e.manager, 'f:replicas' in e.fieldsV1['f:spec']]));
    expect(owners).to.deep.equal({ 'den-manager': false, kubectl: true });
  });

  it("reports an Update manager's conflict with its apiVersion and time", async () => {
    await applyAs('den-manager', sts([{ name: 'dev', image: 'python:3' }], 1));
    await api.client().patch(RESOURCES.statefulSet, 'dev', { spec: { replicas: 0 } }, { namespace: 'svc-demo', fieldManager: 'den-idler' });
    const err = await refusal(applyAs('den-manager', sts([{ name: 'dev', image: 'python:3' }], 1)));
    expect(err.message).to.match(/^Apply failed with 1 conflict: conflict with "den-idler" using apps\/v1 at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: \.spec\.replicas$/);
  });

  it('merges keyed lists by their keys, so two managers keep their own containers, env and ports', async () => {
    await applyAs('den-manager', sts([{ name: 'dev', image: 'python:3', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 22 }] }]));
    const merged = await applyAs('sidecar', sts([{ name: 'dev', env: [{ name: 'B', value: '2' }], ports: [{ containerPort: 8080, protocol: 'TCP' }] }, { name: 'proxy', image: 'envoy' }]));
    const [dev, proxy] = merged.spec.template.spec.containers;
    expect(dev).to.deep.equal({ name: 'dev', image: 'python:3', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 22 }, { containerPort: 8080, protocol: 'TCP' }] });
    expect(proxy).to.deep.equal({ name: 'proxy', image: 'envoy' });
  });

  it('removes a field an applier stops sending only when no other manager owns it', async () => {
    await applyAs('den-manager', sts([{ name: 'dev', image: 'python:3', args: ['a'] }, { name: 'proxy', image: 'envoy' }], 1));
    await applyAs('kubectl', sts([{ name: 'dev', image: 'python:3' }], 1));
    const after = await applyAs('den-manager', sts([{ name: 'dev', image: 'python:3' }]));
    expect(after.spec.replicas, 'replicas is kubectl\'s too').to.equal(1);
    expect(after.spec.template.spec.containers).to.deep.equal([{ name: 'dev', image: 'python:3' }]);
  });

  it('merges a CRD list by its x-kubernetes-list-map-keys', async () => {
    api.installCrds(denCrds().map((crd) => ({ ...crd })));
    const crd = denCrds().find((c: any) => c.spec.names.plural === 'userspaces') as any;
    const hasMapList = JSON.stringify(crd).includes('"x-kubernetes-list-map-keys":["type"]');
    expect(hasMapList, 'status.conditions is a map list keyed by type').to.equal(true);
    const admin = api.client();
    await admin.create(RESOURCES.userSpace, { apiVersion: 'den.dev/v1alpha1', kind: 'UserSpace', metadata: { name: 'alice' }, spec: { owner: 'alice@example.com', quota: { cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 0, workspaces: 3 }, networkPolicy: 'Isolated' } } as KubeObject);
    const condition = (type: string) => ({ type, status: 'True', reason: 'Ok', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' });
    const status = (type: string) => ({ apiVersion: 'den.dev/v1alpha1', kind: 'UserSpace', metadata: { name: 'alice' }, status: { conditions: [condition(type)] } });
    await admin.patch(RESOURCES.userSpace, 'alice', status('Ready'), { type: 'apply', subresource: 'status', fieldManager: 'a', force: true });
    const both = await admin.patch<any>(RESOURCES.userSpace, 'alice', status('Synced'), { type: 'apply', subresource: 'status', fieldManager: 'b', force: true });
    expect(both.status.conditions.map((c: any) => c.type)).to.deep.equal(['Ready', 'Synced']);
  });
});
