import { expect } from 'chai';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from './fake-apiserver.js';
import { refusal } from './fake-apiserver/refusal.js';


const pod = (name: string, resources?: object, more: object[] = []): KubeObject => ({ metadata: { name }, spec: { containers: [{ name: 'app', image: 'busybox', ...(resources ? { resources } : {}) }, ...more] } });
const claim = (name: string, storage: string): KubeObject => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } });

describe('the fake API server, LimitRange and ResourceQuota admission', () => {
  let api: FakeApiServer;
  const admin = () => api.client();
  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    await admin().create(RESOURCES.namespace, { metadata: { name: 'svc-demo' } });
  });
  afterEach(() => api.close());
  const limits = (...items: object[]) => admin().create(RESOURCES.limitRange, { metadata: { name: 'limits' }, spec: { limits: items } }, 'svc-demo');
  const quota = (hard: Record<string, string>) => admin().create(RESOURCES.resourceQuota, { metadata: { name: 'quota' }, spec: { hard } }, 'svc-demo');

  it("fills a container's missing requests and limits from the LimitRange, keeps what it names, and says so in the LimitRanger annotation", async () => {
    await limits({ type: 'Container', default: { cpu: '1', memory: '1Gi' }, defaultRequest: { cpu: '100m', memory: '128Mi' } });
    const created = await admin().create<any>(RESOURCES.pod, pod('p', { limits: { cpu: '2' } }), 'svc-demo');
    expect(created.spec.containers[0].resources).to.deep.equal({ limits: { cpu: '2', memory: '1Gi' }, requests: { cpu: '2', memory: '128Mi' } });
    expect(created.metadata.annotations['kubernetes.io/limit-ranger']).to.equal('LimitRanger plugin set: memory request for container app; memory limit for container app');
  });

  it('refuses with 403 and LimitRanger\'s words a container over max, under min, or over the limit-to-request ratio, creating nothing', async () => {
    await limits({ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' }, maxLimitRequestRatio: { cpu: '2' } });
    const over = await refusal(admin().create(RESOURCES.pod, pod('p', { requests: { cpu: '1', memory: '128Mi' }, limits: { cpu: '4', memory: '128Mi' } }), 'svc-demo'));
    expect(over.status).to.equal(403);
    expect(over.body).to.deep.include({ reason: 'Forbidden', message: 'pods "p" is forbidden: [maximum cpu usage per Container is 2, but limit is 4, cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000]' });
    const under = await refusal(admin().create(RESOURCES.pod, pod('p', { requests: { cpu: '1', memory: '32Mi' }, limits: { cpu: '1', memory: '32Mi' } }), 'svc-demo'));
    expect(under.message).to.equal('pods "p" is forbidden: minimum memory usage per Container is 64Mi, but request is 32Mi');
    const none = await refusal(admin().create(RESOURCES.pod, pod('p'), 'svc-demo'));
    expect(none.message).to.equal('pods "p" is forbidden: [minimum memory usage per Container is 64Mi.  No request is specified, maximum cpu usage per Container is 2.  No limit is specified, cpu max limit to request ratio per Container is 2, but no request is specified or request is 0]');
    expect(api.objects(RESOURCES.pod, 'svc-demo')).to.deep.equal([]);
  });

  it('refuses a claim outside the PersistentVolumeClaim limits', async () => {
    await limits({ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } });
    expect((await refusal(admin().create(RESOURCES.persistentVolumeClaim, claim('small', '500Mi'), 'svc-demo'))).message).to.equal('persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi');
    expect((await refusal(admin().create(RESOURCES.persistentVolumeClaim, claim('big', '20Gi'), 'svc-demo'))).message).to.equal('persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi');
    await admin().create(RESOURCES.persistentVolumeClaim, claim('fine', '5Gi'), 'svc-demo');
  });

  it('refuses, under a compute quota, a pod whose containers do not request the quota\'d resources', async () => {
    await quota({ 'requests.cpu': '1', 'requests.memory': '1Gi' });
    const err = await refusal(admin().create(RESOURCES.pod, pod('p', { requests: { memory: '64Mi' } }, [{ name: 'side', image: 'busybox' }]), 'svc-demo'));
    expect(err.status).to.equal(403);
    expect(err.message).to.equal('pods "p" is forbidden: failed quota: quota: must specify requests.cpu for: app,side; requests.memory for: side');
  });

  it('keeps status.used of a quota and refuses what would exceed status.hard with the real message, until usage is freed', async () => {
    await quota({ 'requests.cpu': '1', pods: '5', 'requests.storage': '10Gi', 'count/configmaps': '1' });
    const cpu = (n: string) => ({ requests: { cpu: n } });
    await admin().create(RESOURCES.pod, pod('a', cpu('600m')), 'svc-demo');
    expect(api.object<any>(RESOURCES.resourceQuota, 'quota', 'svc-demo').status).to.deep.equal({
      hard: { 'requests.cpu': '1', pods: '5', 'requests.storage': '10Gi', 'count/configmaps': '1' },
      used: { 'requests.cpu': '600m', pods: '1', 'requests.storage': '0', 'count/configmaps': '0' },
    });
    const err = await refusal(admin().create(RESOURCES.pod, pod('b', cpu('600m')), 'svc-demo'));
    expect(err.status).to.equal(403);
    expect(err.message).to.equal('pods "b" is forbidden: exceeded quota: quota, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1');
    await admin().delete(RESOURCES.pod, 'a', 'svc-demo');
    expect(api.object<any>(RESOURCES.resourceQuota, 'quota', 'svc-demo').status.used['requests.cpu']).to.equal('0');
    await admin().create(RESOURCES.pod, pod('b', cpu('600m')), 'svc-demo');

    await admin().create(RESOURCES.persistentVolumeClaim, claim('home', '8Gi'), 'svc-demo');
    expect((await refusal(admin().create(RESOURCES.persistentVolumeClaim, claim('more', '4Gi'), 'svc-demo'))).message).to.equal('persistentvolumeclaims "more" is forbidden: exceeded quota: quota, requested: requests.storage=4Gi, used: requests.storage=8Gi, limited: requests.storage=10Gi');
    await admin().create(RESOURCES.configMap, { metadata: { name: 'one' } }, 'svc-demo');
    expect((await refusal(admin().create(RESOURCES.configMap, { metadata: { name: 'two' } }, 'svc-demo'))).message).to.equal('configmaps "two" is forbidden: exceeded quota: quota, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1');
  });
});
