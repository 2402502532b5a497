import { expect } from 'chai';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from './fake-apiserver.js';
import { rawWatch } from './fake-apiserver/stream.js';
import { HarnessKubelet } from './harness-kubelet.js';

const sts = (name: string, cpu: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name, namespace: 'svc-demo' },
  spec: {
    replicas: 1,
    serviceName: name,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'dev', image: 'python', resources: { requests: { cpu } } }] } },
    volumeClaimTemplates: [{ metadata: { name: 'home' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  },
});

describe('the harness StatefulSet controller', () => {
  let api: FakeApiServer;
  const stop = new AbortController();
  let running: Promise<void>;
  before(async () => {
    api = new FakeApiServer();
    await api.start();
    const admin = api.client();
    await admin.create(RESOURCES.namespace, { metadata: { name: 'svc-demo' } });
    await admin.create(RESOURCES.limitRange, { metadata: { name: 'limits' }, spec: { limits: [{ type: 'Container', defaultRequest: { memory: '128Mi' } }] } }, 'svc-demo');
    await admin.create(RESOURCES.resourceQuota, { metadata: { name: 'quota' }, spec: { hard: { 'requests.cpu': '1', 'requests.memory': '1Gi' } } }, 'svc-demo');
    const kubelet = new HarnessKubelet(api);
    running = kubelet.run(stop.signal);
    await kubelet.synced;
  });
  after(async () => {
    stop.abort();
    await running;
    await api.close();
  });

  it('creates pods through LimitRange and ResourceQuota admission, and reports a refused one as FailedCreate on the StatefulSet', async () => {
    const admin = api.client();
    const from = { resourceVersion: String(api.resourceVersion) };
    const pods = await rawWatch(admin, '/api/v1/namespaces/svc-demo/pods', from);
    const events = await rawWatch(admin, '/api/v1/namespaces/svc-demo/events', from);
    await admin.create(RESOURCES.statefulSet, sts('small', '500m'), 'svc-demo');
    const created = await pods.next((e) => e.type === 'ADDED');
    expect(created.object.spec.containers[0].resources.requests).to.deep.equal({ cpu: '500m', memory: '128Mi' });

    await admin.create(RESOURCES.statefulSet, sts('big', '2'), 'svc-demo');
    const failed = await events.next((e) => e.object.reason === 'FailedCreate');
    expect(failed.object.involvedObject).to.include({ kind: 'StatefulSet', name: 'big' });
    expect(failed.object.message).to.equal('create Pod big-0 in StatefulSet big failed error: pods "big-0" is forbidden: exceeded quota: quota, requested: requests.cpu=2, used: requests.cpu=500m, limited: requests.cpu=1');
    expect(api.object(RESOURCES.pod, 'big-0', 'svc-demo')).to.equal(undefined);
    pods.close();
    events.close();
  });
});
