// `den server` as a process role: settings, listening, readiness, graceful shutdown.
import { expect } from 'chai';
import { readSettings, SettingsError } from '../../../process/settings.js';
import { serverRole, serverSettings } from '../../../server/role.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { freePort, kubeconfigFile } from '../../support/loopback.js';
import { addPerson, SERVER_TOKEN, startCluster, until } from './cluster.js';

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof SettingsError) return err.message;
    throw err;
  }
  throw new Error('expected a SettingsError');
}

describe('den server (the role)', () => {
  let api: FakeApiServer;

  beforeEach(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
  });
  afterEach(() => api.close());

  it('reads the settings of docs/contracts.md with their defaults', () => {
    const s = readSettings(serverSettings, ['--base-url', 'https://den.example.com/'], {});
    expect(s).to.deep.equal({
      kubeconfig: '',
      namespace: 'svc-system',
      listen: { host: '0.0.0.0', port: 8080 },
      healthListen: { host: '0.0.0.0', port: 8081 },
      baseUrl: 'https://den.example.com',
      localAuth: true,
      tokenTtl: 600_000,
      gatewayPort: 22,
      gpuResource: 'nvidia.com/gpu',
      trustedProxies: [],
      identityProvidersFile: '',
      appsDomain: '',
      appsAllowPublicPorts: false,
    });
    expect(readSettings(serverSettings, ['--apps-domain', 'den-apps.example', '--apps-allow-public-ports'], { DEN_BASE_URL: 'http://x' }).appsAllowPublicPorts).to.equal(true);
    expect(readSettings(serverSettings, ['--apps-domain', 'Den-Apps.example'], { DEN_BASE_URL: 'http://x' }).appsDomain).to.equal('den-apps.example');
    expect(() => readSettings(serverSettings, ['--apps-domain', '*.apps.example'], { DEN_BASE_URL: 'http://x' })).to.throw("--apps-domain (DEN_APPS_DOMAIN): must be a DNS domain such as apps.den.example, got '*.apps.example'");
    expect(readSettings(serverSettings, [], { DEN_BASE_URL: 'http://x', DEN_LOCAL_AUTH: 'false', DEN_TOKEN_TTL: '1h' })).to.include({ localAuth: false, tokenTtl: 3_600_000 });
    expect(readSettings(serverSettings, ['--trusted-proxies', '10.0.0.0/8, 192.0.2.1'], { DEN_BASE_URL: 'http://x' }).trustedProxies).to.deep.equal(['10.0.0.0/8', '192.0.2.1']);
    expect(() => readSettings(serverSettings, [], { DEN_BASE_URL: 'http://x', DEN_TRUSTED_PROXIES: 'lb.example.com' })).to.throw("--trusted-proxies (DEN_TRUSTED_PROXIES): 'lb.example.com' is not an IP address or a CIDR range (such as 10.0.0.0/8)");
  });

  it('refuses a missing base URL, one with a path, and a token lifetime the API server would refuse', () => {
    expect(refusal(() => readSettings(serverSettings, [], {}))).to.match(/^--base-url \(DEN_BASE_URL\) is required/);
    for (const url of ['https://example.com/den', 'https://example.com/?x=1', 'https://user:pw@example.com']) {
      expect(refusal(() => readSettings(serverSettings, ['--base-url', url], {}))).to.equal(
        `--base-url (DEN_BASE_URL): must be an origin such as https://den.example.com, without a path, query or credentials (den server serves at the root), got '${url}'`,
      );
    }
    expect(refusal(() => readSettings(serverSettings, ['--base-url', 'http://x', '--token-ttl', '5m'], {}))).to.equal(
      "--token-ttl (DEN_TOKEN_TTL): must be at least 10m (the API server refuses shorter tokens), got '5m'",
    );
  });

  it('refuses to start with an apps domain under the host of its base URL, whose apps could set cookies Den receives', async () => {
    const settings = readSettings(serverSettings, ['--base-url', 'https://den.example.com', '--apps-domain', 'apps.den.example.com'], {});
    const failure = await serverRole.run(settings, new AbortController().signal).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(SettingsError);
    expect((failure as Error).message).to.equal("--apps-domain (DEN_APPS_DOMAIN): must not be under the host of --base-url (den.example.com): apps could set cookies on Den's host");
  });

  it('serves on --listen with its own kubeconfig identity, becomes ready, and stops on the signal', async () => {
    const port = await freePort();
    const settings = readSettings(serverSettings, ['--kubeconfig', kubeconfigFile(api.url, SERVER_TOKEN), '--listen', `127.0.0.1:${port}`, '--health-listen', '127.0.0.1:0', '--base-url', 'http://den.test'], {});
    const stop = new AbortController();
    const stderr = process.stderr.write;
    const logged: string[] = [];
    process.stderr.write = ((chunk: string) => logged.push(String(chunk)) > 0) as typeof process.stderr.write;
    let running: Promise<void>;
    try {
      running = serverRole.run(settings, stop.signal);
      const base = `http://127.0.0.1:${port}`;
      await until(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, 'readiness', 5000);
      const login = await fetch(`${base}/api/v1/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'alice-password' }) });
      expect(login.status).to.equal(204);
      stop.abort();
      await running;
    } finally {
      process.stderr.write = stderr;
    }
    const messages = logged.map((l) => JSON.parse(l) as { role: string; msg: string });
    expect(messages.map((m) => m.msg)).to.include.members(['caches synced', 'listening', 'shutting down', 'stopped']);
    expect(messages.every((m) => m.role === 'server')).to.equal(true);
    expect(logged.join('')).to.not.contain('alice-password');
    const after = await fetch(`http://127.0.0.1:${port}/healthz`).then(() => 'answered', () => 'refused');
    expect(after).to.equal('refused');
  });
});
