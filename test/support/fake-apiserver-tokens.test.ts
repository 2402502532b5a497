// The fake API server authenticates TokenRequest tokens as kube-apiserver does: bound to the
// ServiceAccount's UID (and a bound pod's UID) and to an audience it accepts.
import { expect } from 'chai';
import { WebSocket } from 'ws';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from './fake-apiserver.js';
import { fixture } from './fixtures.js';

const NS = 'svc-demo';

async function answerOf(work: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  try {
    await work;
    return { status: 200, body: undefined };
  } catch (err) {
    if (!(err instanceof KubeApiError)) throw err;
    return { status: err.status, body: err.body };
  }
}

/** 403 naming the user proves the token authenticated; 401 means it did not. */
function listPods(client: KubeClient) {
  return answerOf(client.list(RESOURCES.pod, { namespace: NS }));
}

describe('the fake API server authenticates ServiceAccount tokens as kube-apiserver does', () => {
  let api: FakeApiServer;
  let admin: KubeClient;

  async function createServiceAccount(name = 'robot'): Promise<KubeObject> {
    return admin.create(RESOURCES.serviceAccount, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } }, NS);
  }

  async function mint(name: string, spec: Record<string, unknown> = {}): Promise<{ token: string; spec: any }> {
    const answer = await admin.request<{ spec: any; status: { token: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${NS}/serviceaccounts/${name}/token`,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600, ...spec } },
    });
    return { token: answer.status.token, spec: answer.spec };
  }

  async function createPod(name: string): Promise<KubeObject> {
    return admin.create(RESOURCES.pod, { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'main', image: 'busybox' }] } } as KubeObject, NS);
  }

  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    admin = api.client();
  });
  afterEach(() => api.close());

  it('accepts a minted token while its ServiceAccount exists', async () => {
    await createServiceAccount();
    const { token } = await mint('robot');
    const answer = await listPods(api.client(token));
    expect(answer.status).to.equal(403);
    expect((answer.body as { message: string }).message).to.contain(`system:serviceaccount:${NS}:robot`);
  });

  it('refuses a token with 401 once its ServiceAccount is deleted, and still after one of the same name is created', async () => {
    await createServiceAccount();
    const { token } = await mint('robot');
    await admin.delete(RESOURCES.serviceAccount, 'robot', NS);
    expect(await listPods(api.client(token))).to.deep.equal({ status: 401, body: fixture('unauthorized-bad-token.json').body });
    await createServiceAccount();
    expect(await listPods(api.client(token))).to.deep.equal({ status: 401, body: fixture('unauthorized-bad-token.json').body });
    const fresh = await mint('robot');
    expect((await listPods(api.client(fresh.token))).status).to.equal(403);
  });

  it('refuses a token bound to a pod once the pod is deleted and created again under its name', async () => {
    await createServiceAccount();
    const pod = await createPod('worker');
    const { token, spec } = await mint('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'worker' } });
    expect(spec.boundObjectRef).to.deep.equal({ kind: 'Pod', apiVersion: 'v1', name: 'worker', uid: pod.metadata!.uid });
    expect((await listPods(api.client(token))).status).to.equal(403);
    await admin.delete(RESOURCES.pod, 'worker', NS, { gracePeriodSeconds: 0 });
    await createPod('worker');
    // Accepted a moment ago: kube-apiserver's token cache keeps accepting it for 10 s.
    expect((await listPods(api.client(token))).status).to.equal(403);
    api.expireTokenCache();
    expect(await listPods(api.client(token))).to.deep.equal({ status: 401, body: fixture('unauthorized-bad-token.json').body });
  });

  it('keeps accepting a token it accepted a moment ago for the token cache\'s time, though its ServiceAccount is gone, then refuses it', async () => {
    await api.close();
    api = new FakeApiServer({ tokenCacheTtlMs: 300 });
    await api.start();
    admin = api.client();
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await createServiceAccount();
    const { token } = await mint('robot');
    expect((await listPods(api.client(token))).status).to.equal(403);
    await admin.delete(RESOURCES.serviceAccount, 'robot', NS);
    expect((await listPods(api.client(token))).status).to.equal(403);
    await new Promise((r) => setTimeout(r, 350));
    expect((await listPods(api.client(token))).status).to.equal(401);
  });

  it('refuses to bind a token to a pod that does not exist (404) or whose UID differs (409)', async () => {
    await createServiceAccount();
    const missing = await answerOf(mint('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'nobody' } }));
    expect(missing.status).to.equal(404);
    expect((missing.body as { message: string }).message).to.equal('pods "nobody" not found');
    await createPod('worker');
    const stale = await answerOf(mint('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'worker', uid: 'not-the-uid' } }));
    expect(stale.status).to.equal(409);
    expect((stale.body as { message: string }).message).to.contain('The object might have been deleted and then recreated');
  });

  it('says which audiences a token carries, and refuses one whose audience the API server does not accept', async () => {
    await createServiceAccount();
    const ordinary = await mint('robot');
    expect(ordinary.spec.audiences).to.deep.equal(['https://kubernetes.default.svc']);
    const forVault = await mint('robot', { audiences: ['vault'] });
    expect(forVault.spec.audiences).to.deep.equal(['vault']);
    expect(await listPods(api.client(forVault.token))).to.deep.equal({ status: 401, body: fixture('unauthorized-bad-token.json').body });
    const both = await mint('robot', { audiences: ['vault', 'https://kubernetes.default.svc'] });
    expect((await listPods(api.client(both.token))).status).to.equal(403);
  });

  it('accepts only the audiences it is configured with (--api-audiences)', async () => {
    await api.close();
    api = new FakeApiServer({ apiAudiences: ['https://den.example'] });
    await api.start();
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    admin = api.client();
    await createServiceAccount();
    const ordinary = await mint('robot');
    expect((await listPods(api.client(ordinary.token))).status).to.equal(401);
    const ours = await mint('robot', { audiences: ['https://den.example'] });
    expect((await listPods(api.client(ours.token))).status).to.equal(403);
  });

  it('refuses a token whose ServiceAccount was deleted on a websocket upgrade (pods/exec) with the same 401', async () => {
    await createServiceAccount();
    await createPod('worker');
    const { token } = await mint('robot');
    await admin.delete(RESOURCES.serviceAccount, 'robot', NS);
    const ws = new WebSocket(`${api.url.replace(/^http/, 'ws')}/api/v1/namespaces/${NS}/pods/worker/exec?command=true`, ['v4.channel.k8s.io'], { headers: { Authorization: `Bearer ${token}` } });
    const refusal = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      ws.on('open', () => reject(new Error('the upgrade was accepted')));
      ws.on('error', () => undefined);
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
    });
    ws.terminate();
    expect(refusal.status).to.equal(401);
    expect(JSON.parse(refusal.body)).to.deep.equal(fixture('unauthorized-bad-token.json').body);
  });
});
