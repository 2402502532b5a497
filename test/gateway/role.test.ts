// `den gateway` as a whole: settings, kubeconfig, generated host key, health endpoints,
// a real ssh session, and shutdown on the signal.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSettings } from '../../process/settings.js';
import { ROLES } from '../../cli/roles.js';
import { gatewayRole } from '../../gateway/role.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { FakeExec } from '../support/fake-exec.js';
import { freePort, kubeconfigYaml } from '../support/loopback.js';
import { GATEWAY_TOKEN, GatewayHarness, makeKey, pod, prepareCluster, workspace } from './harness.js';

function get(port: number, path: string): Promise<number> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', () => resolve(0));
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('den gateway role', function () {
  this.timeout(30_000);
  let api: FakeApiServer;
  let fake: FakeExec;
  let dir: string;
  // The harness only supplies the OpenSSH runner here; its own gateway is not started.
  const ssh = new GatewayHarness();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'den-gw-role-'));
    api = new FakeApiServer();
    await api.start();
    prepareCluster(api, dir);
    fake = new FakeExec({ cwd: dir });
    fake.attachTo(api);
  });
  afterEach(async () => {
    await fake.close();
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is registered as `den gateway`', async () => {
    const role = await ROLES.gateway!();
    expect(role.summary).to.equal(gatewayRole.summary);
    expect(Object.keys(role.settings)).to.deep.equal(['kubeconfig', 'namespace', 'listen', 'healthListen', 'tokenTtl', 'hostKeyFile', 'keepaliveInterval', 'loginGraceTime', 'maxStartups', 'maxStartupsPerSource', 'proxyProtocolFrom', 'maxAuthTries']);
  });

  it('refuses a keepalive interval under a second, naming the setting', () => {
    expect(() => readSettings(gatewayRole.settings, ['--keepalive-interval', '0'], {})).to.throw("--keepalive-interval (DEN_KEEPALIVE_INTERVAL): expected at least 1s, got '0'");
    expect(readSettings(gatewayRole.settings, [], { DEN_KEEPALIVE_INTERVAL: '15s' }).keepaliveInterval).to.equal(15_000);
  });

  it('reads the limits before authentication, refusing values out of range by name', () => {
    const limits = (argv: string[], env: Record<string, string>) => {
      const s = readSettings(gatewayRole.settings, argv, env);
      return { grace: s.loginGraceTime, startups: s.maxStartups, perSource: s.maxStartupsPerSource, tries: s.maxAuthTries, proxies: s.proxyProtocolFrom };
    };
    expect(limits([], {})).to.deep.equal({ grace: 30_000, startups: { start: 100, rate: 30, full: 300 }, perSource: undefined, tries: 6, proxies: [] });
    expect(limits(['--login-grace-time', '10s', '--max-startups', '10:30:100'], { DEN_MAX_STARTUPS_PER_SOURCE: '3', DEN_MAX_AUTH_TRIES: '4', DEN_PROXY_PROTOCOL_FROM: '10.0.0.0/8, 192.0.2.1' })).to.deep.equal({
      grace: 10_000,
      startups: { start: 10, rate: 30, full: 100 },
      perSource: 3,
      tries: 4,
      proxies: ['10.0.0.0/8', '192.0.2.1'],
    });
    expect(limits(['--max-startups', '50', '--max-startups-per-source', 'none'], {})).to.deep.include({ startups: { start: 50, rate: 100, full: 50 }, perSource: undefined });
    expect(() => limits([], { DEN_PROXY_PROTOCOL_FROM: '10.0.0.0/33' })).to.throw("--proxy-protocol-from (DEN_PROXY_PROTOCOL_FROM): '10.0.0.0/33' is not an IP address or a CIDR range (such as 10.0.0.0/8)");
    expect(() => limits(['--login-grace-time', '500ms'], {})).to.throw("--login-grace-time (DEN_LOGIN_GRACE_TIME): expected at least 1s, got '500ms'");
    expect(() => limits([], { DEN_MAX_STARTUPS: '0' })).to.throw("--max-startups (DEN_MAX_STARTUPS): expected a whole number from 1 to 1000000, got '0'");
    expect(() => limits(['--max-startups-per-source', 'ten'], {})).to.throw("--max-startups-per-source (DEN_MAX_STARTUPS_PER_SOURCE): expected none or a whole number from 1 to 1000000, got 'ten'");
    expect(() => limits(['--max-auth-tries', '101'], {})).to.throw("--max-auth-tries (DEN_MAX_AUTH_TRIES): expected a whole number from 1 to 100, got '101'");
  });

  it('serves SSH with a generated, kept host key, reports readiness, and stops on the signal', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, kubeconfigYaml(api.url, 'gateway', GATEWAY_TOKEN));
    const [sshPort, healthPort] = [await freePort(), await freePort()];
    const hostKeyFile = join(dir, 'keys', 'ssh_host_ed25519_key');
    const settings = readSettings(
      gatewayRole.settings,
      ['--kubeconfig', kubeconfig, '--listen', `127.0.0.1:${sshPort}`, '--health-listen', `127.0.0.1:${healthPort}`, '--host-key-file', hostKeyFile, '--keepalive-interval', '5s', '--max-auth-tries', '2'],
      {},
    );
    const alice = await makeKey(dir, 'alice');
    api.seed(workspace('demo', [alice.publicKey]), pod('demo-0', 'demo'));

    const stop = new AbortController();
    let failure: unknown;
    const running = gatewayRole.run(settings, stop.signal).catch((err: unknown) => (failure = err));
    await waitFor(async () => failure !== undefined || (await get(healthPort, '/readyz')) === 200);
    expect(failure).to.equal(undefined);
    expect(await get(healthPort, '/healthz')).to.equal(200);
    expect(await get(healthPort, '/other')).to.equal(404);

    // Strict host key checking against the generated key's .pub proves the server uses that key.
    const knownHosts = join(dir, 'known_hosts');
    const publicKey = (await readFile(`${hostKeyFile}.pub`, 'utf8')).trim();
    await writeFile(knownHosts, `[127.0.0.1]:${sshPort} ${publicKey}\n`);
    const args = ['-F', '/dev/null', '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${knownHosts}`, '-i', alice.file, '-p', String(sshPort), 'demo@127.0.0.1', 'echo hello from $(pwd)'];
    const r = await ssh.command('ssh', args);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal(`hello from ${dir}\n`);

    const strangers = [await makeKey(dir, 'stranger1'), await makeKey(dir, 'stranger2')];
    const tooMany = await ssh.command('ssh', [...args.slice(0, args.indexOf('-i')), '-i', strangers[0]!.file, '-i', strangers[1]!.file, ...args.slice(args.indexOf('-i') + 2)]);
    expect(tooMany.code).to.equal(255);
    expect(tooMany.stderr).to.contain('Too many authentication failures');

    stop.abort();
    await running;
    expect(await get(healthPort, '/healthz')).to.equal(0);
    const refused = await ssh.command('ssh', args);
    expect(refused.code).to.equal(255);
    expect(refused.stderr).to.contain('Connection refused');
  });
});
