import { expect } from 'chai';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { KubeObject } from '../../../kube/client.js';
import { KubeApiError } from '../../../kube/errors.js';
import { RESOURCES } from '../../../kube/resources.js';
import { splitPem } from '../../../hooks/admission/certs.js';
import { runAdmission, startAdmission, type AdmissionHandle, type AdmissionOptions } from '../../../hooks/admission/index.js';
import { ensureWebhookTls } from '../../../hooks/admission/tls-secret.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { fixture } from '../../support/fixtures.js';
import { freePort } from '../../support/loopback.js';
import { ALICE_TOKEN, BOB_TOKEN, installedCluster, MANAGER_TOKEN, MANAGER_USER, post } from './cluster.js';
import { generateTestKeys, type TestKeys } from './keys.js';
import { reviewOf } from './reviews.js';
import { workspace } from './world.js';
import { Registry } from 'prom-client';
import { AdmissionMetrics } from '../../../hooks/admission/metrics.js';

const DAY = 24 * 60 * 60 * 1000;

describe('admission webhooks over HTTPS, registered in the fake API server', function () {
  this.timeout(30_000);
  let keys: TestKeys;
  let api: FakeApiServer;
  let port: number;
  let url: string;
  let stop: AbortController;
  let handle: AdmissionHandle;
  const logs: { msg: string; fields?: Record<string, unknown> }[] = [];

  before(() => {
    keys = generateTestKeys();
  });

  /** The options `den manager` passes, logging into `logs`. */
  function options(signal: AbortSignal): AdmissionOptions {
    return {
      client: api.client(MANAGER_TOKEN),
      namespace: 'svc-system',
      listen: { host: '127.0.0.1', port },
      webhookUrl: url,
      serviceName: 'den-manager-webhook',
      gpuResource: 'nvidia.com/gpu',
      metrics: new AdmissionMetrics(new Registry()),
      signal,
      log: (msg, fields) => logs.push({ msg, fields }),
    };
  }

  async function start(tuning: Parameters<typeof runAdmission>[1] = {}): Promise<AdmissionHandle> {
    stop = new AbortController();
    return runAdmission(options(stop.signal), tuning);
  }

  beforeEach(async () => {
    api = await installedCluster([keys.ed25519]);
    port = await freePort();
    url = `https://127.0.0.1:${port}`;
    logs.length = 0;
    handle = await start();
  });

  afterEach(async () => {
    stop?.abort();
    await handle.stopped;
    await api.close();
  });

  const secret = () => api.object<{ data: Record<string, string>; metadata: { resourceVersion: string } }>(RESOURCES.secret, 'den-webhook-tls', 'svc-system')!;
  type Configuration = KubeObject & { webhooks: { name: string; clientConfig: Record<string, unknown> }[] };
  const config = (kind: 'mutatingWebhookConfiguration' | 'validatingWebhookConfiguration') => api.object<Configuration>(RESOURCES[kind], 'den-webhooks')!;
  const caOf = () => Buffer.from(secret().data['ca.crt']!, 'base64').toString('utf8');
  const alice = () => api.client(ALICE_TOKEN);

  async function refusal(promise: Promise<unknown>): Promise<KubeApiError> {
    const err = await promise.then(() => undefined, (e: unknown) => e);
    expect(err, 'the API server accepted the request').to.be.instanceOf(KubeApiError);
    return err as KubeApiError;
  }

  it('stores its CA and serving certificate in den-webhook-tls and registers both configurations at --webhook-url', () => {
    expect(handle.ready()).to.equal(true);
    const data = secret().data;
    expect(Object.keys(data).sort()).to.deep.equal(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    const caBundle = Buffer.from(caOf()).toString('base64');
    expect(config('mutatingWebhookConfiguration').webhooks.map((w) => [w.name, w.clientConfig])).to.deep.equal([
      ['mworkspace.den.dev', { url: `${url}/mutate-workspace`, caBundle }],
    ]);
    expect(config('validatingWebhookConfiguration').webhooks.map((w) => [w.name, w.clientConfig])).to.deep.equal([
      ['vworkspace.den.dev', { url: `${url}/validate-workspace`, caBundle }],
      ['vuserspace.den.dev', { url: `${url}/validate-userspace`, caBundle }],
      ['vimageregistry.den.dev', { url: `${url}/validate-imageregistry`, caBundle }],
      ['vworkspaceimage.den.dev', { url: `${url}/validate-workspaceimage`, caBundle }],
    ]);
    const served = new X509Certificate(Buffer.from(data['tls.crt']!, 'base64'));
    expect(served.checkIP('127.0.0.1')).to.equal('127.0.0.1');
    expect(served.checkHost('den-manager-webhook.svc-system.svc')).to.equal('den-manager-webhook.svc-system.svc');
  });

  it('resolves startAdmission, as the manager calls it, and stops on the signal', async () => {
    stop.abort();
    await handle.stopped;
    const signal = new AbortController();
    const started = await startAdmission(options(signal.signal));
    expect(started.ready()).to.equal(true);
    const answered = await post(`${url}/validate-workspace`, caOf(), JSON.stringify(reviewOf({ kind: 'Workspace', object: workspace('dev', { running: false }) })));
    expect(answered.json.response.allowed).to.equal(true);
    signal.abort();
    await waitFor(() => !started.ready());
    // The listener closes once in-flight reviews end: a review is refused from then on.
    await waitFor(() => post(`${url}/validate-workspace`, caOf(), '{}').then(() => false, () => true));
    handle = await start();
  });

  it('mutates a Workspace created by alice: her UserSpace keys and her name as requester', async () => {
    const created = await alice().create<KubeObject & { spec: { sshAuthorizedKeys: string[]; running: boolean } }>(RESOURCES.workspace, { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev' }, spec: { imageRef: { name: 'python' }, storage: '10Gi' } }, 'svc-alice');
    expect(created.spec.sshAuthorizedKeys).to.deep.equal([keys.ed25519]);
    expect(created.spec.running).to.equal(true);
    expect(created.metadata?.annotations).to.deep.equal({ 'den.dev/requester': 'alice@example.com' });
    expect(api.object<typeof created>(RESOURCES.workspace, 'dev', 'svc-alice')?.metadata?.annotations?.['den.dev/requester']).to.equal('alice@example.com');
  });

  it('refuses a malformed SSH key with the message the API server builds around ours', async () => {
    const err = await refusal(alice().create(RESOURCES.workspace, { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev' }, spec: { imageRef: { name: 'python' }, storage: '10Gi', sshAuthorizedKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG5vdCBhIGtleSBhdCBhbGw='] } } as KubeObject, 'svc-alice'));
    const recorded = fixture('webhook-denied.json').body;
    expect(err.status).to.equal(recorded.code);
    expect(err.body.reason).to.equal(recorded.reason);
    expect(err.message).to.equal(`${recorded.message}: the key blob is corrupt`);
    expect(api.object(RESOURCES.workspace, 'dev', 'svc-alice')).to.equal(undefined);
  });

  it('refuses a resize over quota on update with 403 Forbidden and the figures', async () => {
    await alice().create(RESOURCES.workspace, { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev' }, spec: { imageRef: { name: 'python' }, storage: '10Gi', resources: { requests: { cpu: '2' }, limits: { cpu: '2' } } } } as KubeObject, 'svc-alice');
    const err = await refusal(alice().patch(RESOURCES.workspace, 'dev', { spec: { resources: { requests: { cpu: '5' }, limits: { cpu: '5' } } } }, { namespace: 'svc-alice' }));
    expect(err.status).to.equal(403);
    expect(err.body.reason).to.equal('Forbidden');
    expect(err.message).to.equal('admission webhook "vworkspace.den.dev" denied the request: spec.resources.requests.cpu: exceeded quota of UserSpace "alice" (spec.quota.cpu): requested 5, used 0, limited 4');
    // The cause, which the API server passes on, says it in the person's words, with what to do.
    expect(err.body.details?.causes).to.deep.equal([
      {
        reason: 'FieldValueForbidden',
        field: 'spec.resources.requests.cpu',
        message: 'This needs 5 of CPU, but your space has 4 left of 4: ask for less, stop a workspace you are not using, or ask an administrator for a larger quota.',
      },
    ]);
  });

  it('lets alice save her SSH keys but not her quota, and lets an administrator change the quota', async () => {
    await alice().patch(RESOURCES.userSpace, 'alice', { spec: { sshAuthorizedKeys: [keys.rsa] } });
    const err = await refusal(alice().patch(RESOURCES.userSpace, 'alice', { spec: { quota: { cpu: '64' } } }));
    expect(err.status).to.equal(422);
    expect(err.message).to.equal('admission webhook "vuserspace.den.dev" denied the request: spec.quota.cpu: only an administrator may change this field (it is "4", the update asks for "64"); alice@example.com may change spec.sshAuthorizedKeys only');
    await api.client(BOB_TOKEN).patch(RESOURCES.userSpace, 'alice', { spec: { quota: { cpu: '64' } } });
    const stored = api.object<{ spec: { quota: { cpu: string }; sshAuthorizedKeys: string[] } }>(RESOURCES.userSpace, 'alice')!;
    expect(stored.spec.quota.cpu).to.equal('64');
    expect(stored.spec.sshAuthorizedKeys).to.deep.equal([keys.rsa]);
    const reviews = api.requests.filter((r) => r.path === '/apis/authorization.k8s.io/v1/subjectaccessreviews');
    expect(reviews.map((r) => r.user)).to.deep.equal([MANAGER_USER, MANAGER_USER]);
  });

  it('refuses an ImageRegistry whose pattern RE2 refuses, naming the field, and stores nothing', async () => {
    const registry = (include: string[]) => ({ apiVersion: 'den.dev/v1alpha1', kind: 'ImageRegistry', metadata: { name: 'ecr' }, spec: { provider: 'cloud-registry', cloud: { region: 'eu-west-1' }, sync: { include } } }) as KubeObject;
    const err = await refusal(api.client(BOB_TOKEN).create(RESOURCES.imageRegistry, registry(['^team/', '(?=lookahead)'])));
    expect(err.status).to.equal(422);
    expect(err.message).to.match(/^admission webhook "vimageregistry\.den\.dev" denied the request: spec\.sync\.include\[1\]: is not a valid RE2 pattern: /);
    expect(api.object(RESOURCES.imageRegistry, 'ecr')).to.equal(undefined);
    await api.client(BOB_TOKEN).create(RESOURCES.imageRegistry, registry(['^team/']));
    const update = await refusal(api.client(BOB_TOKEN).patch(RESOURCES.imageRegistry, 'ecr', { spec: { sync: { tags: { mode: 'pattern', patterns: ['(a)\\1'] } } } }));
    expect(update.message).to.contain('spec.sync.tags.patterns[0]: is not a valid RE2 pattern');
  });

  it('answers admissions from its caches, and reads what a refusal rests on from the API server once before refusing', async () => {
    let mark = api.requests.length;
    const reads = () => api.requests.slice(mark).filter((r) => r.user === MANAGER_USER && (r.verb === 'list' || r.verb === 'get')).map((r) => `${r.verb} ${r.path}`).sort();
    await alice().create(RESOURCES.workspace, { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev' }, spec: { imageRef: { name: 'python' }, storage: '10Gi' } } as KubeObject, 'svc-alice');
    for (let i = 0; i < 5; i++) {
      await alice().patch(RESOURCES.workspace, 'dev', { spec: { running: i % 2 === 0 ? false : true } }, { namespace: 'svc-alice' });
    }
    expect(reads(), 'reads for six admissions').to.deep.equal([]);
    mark = api.requests.length;
    await refusal(alice().create(RESOURCES.workspace, { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'big' }, spec: { imageRef: { name: 'python' }, storage: '45Gi' } } as KubeObject, 'svc-alice'));
    expect(reads(), 'reads for one refusal').to.deep.equal([
      'get /apis/den.dev/v1alpha1/userspaces/alice',
      'get /apis/den.dev/v1alpha1/workspaceimages/python',
      'list /api/v1/namespaces/svc-alice/persistentvolumeclaims',
      'list /apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces',
    ]);
  });

  it('sees a Workspace created a moment ago when counting quota', async () => {
    const body = (name: string) => ({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name }, spec: { imageRef: { name: 'python' }, storage: '30Gi' } }) as KubeObject;
    await alice().create(RESOURCES.workspace, body('one'), 'svc-alice');
    // The cache follows the watch stream; a dry run shows when it has caught up.
    await waitFor(() => alice().create(RESOURCES.workspace, body('two'), 'svc-alice', { dryRun: 'All' }).then(() => false, () => true));
    const err = await refusal(alice().create(RESOURCES.workspace, body('two'), 'svc-alice'));
    expect(err.message).to.equal('admission webhook "vworkspace.den.dev" denied the request: spec.storage: exceeded quota of UserSpace "alice" (spec.quota.storage): requested 30Gi, used 30Gi, limited 50Gi');
  });

  /** A recorded review with some of its request's fields replaced. */
  const withRequest = (fields: Record<string, unknown>) => {
    const review = reviewOf({ kind: 'Workspace', object: workspace('dev', { running: false }) });
    return { ...review, request: { ...review.request, ...fields } };
  };

  it('answers 400 to bodies that are not AdmissionReviews and keeps serving', async () => {
    const ca = caOf();
    const cases: [string | Buffer, string | undefined, number, RegExp][] = [
      ['not json at all', undefined, 400, /request body is not valid JSON/],
      ['[]', undefined, 400, /the body must be an AdmissionReview object/],
      ['{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}', undefined, 400, /request is required/],
      [JSON.stringify({ ...reviewOf({ kind: 'Workspace', object: workspace('dev') }), apiVersion: 'admission.k8s.io/v1beta1' }), undefined, 400, /apiVersion must be admission\.k8s\.io\/v1/],
      ['{"request":{"uid":7}}', undefined, 400, /request\.uid/],
      [JSON.stringify(withRequest({ object: 'a string' })), undefined, 400, /^not an AdmissionReview: request\.object must be an object or null$/],
      [JSON.stringify(withRequest({ kind: 'Workspace' })), undefined, 400, /request\.kind must be a `object` type/],
      [JSON.stringify(withRequest({ userInfo: { username: 'x', groups: 'admins' } })), undefined, 400, /request\.userInfo\.groups/],
      ['null', undefined, 400, /the body must be an AdmissionReview object/],
      ['<xml/>', 'text/xml', 415, /must be JSON/],
    ];
    for (const [body, contentType, status, message] of cases) {
      const res = await post(`${url}/validate-workspace`, ca, body, { contentType });
      expect(res.status, String(body)).to.equal(status);
      expect(res.json.error).to.match(message);
    }
    const huge = await post(`${url}/validate-workspace`, ca, Buffer.alloc(5 * 1024 * 1024, 0x20));
    expect(huge.status).to.equal(413);
    expect((await post(`${url}/elsewhere`, ca, '{}')).status).to.equal(404);
    expect((await post(`${url}/validate-workspace`, ca, '', { method: 'GET' })).status).to.equal(405);
    const ok = await post(`${url}/validate-workspace`, ca, JSON.stringify(reviewOf({ kind: 'Workspace', object: workspace('dev', { running: false }) })));
    expect(ok.status).to.equal(200);
    expect(ok.json).to.deep.equal({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: '97b721a1-1f3f-436d-aa64-6a39322aab2e', allowed: true } });
  });

  it('refuses, with the reason, when the administrator check cannot reach the cluster', async () => {
    api.failNext('POST', /subjectaccessreviews/, 503, { message: 'etcd is down' });
    const err = await refusal(alice().patch(RESOURCES.userSpace, 'alice', { spec: { networkPolicy: 'ClusterEgress' } }));
    expect(err.status).to.equal(500);
    expect(err.message).to.equal('admission webhook "vuserspace.den.dev" denied the request: could not decide: etcd is down; retry shortly');
  });

  it('reuses the stored certificate after a restart', async () => {
    const before = secret();
    stop.abort();
    await handle.stopped;
    handle = await start();
    expect(secret().metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
    expect(await servedCertificate(port)).to.equal(new X509Certificate(Buffer.from(before.data['tls.crt']!, 'base64')).fingerprint256);
  });

  it('lets racing replicas agree on one certificate', async () => {
    api.remove(RESOURCES.secret, 'den-webhook-tls', 'svc-system');
    const mark = api.requests.length;
    const hosts = ['den-manager-webhook.svc-system.svc'];
    const [a, b] = await Promise.all([0, 1].map(() => ensureWebhookTls({ client: api.client(MANAGER_TOKEN), namespace: 'svc-system', hosts, now: new Date() })));
    expect(a!.material).to.deep.equal(b!.material);
    const stored = Buffer.from(secret().data['tls.crt']!, 'base64').toString('utf8');
    expect(stored).to.equal(a!.material.cert);
    const creates = api.requests.slice(mark).filter((r) => r.verb === 'create' && r.path.endsWith('/secrets'));
    expect(creates.length).to.equal(2);
    expect(api.objects(RESOURCES.secret, 'svc-system').filter((o) => o.metadata?.name === 'den-webhook-tls')).to.have.length(1);
  });

  it('rotates the serving certificate before it expires and serves the new one without a restart', async () => {
    stop.abort();
    await handle.stopped;
    // The clock starts 86 days ago so that the last step, the CA rotation, lands on today: the
    // API server checks the new certificate against the real clock.
    let now = new Date(Date.now() - 86 * DAY);
    const policy = { caValidityDays: 100, caRenewBeforeDays: 20, servingValidityDays: 30, servingRenewBeforeDays: 5 };
    api.remove(RESOURCES.secret, 'den-webhook-tls', 'svc-system');
    handle = await start({ certPolicy: policy, checkIntervalMs: 50, now: () => now });
    const first = await servedCertificate(port);
    now = new Date(now.getTime() + 26 * DAY);
    await waitFor(async () => (await servedCertificate(port)) !== first);
    expect(splitPem(caOf())).to.have.length(1);
    const servedBeforeCaRotation = Buffer.from(secret().data['tls.crt']!, 'base64').toString('utf8');

    now = new Date();
    await waitFor(() => splitPem(caOf()).length === 2);
    const registeredBundle = () => Buffer.from(String(config('validatingWebhookConfiguration').webhooks[0]!.clientConfig.caBundle), 'base64').toString('utf8');
    await waitFor(() => registeredBundle() === caOf());
    const [newCa, oldCa] = splitPem(registeredBundle()).map((pem) => new X509Certificate(pem));
    // Another replica may still serve the previous certificate: the old CA stays trusted meanwhile.
    expect(new X509Certificate(servedBeforeCaRotation).checkIssued(oldCa!)).to.equal(true);
    expect(new X509Certificate(servedBeforeCaRotation).checkIssued(newCa!)).to.equal(false);
    const current = () => new X509Certificate(Buffer.from(secret().data['tls.crt']!, 'base64')).fingerprint256;
    await waitFor(async () => (await servedCertificate(port)) === current());
    // The API server trusts the certificate issued by the new CA: a create goes through both webhooks.
    const created = await alice().create<KubeObject>(RESOURCES.workspace, { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev' }, spec: { imageRef: { name: 'python' }, storage: '10Gi' } } as KubeObject, 'svc-alice');
    expect(created.metadata?.annotations?.['den.dev/requester']).to.equal('alice@example.com');
  });

  it('never logs the certificate Secret, its keys, or a private key pasted as an SSH key', async () => {
    stop.abort();
    await handle.stopped;
    // Every certificate action is logged: created, then re-issued for a moved --webhook-url, then reloaded.
    api.remove(RESOURCES.secret, 'den-webhook-tls', 'svc-system');
    handle = await start({ checkIntervalMs: 50 });
    const firstCert = secret().data['tls.crt'];
    const moved = url.replace('127.0.0.1', 'localhost');
    stop.abort();
    await handle.stopped;
    stop = new AbortController();
    handle = await runAdmission({ ...options(stop.signal), webhookUrl: moved }, { checkIntervalMs: 50 });
    expect(secret().data['tls.crt']).to.not.equal(firstCert);
    // The CRD schema stops a private key before admission; a review posted directly still must not echo it.
    const pasted = await post(`${moved}/validate-workspace`, caOf(), JSON.stringify(reviewOf({ kind: 'Workspace', object: workspace('dev', { sshAuthorizedKeys: [keys.ed25519Private] }) })));
    expect(pasted.json.response.status.message).to.equal('spec.sshAuthorizedKeys[0]: not a valid SSH public key: is a private key; paste the public key (the .pub file) instead');

    const logged = JSON.stringify(logs);
    expect(logs.map((l) => l.msg)).to.include('webhook certificate');
    const material = Object.values(secret().data).flatMap((b64) => [b64, ...Buffer.from(b64, 'base64').toString('utf8').split('\n').filter((line) => line.length > 20)]);
    for (const piece of [...material, firstCert!, 'PRIVATE KEY', 'BEGIN CERTIFICATE', keys.ed25519Private.split('\n')[1]!]) {
      expect(logged, 'a log line carries secret material').to.not.contain(piece);
    }
  });

  it('puts caBundle back when a re-applied chart wiped it', async () => {
    stop.abort();
    await handle.stopped;
    handle = await start({ checkIntervalMs: 50 });
    const wiped = config('mutatingWebhookConfiguration');
    wiped.webhooks[0]!.clientConfig = { service: { namespace: 'svc-system', name: 'den-manager-webhook', path: '/mutate-workspace', port: 443 } };
    await api.client().replace(RESOURCES.mutatingWebhookConfiguration, wiped);
    await waitFor(() => config('mutatingWebhookConfiguration').webhooks[0]!.clientConfig.url === `${url}/mutate-workspace`);
    expect(config('mutatingWebhookConfiguration').webhooks[0]!.clientConfig.caBundle).to.equal(Buffer.from(caOf()).toString('base64'));
  });
});

/** SHA-256 fingerprint of the certificate the server presents now. */
function servedCertificate(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const cert = socket.getPeerX509Certificate();
      socket.end();
      if (!cert) reject(new Error('no certificate presented'));
      else resolve(cert.fingerprint256);
    });
    socket.on('error', reject);
  });
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
