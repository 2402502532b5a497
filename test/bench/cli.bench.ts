// Start-up of a developer command: `den ls` (bin/den.js, as a developer runs it from the
// package) against `kubectl get --raw` of the same Workspaces (through a TLS relay: kubectl
// sends a token only over TLS) on the same machine, and the floor
// under both: a bare `node -e` making the same REST call with fetch, and `curl` making it.
// Every command is a fresh process, run in turn several times; figures are wall-clock ms.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '../../kube/client.js';
import { addPerson, startCluster, startDen } from '../server/core/cluster.js';
import { freePort, kubeconfigYaml } from '../support/loopback.js';
import { REPO_ROOT, runCommand } from '../support/platform.js';
import { median } from './stats.js';

const execFileAsync = promisify(execFile);

async function onPath(program: string): Promise<boolean> {
  try {
    await execFileAsync('sh', ['-c', `command -v ${program}`]);
    return true;
  } catch {
    return false;
  }
}

export const repetitions = 1;
const RUNS = 9;

function workspace(name: string): KubeObject {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'Workspace',
    metadata: { name, namespace: 'svc-alice', creationTimestamp: new Date().toISOString() },
    spec: { imageRef: { name: 'ubuntu' }, running: true, storage: '10Gi', sshAuthorizedKeys: ['ssh-ed25519 AAAA x'] },
    status: { phase: 'Running', endpoint: `${name}@ssh.den.test` },
  };
}

/** Wall-clock ms of one run (spawned asynchronously: the server it calls lives in this process). */
async function timed(file: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<number> {
  const started = performance.now();
  const run = await runCommand(file, args, { env, stdin: input, timeoutMs: 60_000 });
  const ms = performance.now() - started;
  if (run.code !== 0) throw new Error(`${file} ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return ms;
}

/** TLS on a loopback port, each connection piped to `target` in plain TCP; a throw-away self-signed certificate. */
async function tlsRelay(dir: string, target: number): Promise<{ port: number; close(): void }> {
  const key = join(dir, 'relay.key');
  const cert = join(dir, 'relay.crt');
  await execFileAsync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-days', '1', '-keyout', key, '-out', cert]);
  const server = createTlsServer({ key: await readFile(key), cert: await readFile(cert) }, (client) => {
    const upstream = connect(target, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

const fmt = (ms: number) => ms.toFixed(0);

export async function run(): Promise<string> {
  const api = await startCluster();
  await addPerson(api, 'alice');
  api.seed(...['dev', 'notes', 'web', 'data', 'ml'].map(workspace));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startDen(api, { baseUrl: base, port });
  const home = await mkdtemp(join(tmpdir(), 'den-bench-cli-'));
  let relay: { port: number; close(): void } | undefined;
  try {
    const login = await fetch(`${base}/api/v1/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'alice-password' }) });
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const issued = await fetch(`${base}/api/v1/tokens`, { method: 'POST', headers: { Cookie: cookie, 'X-CSRF-Token': login.headers.get('x-csrf-token')! } });
    const token = ((await issued.json()) as { token: string }).token;
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, 'xdg') };
    const denBin = join(REPO_ROOT, 'bin/den.js');
    await timed(process.execPath, [denBin, 'login', base, '--token-stdin'], env, token);
    // kubectl sends a bearer token only over TLS: a TLS relay in front of the fake API server.
    relay = await tlsRelay(home, Number(new URL(api.url).port));
    const kubeconfig = join(home, 'kubeconfig');
    await writeFile(kubeconfig, kubeconfigYaml(`https://127.0.0.1:${relay.port}`, 'cluster-admin', api.adminToken).replace('insecure-skip-tls-verify: false', 'insecure-skip-tls-verify: true'));
    const url = `${base}/api/v1/workspaces`;
    const commands: { name: string; file: string; args: string[] }[] = [
      { name: '`den ls` (bin/den.js through tsx)', file: process.execPath, args: [denBin, 'ls'] },
      // `--raw`: the fake API server serves no discovery documents, which a plain `kubectl get` reads first (from its cache once warm).
      { name: '`kubectl get --raw` of the Workspaces', file: 'kubectl', args: ['--kubeconfig', kubeconfig, 'get', '--raw', '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces'] },
      { name: '`node -e` fetch of GET /api/v1/workspaces', file: process.execPath, args: ['-e', `fetch(${JSON.stringify(url)}, { headers: { Authorization: 'Bearer ${token}' } }).then((r) => r.text()).then((t) => process.stdout.write(t))`] },
      { name: '`curl` of GET /api/v1/workspaces', file: 'curl', args: ['-sf', '-H', `Authorization: Bearer ${token}`, url] },
    ];
    // A machine without kubectl still measures the other rows, and says which one it left out.
    const kubectlMissing = !(await onPath('kubectl'));
    if (kubectlMissing) commands.splice(1, 1);
    // One warm-up each (tsx's transform cache, kubectl's discovery cache), then the runs interleaved.
    for (const c of commands) await timed(c.file, c.args, env);
    const times = new Map(commands.map((c) => [c.name, [] as number[]]));
    for (let i = 0; i < RUNS; i++) for (const c of commands) times.get(c.name)!.push(await timed(c.file, c.args, env));
    const denMedian = median(times.get(commands[0]!.name)!);
    const rows = commands.map((c) => {
      const t = [...times.get(c.name)!].sort((a, b) => a - b);
      return `| ${c.name} | ${fmt(median(t))} | ${fmt(t[0]!)}–${fmt(t[t.length - 1]!)} | ${(median(t) / denMedian).toFixed(2)}× |`;
    });
    return [`${RUNS} runs each, interleaved, after one warm-up; 5 workspaces; wall-clock ms per command, a new process each time.${kubectlMissing ? ' No kubectl on this machine: its row is left out.' : ''}`, '', '| command | median ms | min–max ms | vs. den ls |', '|---|---:|---:|---:|', ...rows].join('\n');
  } finally {
    relay?.close();
    await rm(home, { recursive: true, force: true });
    await server.close();
    await api.close();
  }
}
