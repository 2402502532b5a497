// What the conformance test cannot provoke on the shared real server but the fake models as it
// does: writes racing while the webhooks run, a stopped quota controller, a kubelet finishing
// a pod's graceful deletion, one client's watches trailing another's, and strategic merge
// patch directives.
import { expect } from 'chai';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES, resourcePath } from '../../kube/resources.js';
import { FakeApiServer } from './fake-apiserver.js';
import { refusal } from './fake-apiserver/refusal.js';
import { rawWatch } from './fake-apiserver/stream.js';
import { strategicMergePatch } from './fake-apiserver/strategic-merge.js';
import { selfSigned } from './self-signed.js';

const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data } as KubeObject);

describe('the fake API server, writes as the real one serialises them', () => {
  let api: FakeApiServer;
  let hook: https.Server | undefined;
  beforeEach(async () => {
    api = new FakeApiServer({ podTerminationMs: 150 });
    await api.start();
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-demo' } });
  });
  afterEach(async () => {
    hook?.close();
    hook = undefined;
    await api.close();
  });

  /** A validating webhook on configmaps UPDATE that allows after `ms`, so writes overlap while it runs. */
  async function slowWebhook(ms: number): Promise<void> {
    const { cert, key, ca } = selfSigned();
    hook = https.createServer({ cert, key }, (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () =>
        setTimeout(() => {
          const review = JSON.parse(body);
          res.setHeader('Content-Type', 'application/json');
          res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }));
        }, ms),
      );
    });
    await new Promise<void>((r) => hook!.listen(0, '127.0.0.1', r));
    const port = (hook.address() as AddressInfo).port;
    api.seed({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'slow' },
      webhooks: [{ name: 'slow.example.com', clientConfig: { url: `https://127.0.0.1:${port}/`, caBundle: Buffer.from(ca).toString('base64') }, rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['UPDATE'] }], failurePolicy: 'Fail', sideEffects: 'None', admissionReviewVersions: ['v1'] }],
    } as KubeObject);
  }

  it('answers one of two PUTs of the same resourceVersion 409 Conflict while a webhook matching UPDATE runs, and stores the other', async () => {
    const admin = api.client();
    const made = await admin.create<KubeObject & { data: Record<string, string> }>(RESOURCES.configMap, cm('race', { v: '0' }), 'svc-demo');
    await slowWebhook(100);
    const answers = await Promise.allSettled(['1', '2'].map((v) => admin.replace(RESOURCES.configMap, { ...made, data: { v } } as KubeObject)));
    const stored = answers.filter((a) => a.status === 'fulfilled');
    const refused = answers.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
    expect(stored).to.have.length(1);
    expect(refused).to.have.length(1);
    expect(refused[0]!.reason.status).to.equal(409);
    expect(refused[0]!.reason.body.message).to.equal('Operation cannot be fulfilled on configmaps "race": the object has been modified; please apply your changes to the latest version and try again');
    const winner = (stored[0] as PromiseFulfilledResult<any>).value.data.v;
    expect(api.object<any>(RESOURCES.configMap, 'race', 'svc-demo').data.v).to.equal(winner);
  });

  it('refuses the second of two applies of one field by two managers while a webhook runs, and the first keeps its ownership', async () => {
    const admin = api.client();
    await admin.create(RESOURCES.configMap, cm('owned'), 'svc-demo');
    await slowWebhook(100);
    const apply = (manager: string, v: string) => admin.patch(RESOURCES.configMap, 'owned', cm('owned', { k: v }), { namespace: 'svc-demo', type: 'apply', fieldManager: manager });
    const answers = await Promise.allSettled([apply('first', '1'), apply('second', '2')]);
    expect(answers.map((a) => a.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
    const refused = answers.find((a): a is PromiseRejectedResult => a.status === 'rejected')!;
    expect(refused.reason.status).to.equal(409);
    const winner = answers[0]!.status === 'fulfilled' ? 'first' : 'second';
    expect(refused.reason.body.message).to.equal(`Apply failed with 1 conflict: conflict with "${winner}": .data.k`);
    const stored = api.object<any>(RESOURCES.configMap, 'owned', 'svc-demo');
    expect(stored.metadata.managedFields.filter((e: any) => e.fieldsV1?.['f:data']?.['f:k']).map((e: any) => e.manager)).to.deep.equal([winner]);
  });

  it("leaves a new quota's status to the quota controller: stopped, nothing is counted and a limit it has not counted refuses 'status unknown for quota'; started, it counts", async () => {
    api.setQuotaController('stopped');
    const admin = api.client();
    await admin.create(RESOURCES.resourceQuota, { metadata: { name: 'svc-quota' }, spec: { hard: { 'count/configmaps': '1' } } } as KubeObject, 'svc-demo');
    await admin.create(RESOURCES.configMap, cm('uncounted'), 'svc-demo');
    expect(api.object<any>(RESOURCES.resourceQuota, 'svc-quota', 'svc-demo').status).to.deep.equal({});
    const quota = api.object<any>(RESOURCES.resourceQuota, 'svc-quota', 'svc-demo');
    await admin.replace(RESOURCES.resourceQuota, { ...quota, status: { hard: { 'count/configmaps': '1' } } }, { subresource: 'status' } as any);
    const unknown = await refusal(admin.create(RESOURCES.configMap, cm('refused'), 'svc-demo'));
    expect(unknown.status).to.equal(403);
    expect(unknown.message).to.equal('configmaps "refused" is forbidden: status unknown for quota: svc-quota, resources: count/configmaps');
    api.setQuotaController('immediate');
    await new Promise((r) => setImmediate(r));
    expect(api.object<any>(RESOURCES.resourceQuota, 'svc-quota', 'svc-demo').status).to.deep.equal({ hard: { 'count/configmaps': '1' }, used: { 'count/configmaps': '1' } });
    const over = await refusal(admin.create(RESOURCES.configMap, cm('over'), 'svc-demo'));
    expect(over.message).to.equal('configmaps "over" is forbidden: exceeded quota: svc-quota, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1');
  });

  it("refuses what a limit the controller cannot count yet constrains, 'status unknown for quota', as before it has discovered a custom resource; counted, admits it", async () => {
    api.setQuotaController('immediate', { uncounted: ['count/configmaps'] });
    const admin = api.client();
    await admin.create(RESOURCES.resourceQuota, { metadata: { name: 'svc-quota' }, spec: { hard: { 'count/configmaps': '5', 'count/secrets': '5' } } } as KubeObject, 'svc-demo');
    await new Promise((r) => setImmediate(r));
    expect(api.object<any>(RESOURCES.resourceQuota, 'svc-quota', 'svc-demo').status).to.deep.equal({ hard: { 'count/configmaps': '5', 'count/secrets': '5' }, used: { 'count/secrets': '0' } });
    const refused = await refusal(admin.create(RESOURCES.configMap, cm('early'), 'svc-demo'));
    expect(refused.message).to.equal('configmaps "early" is forbidden: status unknown for quota: svc-quota, resources: count/configmaps');
    await admin.create(RESOURCES.secret, { metadata: { name: 'counted' } } as KubeObject, 'svc-demo');
    api.setQuotaController('immediate');
    await new Promise((r) => setImmediate(r));
    await admin.create(RESOURCES.configMap, cm('later'), 'svc-demo');
    expect(api.object<any>(RESOURCES.resourceQuota, 'svc-quota', 'svc-demo').status.used).to.deep.equal({ 'count/configmaps': '1', 'count/secrets': '1' });
  });

  it("keeps a deleted pod on a node with its grace period until the fake kubelet has stopped it, then deletes it; a pod on no node goes at once", async () => {
    const admin = api.client();
    const pod = (name: string, nodeName?: string) => ({ metadata: { name }, spec: { ...(nodeName ? { nodeName } : {}), terminationGracePeriodSeconds: 10, containers: [{ name: 'a', image: 'busybox' }] } }) as KubeObject;
    await admin.create(RESOURCES.pod, pod('bound', 'node-1'), 'svc-demo');
    const watch = await rawWatch(admin, resourcePath(RESOURCES.pod, { namespace: 'svc-demo' }), { resourceVersion: String(api.resourceVersion) });
    const deleted = await admin.delete<any>(RESOURCES.pod, 'bound', 'svc-demo');
    expect(deleted.metadata.deletionGracePeriodSeconds).to.equal(10);
    expect(Date.parse(deleted.metadata.deletionTimestamp) - Date.now()).to.be.within(8_000, 11_000);
    expect(api.object<any>(RESOURCES.pod, 'bound', 'svc-demo').metadata.deletionTimestamp).to.equal(deleted.metadata.deletionTimestamp);
    await watch.next((e) => e.type === 'MODIFIED' && e.object.metadata.deletionTimestamp);
    await watch.next((e) => e.type === 'DELETED' && e.object.metadata.name === 'bound');
    expect(api.object(RESOURCES.pod, 'bound', 'svc-demo')).to.equal(undefined);
    watch.close();
    await admin.create(RESOURCES.pod, pod('free'), 'svc-demo');
    await admin.delete(RESOURCES.pod, 'free', 'svc-demo');
    expect(api.object(RESOURCES.pod, 'free', 'svc-demo')).to.equal(undefined);
  });

  it("delays one client's watch events by its own lag while another client's arrive at once, in order", async () => {
    api.addUser('replica-a', { username: 'a' , groups: ['system:masters'] });
    api.addUser('replica-b', { username: 'b', groups: ['system:masters'] });
    api.setWatchLag(300, 'replica-b');
    const path = resourcePath(RESOURCES.configMap, { namespace: 'svc-demo' });
    const from = { resourceVersion: String(api.resourceVersion) };
    const [a, b] = await Promise.all([rawWatch(api.client('replica-a'), path, from), rawWatch(api.client('replica-b'), path, from)]);
    const written = Date.now();
    await api.client().create(RESOURCES.configMap, cm('one'), 'svc-demo');
    await api.client().create(RESOURCES.configMap, cm('two'), 'svc-demo');
    await a.next((e) => e.object.metadata.name === 'two');
    expect(Date.now() - written).to.be.below(250);
    await b.next((e) => e.object.metadata.name === 'two');
    expect(Date.now() - written).to.be.at.least(300);
    expect(b.events.map((e) => e.object.metadata.name)).to.deep.equal(['one', 'two']);
    a.close();
    b.close();
  });
});

describe('strategic merge patch', () => {
  const live = {
    metadata: { finalizers: ['a', 'b'] },
    spec: { containers: [{ name: 'app', image: 'x', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80 }] }, { name: 'side', image: 'y' }], volumes: [{ name: 'v', emptyDir: {} }] },
  };

  it('merges containers by name, env by name and ports by containerPort, and replaces lists without a merge key', () => {
    const out = strategicMergePatch(live, { spec: { containers: [{ name: 'app', env: [{ name: 'B', value: '2' }], ports: [{ containerPort: 80, name: 'http' }] }], tolerations: [{ key: 'k' }] } });
    expect(out.spec.containers).to.deep.equal([{ name: 'app', image: 'x', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80, name: 'http' }] }, { name: 'side', image: 'y' }]);
    expect(out.spec.tolerations).to.deep.equal([{ key: 'k' }]);
  });

  it('honours $patch: delete and replace, $deleteFromPrimitiveList and $retainKeys, and keeps finalizers as a set', () => {
    expect(strategicMergePatch(live, { spec: { containers: [{ name: 'side', $patch: 'delete' }] } }).spec.containers.map((c: any) => c.name)).to.deep.equal(['app']);
    expect(strategicMergePatch(live, { spec: { volumes: [{ name: 'w', emptyDir: {} }, { $patch: 'replace' }] } }).spec.volumes).to.deep.equal([{ name: 'w', emptyDir: {} }]);
    expect(strategicMergePatch(live, { metadata: { finalizers: ['c', 'a'] } }).metadata.finalizers).to.deep.equal(['a', 'b', 'c']);
    expect(strategicMergePatch(live, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }).metadata.finalizers).to.deep.equal(['b']);
    expect(strategicMergePatch({ spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } }, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }).spec.strategy).to.deep.equal({ type: 'Recreate' });
  });
});
