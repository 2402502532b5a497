// `den server` at scale, side by side with an idle one: two real `den server` processes, each
// against its own fake API server answering with the latency model's cluster profile (issue
// 23's measured latencies, kube-apiserver's seats). The idle server has one person with two
// Workspaces; the loaded one has PEOPLE people, each signed in through the real login route
// (a session Secret) and holding an API token issued through POST /api/v1/tokens (an
// api-token Secret), as the server really holds them, with WORKSPACES_EACH Workspaces each.
// Measured: the server's RSS and live heap after a full collection, its peak RSS, and the
// latency of one person's dashboard (GET / with the session cookie) and of
// GET /api/v1/workspaces (with the API token), alternating between both servers in rounds.
//
// DEN_BENCH_PEOPLE: how many people sign in to the loaded server (1000).
import http from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '../../kube/client.js';
import { SYSTEM_NAMESPACE } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { mapBounded } from '../../process/concurrency.js';
import { CLUSTER_PROFILE, FakeApiServer } from '../support/fake-apiserver.js';
import { freePort, kubeconfigYaml } from '../support/loopback.js';
import { addPerson, SERVER_TOKEN, SERVER_USER } from '../server/core/cluster.js';
import { denCrds } from '../../contract/index.js';
import { renderInstall } from '../../infra/install/synth.js';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';
import { BenchProcess, chartEnvironment, mallocSettings, type ProcessMemory } from './den-process.js';
import { median, quantile } from './stats.js';

const PEOPLE = Number(process.env.DEN_BENCH_PEOPLE ?? 1000);
const WORKSPACES_EACH = 2;
/** Sign-ins and token issues in flight at once while the loaded server fills up. */
const SIGN_IN_CONCURRENCY = 16;
const ROUNDS = 4;
const PER_ROUND = 15;
const WARMUP = 10;
const RBAC_KINDS = new Set<unknown>(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

interface Person {
  cookie: string;
  token: string;
}

interface World {
  api: FakeApiServer;
  den: BenchProcess;
  url: string;
  /** The person whose pages are timed. */
  person: Person;
  /** A token of that person's `session` ServiceAccount, for the same list straight from the API server. */
  direct: string;
  /** Milliseconds of each POST /api/v1/tokens, in the order they were issued. */
  issueMs: number[];
  close(): Promise<void>;
}

function personName(i: number): string {
  return `p${String(i).padStart(4, '0')}`;
}

function seedWorkspaces(api: FakeApiServer, person: string): void {
  const namespace = `svc-${person}`;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  for (let i = 0; i < WORKSPACES_EACH; i++) {
    const name = `dev${i}`;
    api.seed({
      apiVersion: 'den.dev/v1alpha1',
      kind: 'Workspace',
      metadata: { name, namespace, creationTimestamp: now },
      spec: { imageRef: { name: 'ubuntu' }, running: true, storage: '10Gi', sshAuthorizedKeys: ['ssh-ed25519 AAAA x'] },
      status: {
        phase: 'Running',
        podName: `${name}-0`,
        endpoint: `${name}@ssh.example.com`,
        conditions: [{ type: 'Ready', status: 'True', reason: 'PodReady', message: `Pod ${name}-0 is ready.`, lastTransitionTime: now }],
      },
    } as KubeObject);
  }
}

/** One request over a keep-alive agent; throws unless it answers `expected`. */
function get(agent: http.Agent, url: string, headers: Record<string, string>, expected: number): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => (res.statusCode === expected ? resolve(body) : reject(new Error(`GET ${url}: HTTP ${res.statusCode} ${body.slice(0, 300)}`))));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function signIn(url: string, name: string): Promise<Person & { issueMs: number }> {
  const login = await fetch(`${url}/api/v1/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: name, password: `${name}-password` }) });
  if (login.status !== 204) throw new Error(`login as ${name}: HTTP ${login.status} ${await login.text()}`);
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  const csrf = login.headers.get('x-csrf-token') ?? '';
  const started = performance.now();
  const issued = await fetch(`${url}/api/v1/tokens`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie, 'X-CSRF-Token': csrf }, body: JSON.stringify({ name: 'laptop' }) });
  const issueMs = performance.now() - started;
  if (issued.status !== 201) throw new Error(`token for ${name}: HTTP ${issued.status} ${await issued.text()}`);
  const { token } = (await issued.json()) as { token: string };
  return { cookie, token, issueMs };
}

/** A fake API server with `people` people and their Workspaces, a real `den server` against it, and everyone signed in. */
async function world(people: number): Promise<World> {
  const api = new FakeApiServer();
  await api.start();
  const dir = await mkdtemp(join(tmpdir(), 'den-server-scale-'));
  let den: BenchProcess | undefined;
  try {
    api.installCrds(denCrds().map((crd) => ({ ...crd })));
    api.seed(...renderInstall(DEFAULT_SETTINGS).filter((o) => RBAC_KINDS.has(o.kind)));
    api.addUser(SERVER_TOKEN, { username: SERVER_USER, groups: ['system:serviceaccounts', `system:serviceaccounts:${SYSTEM_NAMESPACE}`] });
    api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'ubuntu' }, spec: { image: 'ubuntu:24.04', displayName: 'Ubuntu 24.04' } } as KubeObject);
    const names = Array.from({ length: people }, (_, i) => personName(i));
    for (const name of names) {
      await addPerson(api, name);
      seedWorkspaces(api, name);
    }
    // From here on every request the server makes waits as on the cluster.
    api.latency.use(CLUSTER_PROFILE);
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, kubeconfigYaml(api.url, SERVER_USER, SERVER_TOKEN), { mode: 0o600 });
    const [port, health] = [await freePort(), await freePort()];
    const url = `http://127.0.0.1:${port}`;
    den = await BenchProcess.start('server', ['--kubeconfig', kubeconfig, '--listen', `127.0.0.1:${port}`, '--health-listen', `127.0.0.1:${health}`, '--base-url', url], health, [], chartEnvironment());
    const signed = await mapBounded(names, SIGN_IN_CONCURRENCY, (name) => signIn(url, name));
    const minted = await api.client().request<{ status: { token: string } }>({ method: 'POST', path: `/api/v1/namespaces/svc-${names[0]}/serviceaccounts/session/token`, body: { spec: {} } });
    const started = den;
    return {
      api,
      den,
      url,
      person: signed[0]!,
      direct: minted.status.token,
      issueMs: signed.map((s) => s.issueMs),
      async close() {
        await started.stop();
        await api.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await den?.stop();
    await api.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

interface Probe {
  what: string;
  url: (w: World) => string;
  headers: (w: World) => Record<string, string>;
  check: (body: string) => void;
}

function workspacesListed(body: string): void {
  const items = (JSON.parse(body) as { items: unknown[] }).items;
  if (items.length !== WORKSPACES_EACH) throw new Error(`a list answered ${items.length} workspaces`);
}

const PROBES: Probe[] = [
  {
    what: 'dashboard, GET / (session cookie)',
    url: (w) => `${w.url}/`,
    headers: (w) => ({ Cookie: w.person.cookie, Accept: 'text/html' }),
    check: (body) => {
      if (!body.includes('dev0') || !body.includes('dev1')) throw new Error('the dashboard does not show both workspaces');
    },
  },
  {
    what: 'GET /api/v1/workspaces (API token)',
    url: (w) => `${w.url}/api/v1/workspaces`,
    headers: (w) => ({ Authorization: `Bearer ${w.person.token}` }),
    check: workspacesListed,
  },
  {
    what: "control: the same LIST straight from the fake API server (the person's ServiceAccount token)",
    url: (w) => `${w.api.url}/apis/den.dev/v1alpha1/namespaces/svc-${personName(0)}/workspaces`,
    headers: (w) => ({ Authorization: `Bearer ${w.direct}` }),
    check: workspacesListed,
  },
];

async function times(w: World, agent: http.Agent, probe: Probe, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    probe.check(await get(agent, probe.url(w), probe.headers(w), 200));
    out.push(performance.now() - started);
  }
  return out;
}

const mib = (kib: number) => (kib / 1024).toFixed(1);

export async function run(): Promise<string> {
  const idle = await world(1);
  let loaded: World | undefined;
  const agent = new http.Agent({ keepAlive: true });
  try {
    loaded = await world(PEOPLE);
    const worlds = [idle, loaded];
    for (const w of worlds) for (const probe of PROBES) await times(w, agent, probe, WARMUP);
    const samples = worlds.map(() => PROBES.map(() => [] as number[]));
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with the other server, so neither always follows the other's garbage.
      const order = round % 2 ? [1, 0] : [0, 1];
      for (const i of order) for (const [p, probe] of PROBES.entries()) samples[i]![p]!.push(...(await times(worlds[i]!, agent, probe, PER_ROUND)));
    }
    const memory: ProcessMemory[] = [await idle.den.memory(), await loaded.den.memory()];
    const secrets = (w: World) => w.api.objects(RESOURCES.secret, SYSTEM_NAMESPACE).length;
    const n = ROUNDS * PER_ROUND;
    const rows = PROBES.map((probe, p) => {
      const [a, b] = [0, 1].map((i) => [...samples[i]![p]!].sort((x, y) => x - y));
      const [ma, mb] = [median(a!), median(b!)];
      return `| ${probe.what}: median (p90) of ${n}, ms | ${ma.toFixed(1)} (${quantile(a!, 0.9).toFixed(1)}) | ${mb.toFixed(1)} (${quantile(b!, 0.9).toFixed(1)}) | ${(mb / ma).toFixed(2)} |`;
    });
    const issue = loaded.issueMs;
    const firstAndLast = Math.min(100, Math.floor(issue.length / 2));
    return [
      `Two real \`den server\` processes side by side, each against its own fake API server with the cluster latency profile (GET ${CLUSTER_PROFILE.meanMs.GET} ms, writes ${CLUSTER_PROFILE.meanMs.POST} ms mean, exponential), with the chart's ${mallocSettings()}.`,
      '',
      `| measure | idle: 1 person, ${WORKSPACES_EACH} Workspaces | ${PEOPLE} people signed in, ${PEOPLE * WORKSPACES_EACH} Workspaces | ratio |`,
      '|---|---:|---:|---:|',
      `| state Secrets the server caches (sessions, API tokens, local users) | ${secrets(idle)} | ${secrets(loaded)} | |`,
      `| server RSS after a full GC, MiB | ${mib(memory[0]!.rssKiB)} | ${mib(memory[1]!.rssKiB)} | ${(memory[1]!.rssKiB / memory[0]!.rssKiB).toFixed(2)} |`,
      `| server live heap + external after a full GC, MiB | ${mib(memory[0]!.liveKiB)} | ${mib(memory[1]!.liveKiB)} | ${(memory[1]!.liveKiB / memory[0]!.liveKiB).toFixed(2)} |`,
      `| server peak RSS, MiB | ${mib(memory[0]!.peakRssKiB)} | ${mib(memory[1]!.peakRssKiB)} | |`,
      `| live memory per signed-in person (session + token + local user + UserSpace + minted token), KiB | | ${((memory[1]!.liveKiB - memory[0]!.liveKiB) / (PEOPLE - 1)).toFixed(1)} | |`,
      ...rows,
      `| POST /api/v1/tokens while ${PEOPLE} people sign in: median of the first ${firstAndLast} / of the last ${firstAndLast}, ms | | ${median(issue.slice(0, firstAndLast)).toFixed(1)} / ${median(issue.slice(-firstAndLast)).toFixed(1)} | |`,
    ].join('\n');
  } finally {
    agent.destroy();
    await loaded?.close();
    await idle.close();
  }
}
