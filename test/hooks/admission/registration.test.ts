import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { secretData } from '../../../hooks/admission/certs.js';
import { runAdmission, type AdmissionHandle, type AdmissionOptions } from '../../../hooks/admission/index.js';
import { renderInstall } from '../../../infra/install/synth.js';
import { DEFAULT_SETTINGS } from '../../../infra/install/settings.js';
import { NAMESPACE, WEBHOOK_SERVICE } from '../../../contract/names.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { buildGoX509, type GoX509 } from '../../support/go-x509.js';
import { freePort } from '../../support/loopback.js';
import { BOB_TOKEN, installedCluster, MANAGER_TOKEN } from './cluster.js';
import { oldStyleMaterial } from './old-certs.js';
import { Registry } from 'prom-client';
import { AdmissionMetrics } from '../../../hooks/admission/metrics.js';

type Configuration = KubeObject & { webhooks: { name: string; clientConfig: Record<string, unknown> }[] };
type Kind = 'mutatingWebhookConfiguration' | 'validatingWebhookConfiguration';
const KINDS: Kind[] = ['mutatingWebhookConfiguration', 'validatingWebhookConfiguration'];
/** The longest a wrong clientConfig may stay in place (issue 10, 1b). */
const RESTORE_MS = 2_000;

/** The chart's own configuration, as `kubectl apply -f dist/` writes it: the Service, no caBundle. */
function chartConfiguration(kind: Kind): Configuration {
  const wanted = RESOURCES[kind].kind;
  return (renderInstall(DEFAULT_SETTINGS) as Configuration[]).find((o) => o.kind === wanted)!;
}

describe('webhook registration kept by the manager', function () {
  this.timeout(60_000);
  let api: FakeApiServer;
  let url: string;
  let stop: AbortController;
  let handle: AdmissionHandle | undefined;
  const logs: { msg: string; fields?: Record<string, unknown> }[] = [];

  function options(signal: AbortSignal, webhookUrl: string | undefined): AdmissionOptions {
    return {
      client: api.client(MANAGER_TOKEN),
      namespace: NAMESPACE,
      listen: { host: '127.0.0.1', port: Number(new URL(url).port) },
      webhookUrl,
      serviceName: WEBHOOK_SERVICE,
      gpuResource: 'nvidia.com/gpu',
      signal,
      log: (msg, fields) => logs.push({ msg, fields }),
      metrics: new AdmissionMetrics(new Registry()),
    };
  }

  /** Starts the manager's admission; only the watch can restore anything within a test (the periodic check waits a minute). */
  async function start(webhookUrl: string | undefined): Promise<AdmissionHandle> {
    stop = new AbortController();
    handle = await runAdmission(options(stop.signal, webhookUrl));
    return handle;
  }

  async function halt(): Promise<void> {
    stop.abort();
    await handle?.stopped;
    handle = undefined;
  }

  beforeEach(async () => {
    api = await installedCluster([]);
    url = `https://127.0.0.1:${await freePort()}`;
    logs.length = 0;
  });

  afterEach(async () => {
    await halt();
    await api.close();
  });

  const config = (kind: Kind) => api.object<Configuration>(RESOURCES[kind], 'den-webhooks')!;
  const secretCa = () => Buffer.from(api.object<{ data: Record<string, string> }>(RESOURCES.secret, 'den-webhook-tls', NAMESPACE)!.data['ca.crt']!, 'base64').toString('utf8');
  const serviceConfig = (path: string, caBundle: string) => ({ service: { namespace: NAMESPACE, name: WEBHOOK_SERVICE, path, port: 443 }, caBundle });
  const clientConfigs = (kind: Kind) => config(kind).webhooks.map((w) => w.clientConfig);
  const expectedServiceConfigs = (kind: Kind) => {
    const caBundle = Buffer.from(secretCa()).toString('base64');
    return chartConfiguration(kind).webhooks.map((w) => serviceConfig(String((w.clientConfig.service as { path: string }).path), caBundle));
  };

  /** Resolves with the milliseconds it took `condition` to hold, failing after `limitMs`. */
  async function within(limitMs: number, condition: () => boolean): Promise<number> {
    const started = Date.now();
    while (!condition()) {
      if (Date.now() - started > limitMs) throw new Error(`not restored within ${limitMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return Date.now() - started;
  }

  it('sets caBundle on the configurations the chart applied without one, with the Service as the chart names it', async () => {
    for (const kind of KINDS) expect(chartConfiguration(kind).webhooks.every((w) => w.clientConfig.caBundle === undefined)).to.equal(true);
    await start(undefined);
    for (const kind of KINDS) expect(clientConfigs(kind), kind).to.deep.equal(expectedServiceConfigs(kind));
  });

  it('registers within 2 s configurations the chart creates after the manager started', async () => {
    for (const kind of KINDS) api.remove(RESOURCES[kind], 'den-webhooks');
    await start(undefined);
    expect(logs.filter((l) => l.msg.startsWith('webhook configuration not found')).map((l) => l.fields?.kind)).to.deep.equal(['mutating', 'validating']);
    for (const kind of KINDS) {
      await api.client().create(RESOURCES[kind], chartConfiguration(kind));
      await within(RESTORE_MS, () => JSON.stringify(clientConfigs(kind)) === JSON.stringify(expectedServiceConfigs(kind)));
    }
  });

  it('puts caBundle back within 2 s after the chart is applied again over the registration', async () => {
    await start(undefined);
    for (const kind of KINDS) {
      const reapplied = { ...chartConfiguration(kind), metadata: { ...chartConfiguration(kind).metadata, resourceVersion: config(kind).metadata?.resourceVersion } };
      await api.client().replace(RESOURCES[kind], reapplied);
      expect(clientConfigs(kind)[0]!.caBundle, 'the re-apply emptied caBundle').to.equal(undefined);
      await within(RESTORE_MS, () => JSON.stringify(clientConfigs(kind)) === JSON.stringify(expectedServiceConfigs(kind)));
    }
    // The log line follows the write's answer, which may come after the stored object changed.
    const restored = () => logs.filter((l) => l.msg === 'webhook configuration restored').map((l) => l.fields?.kind);
    await within(10_000, () => restored().length >= 2);
    expect(restored()).to.deep.equal(['mutating', 'validating']);
  });

  it('puts its own caBundle and URL back within 2 s when another writer changes them', async () => {
    await start(url);
    const wanted = clientConfigs('validatingWebhookConfiguration');
    const rewritten = config('validatingWebhookConfiguration');
    rewritten.webhooks[1]!.clientConfig = { url: 'https://attacker.example.com/validate-userspace', caBundle: Buffer.from('not our CA').toString('base64') };
    await api.client().replace(RESOURCES.validatingWebhookConfiguration, rewritten);
    await within(RESTORE_MS, () => JSON.stringify(clientConfigs('validatingWebhookConfiguration')) === JSON.stringify(wanted));
    expect(wanted[1]).to.deep.equal({ url: `${url}/validate-userspace`, caBundle: Buffer.from(secretCa()).toString('base64') });
  });

  it('takes the webhooks over from a manager that ran outside the cluster: the URL gives way to the Service', async () => {
    await start(url);
    expect(clientConfigs('mutatingWebhookConfiguration')[0]!.url).to.equal(`${url}/mutate-workspace`);
    await halt();
    await start(undefined);
    for (const kind of KINDS) {
      expect(clientConfigs(kind), kind).to.deep.equal(expectedServiceConfigs(kind));
      for (const cc of clientConfigs(kind)) expect(cc).to.not.have.property('url');
    }
    // And back: a manager given --webhook-url again drops the Service.
    await halt();
    await start(url);
    for (const cc of clientConfigs('validatingWebhookConfiguration')) expect(Object.keys(cc).sort()).to.deep.equal(['caBundle', 'url']);
  });

  describe('with a CA an older Den stored', () => {
    let go: GoX509;
    before(function () {
      this.timeout(180_000);
      go = buildGoX509();
    });
    after(() => go?.dispose());

    it('replaces the CA and serving certificate Go refuses and registers the new bundle, with no hand step', async () => {
      const hosts = [`${WEBHOOK_SERVICE}.${NAMESPACE}.svc`, '127.0.0.1'];
      const old = oldStyleMaterial(new Date(), hosts);
      expect((await go.check(old.caBundle, old.cert, hosts)).ok, 'Go accepted the old CA').to.equal(false);
      api.seed({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name: 'den-webhook-tls', namespace: NAMESPACE }, data: secretData(old) } as KubeObject);
      // As an older manager left it: its CA registered, so the API server cannot call any webhook.
      const stale = config('validatingWebhookConfiguration');
      for (const wh of stale.webhooks) wh.clientConfig = { url: `${url}${String((wh.clientConfig.service as { path: string }).path)}`, caBundle: Buffer.from(old.caBundle).toString('base64') };
      api.seed(stale);
      const quota = { spec: { quota: { cpu: '5' } } };
      const refused = await api.client(BOB_TOKEN).patch(RESOURCES.userSpace, 'alice', quota).catch((e: Error) => e);
      expect(String((refused as Error).message)).to.equal(
        'Internal error occurred: failed calling webhook "vuserspace.den.dev": could not get REST client: unable to load root certificates: failed to parse certificate: x509: invalid RDNSequence: invalid attribute value: invalid PrintableString',
      );
      await start(url);
      await api.client(BOB_TOKEN).patch(RESOURCES.userSpace, 'alice', quota);
      const stored = api.object<{ data: Record<string, string> }>(RESOURCES.secret, 'den-webhook-tls', NAMESPACE)!.data;
      const text = (k: string) => Buffer.from(stored[k]!, 'base64').toString('utf8');
      expect(text('ca.crt')).to.not.contain(old.caBundle.split('\n')[1]);
      const verdict = await go.check(text('ca.crt'), text('tls.crt'), hosts);
      expect(verdict.lines).to.deep.equal(hosts.map((h) => `verify ${h}: ok`));
      for (const kind of KINDS) {
        for (const cc of clientConfigs(kind)) expect(Buffer.from(String(cc.caBundle), 'base64').toString('utf8')).to.equal(text('ca.crt'));
      }
      const logged = logs.find((l) => l.msg === 'webhook certificate');
      expect(logged?.fields?.action).to.equal('ca-replaced');
      expect(String((logged?.fields?.refused as string[])[0])).to.match(/invalid PrintableString/);
    });
  });
});
