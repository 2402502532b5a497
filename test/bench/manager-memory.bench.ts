// What the memory of a `den manager` with nothing to do is made of: fresh processes on the
// project's Node, each loading one more part of what the manager loads, read after full
// collections; then the real `den manager` idle against an empty fake API server. The
// differences between rows are the cost of each part at rest. DEN_BENCH_COMPILED=1: the
// compiled JavaScript of `npm run build`, as the image runs it, instead of tsx.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';
import { renderInstall } from '../../infra/install/synth.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { freePort, kubeconfigYaml } from '../support/loopback.js';
import { Inspector, inspectorUrl } from './inspector.js';
import { chartManagerNodeFlags, chartEnvironment, mallocSettings } from './den-process.js';

/** The idle manager runs with the chart's V8 flags, as its container does. */
const CHART_NODE_FLAGS = chartManagerNodeFlags();

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMPILED = process.env.DEN_BENCH_COMPILED === '1';
const DEN = join(ROOT, COMPILED ? 'build/cli/den.js' : 'bin/den.js');
const at = (path: string) => new URL(COMPILED ? `build/${path.replace(/\.ts$/, '.js')}` : path, `file://${ROOT}`).href;

/** Each step loads what the ones before it loaded, and more. */
const STEPS: { what: string; tsx: boolean; modules: string[]; run?: string }[] = [
  { what: 'node alone', tsx: false, modules: [] },
  { what: '+ tsx (development only: the image runs compiled JavaScript)', tsx: true, modules: [] },
  { what: '+ Kubernetes client and informer (kube/, ws)', tsx: true, modules: [at('kube/client.ts'), at('kube/informer.ts'), at('kube/connection.ts')] },
  { what: '+ prom-client (process/metrics.ts)', tsx: true, modules: [at('process/metrics.ts')] },
  { what: '+ cdk8s, constructs and the k8s classes the children use (imports/)', tsx: true, modules: ['cdk8s', at('imports/k8s.cjs')] },
  { what: '(not loaded any more) + all of cdk8s-plus-28\'s generated k8s classes', tsx: true, modules: ['cdk8s-plus-28/lib/imports/k8s.js'] },
  { what: '+ the reconcile loop, hooks and child constructs (hooks/manager.ts)', tsx: true, modules: [at('hooks/manager.ts')] },
  { what: '+ the admission webhooks (koa, node-forge, yup)', tsx: true, modules: [at('hooks/admission/index.ts')] },
  { what: '+ re2 compiled in (process/re2.ts)', tsx: true, modules: [at('process/re2.ts')], run: 'm.re2()' },
  { what: '+ the whole role (hooks/manager-role.ts)', tsx: true, modules: [at('hooks/manager-role.ts')] },
  { what: '(not loaded any more) + the AWS SDK of the cloud-registry provider', tsx: true, modules: ['@aws-sdk/client-ecr', '@aws-sdk/credential-providers'] },
];

interface Reading {
  rssMiB: number;
  liveMiB: number;
}

async function load(modules: string[], tsx: boolean, run?: string): Promise<Reading> {
  const script = [
    `for (const name of ${JSON.stringify(modules)}) { const m = await import(name); ${run ? `if (/re2\\.[jt]s$/.test(name)) ${run};` : ''} }`,
    'for (let i = 0; i < 3; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 50)); }',
    'const u = process.memoryUsage();',
    'process.stdout.write(JSON.stringify({ rss: u.rss, live: u.heapUsed + u.external }));',
  ].join('\n');
  const args = ['--expose-gc', ...(tsx ? ['--import', 'tsx'] : []), '--input-type=module', '-e', script];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (err += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`loading ${modules.join(', ')} failed: ${err.slice(-1500)}`);
  const { rss, live } = JSON.parse(out) as { rss: number; live: number };
  return { rssMiB: rss / 2 ** 20, liveMiB: live / 2 ** 20 };
}

/** `den manager` with nothing to reconcile: started, its webhooks serving, its caches synced; read after full collections. */
async function idleManager(): Promise<Reading & { peakMiB: number; anonMiB: number; fileMiB: number }> {
  const api = new FakeApiServer();
  await api.start();
  const dir = await mkdtemp(join(tmpdir(), 'den-manager-memory-'));
  const identity = ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];
  for (const obj of renderInstall(DEFAULT_SETTINGS)) if (identity.includes(String(obj.kind))) api.seed(obj);
  const minted = await api.client().request<{ status: { token: string } }>({ method: 'POST', path: '/api/v1/namespaces/svc-system/serviceaccounts/den-manager/token', body: { spec: {} } });
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, kubeconfigYaml(api.url, 'den-manager', minted.status.token), { mode: 0o600 });
  const [health, webhook] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [...CHART_NODE_FLAGS, '--inspect=127.0.0.1:0', DEN, 'manager', '--kubeconfig', kubeconfig, '--health-listen', `127.0.0.1:${health}`,
    '--webhook-listen', `127.0.0.1:${webhook}`, '--webhook-url', `https://127.0.0.1:${webhook}`], { stdio: ['ignore', 'ignore', 'pipe'], env: chartEnvironment() });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c));
  try {
    const deadline = Date.now() + 60_000;
    while ((await fetch(`http://127.0.0.1:${health}/readyz`).then((r) => r.status).catch(() => 0)) !== 200) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`den manager did not become ready: ${stderr.slice(-1500)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 2000));
    const inspector = await Inspector.connect(inspectorUrl(stderr)!);
    const memory = await inspector.memory();
    inspector.close();
    const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
    const kiB = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]);
    return { rssMiB: memory.rssKiB / 1024, liveMiB: memory.liveKiB / 1024, peakMiB: kiB('VmHWM') / 1024, anonMiB: kiB('RssAnon') / 1024, fileMiB: kiB('RssFile') / 1024 };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
    await api.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<string> {
  const lines = ['| what the process has loaded | RSS MiB | heap + external MiB | RSS added MiB |', '|---|---:|---:|---:|'];
  const loaded: string[] = [];
  let previous: Reading | undefined;
  for (const step of COMPILED ? STEPS.filter((s) => !s.what.startsWith('+ tsx')).map((s) => ({ ...s, tsx: false })) : STEPS) {
    const aside = step.what.startsWith('(');
    const reading = await load([...loaded, ...step.modules], step.tsx, step.run);
    if (!aside) loaded.push(...step.modules);
    const added = previous ? (reading.rssMiB - previous.rssMiB).toFixed(1) : '—';
    lines.push(`| ${step.what} | ${reading.rssMiB.toFixed(1)} | ${reading.liveMiB.toFixed(1)} | ${added} |`);
    if (!aside) previous = reading;
  }
  const idle = await idleManager();
  lines.push(`| \`den manager\` idle: webhooks serving, caches synced, nothing to reconcile (peak RSS ${idle.peakMiB.toFixed(0)}; at the end ${idle.anonMiB.toFixed(1)} anonymous, ${idle.fileMiB.toFixed(1)} file-backed: the node binary's pages) | ${idle.rssMiB.toFixed(1)} | ${idle.liveMiB.toFixed(1)} | |`);
  const runtime = COMPILED ? 'the compiled JavaScript of `npm run build`, as the image runs it' : 'tsx';
  return lines.join('\n') + `\n\nEach row a fresh process on node ${process.version} after full collections (\`--expose-gc\`); each loads what the rows above it loaded (the row in brackets is measured on top, then left out). Modules and the idle manager: ${runtime}; the idle manager read through its inspector, with the chart's flags (${CHART_NODE_FLAGS.join(' ')}, ${mallocSettings()}).\n`;
}
