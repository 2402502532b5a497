// How long `den manager` takes to converge 1,000 UserSpaces and 10,000 Workspaces against the
// fake API server, under two profiles side by side: `cluster` (the latencies measured on a
// one-node cluster in issue 23, kube-apiserver's seats) and `instant` (answers in
// microseconds). Beside it the floor: a plain client applying the same rendered children of
// the UserSpaces in 8 parallel streams (as `kubectl apply --server-side` in 8 streams would),
// against the same model. The manager is the real `den manager` process on the project's
// Node, under its own ServiceAccount with the chart's RBAC, its webhooks registered; its
// memory is read through its inspector after a full collection, its peak RSS from the host.
// Cold start: the objects exist before the manager starts, as after a restart or fail-over.
//
// DEN_BENCH_USERSPACES, DEN_BENCH_WORKSPACES: counts (1000, 10000). DEN_BENCH_PROFILES:
// `cluster,instant` (or `cluster-cpu`, the API server's CPU as seats). DEN_BENCH_SWEEP: manager flag sets separated by `;` (`--reconciles-in-flight=8
// --kube-qps=100;…`): then only UserSpaces under the first profile, one row per set, beside the floor.
// DEN_BENCH_ROWS=both: only the row with both kinds cached. DEN_BENCH_NODE_FLAGS: V8/Node flags
// for the manager's process (default: the chart's, at the default memory limit; '' for none). DEN_BENCH_COMPILED=1: run the
// compiled `build/cli/den.js` (`npm run build` first), as the image does, instead of tsx.
// DEN_BENCH_START=warm (with DEN_BENCH_ROWS=both): the objects are seeded converged (children
// as the loop applies them, status as the hooks write it), as after a fail-over of a
// converged installation; the clock stops once every parent has been reconciled and no
// reconcile has run for 2 s. DEN_BENCH_HOLD_SECONDS: the manager keeps running so long after
// it converged before its memory is read (relists and resyncs of a longer run).
// DEN_BENCH_MANAGER_LOG: a path; each run's manager log is written beside it as it comes (`<path>.<pid>`).
// DEN_BENCH_HEAP_SNAPSHOT: a file to write the manager's heap snapshot to once converged, and
// another (`.held` before the extension) after the hold.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES, resourceOf } from '../../kube/resources.js';
import { FIELD_MANAGERS } from '../../kube/group.js';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';
import { renderInstall } from '../../infra/install/synth.js';
import { userSpaceSpec } from '../../hooks/userspace/controller.js';
import { workspaceSpec } from '../../hooks/workspace/controller.js';
import type { ControllerSpec } from '../../hooks/loop/spec.js';
import { childrenMap, decorateChild, desiredStatus, planChildren } from '../../hooks/loop/plan.js';
import { CLUSTER_CPU_PROFILE, CLUSTER_PROFILE, FakeApiServer, INSTANT_PROFILE, type LatencyProfile } from '../support/fake-apiserver.js';
import { freePort, kubeconfigYaml } from '../support/loopback.js';
import { workspace, workspaceImage } from '../hooks/workspace/inputs.js';
import { Inspector, inspectorUrl } from './inspector.js';
import { chartManagerNodeFlags, chartEnvironment, mallocSettings } from './den-process.js';
import { cpuMsOf } from './bench-gateway.js';
import { mapBounded } from '../../process/concurrency.js';

const COMPILED = process.env.DEN_BENCH_COMPILED === '1';
const DEN = fileURLToPath(new URL(COMPILED ? '../../build/cli/den.js' : '../../bin/den.js', import.meta.url));
/** The chart's V8 flags for the manager, unless DEN_BENCH_NODE_FLAGS says otherwise ('' for V8's own defaults). */
const NODE_FLAGS = process.env.DEN_BENCH_NODE_FLAGS === undefined ? chartManagerNodeFlags() : process.env.DEN_BENCH_NODE_FLAGS.split(/\s+/).filter(Boolean);
const ONLY_BOTH = process.env.DEN_BENCH_ROWS === 'both';
const WARM = process.env.DEN_BENCH_START === 'warm';
const USERSPACES = Number(process.env.DEN_BENCH_USERSPACES ?? 1000);
const WORKSPACES = Number(process.env.DEN_BENCH_WORKSPACES ?? 10_000);
const PROFILES = (process.env.DEN_BENCH_PROFILES ?? 'cluster,instant').split(',').map((name) => {
  const profile = [CLUSTER_PROFILE, CLUSTER_CPU_PROFILE, INSTANT_PROFILE].find((p) => p.name === name);
  if (!profile) throw new Error(`DEN_BENCH_PROFILES: no profile ${name} (cluster, cluster-cpu, instant)`);
  return profile;
});
const SWEEP = process.env.DEN_BENCH_SWEEP?.split(';').map((set) => set.trim().split(/\s+/).filter(Boolean));
const FLOOR_STREAMS = 8;
const TIMEOUT_MS = 15 * 60_000;
const HOLD_MS = Number(process.env.DEN_BENCH_HOLD_SECONDS ?? 0) * 1000;
const HEAP_SNAPSHOT = process.env.DEN_BENCH_HEAP_SNAPSHOT;
const MANAGER = 'system:serviceaccount:svc-system:den-manager';

export const repetitions = 1;

type WithStatus = KubeObject & { status?: { phase?: string; observedGeneration?: number } };

interface Row {
  what: string;
  profile: string;
  who: string;
  seconds: number;
  objects: number;
  requests: number;
  applies: number;
  statusWrites: number;
  inFlightMean: number;
  inFlightPeak: number;
  refused: number;
  reconciles?: number;
  failures?: number;
  memory?: { peakRssMiB: number; rssMiB: number; liveMiB: number; spaces: Record<string, number> };
  /** The manager's CPU seconds from its start to convergence, start-up and lists included. */
  cpuSeconds?: number;
}

/** A token of den-manager's ServiceAccount, its ClusterRoles and bindings seeded as the chart has them. */
export async function managerToken(api: FakeApiServer): Promise<string> {
  const identity = ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];
  for (const obj of renderInstall(DEFAULT_SETTINGS)) if (identity.includes(String(obj.kind))) api.seed(obj);
  const minted = await api.client().request<{ status: { token: string } }>({ method: 'POST', path: '/api/v1/namespaces/svc-system/serviceaccounts/den-manager/token', body: { spec: { expirationSeconds: 24 * 3600 } } });
  return minted.status.token;
}

/** The i-th UserSpace of a bench (half of them Isolated). */
export function benchUserSpace(i: number): KubeObject {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'UserSpace',
    metadata: { name: `user${i}` },
    spec: { owner: `user${i}@example.com`, quota: { cpu: '4', memory: '8Gi', storage: '50Gi', workspaces: 3 }, networkPolicy: i % 2 ? 'Isolated' : 'ClusterEgress' },
  };
}

function seedUserSpaces(api: FakeApiServer, n: number): KubeObject[] {
  return Array.from({ length: n }, (_, i) => api.seed(benchUserSpace(i))[0]!);
}

/** n Workspaces spread over n/10 user namespaces, all of one WorkspaceImage. */
function seedWorkspaces(api: FakeApiServer, n: number): void {
  const image = workspaceImage();
  api.seed({ ...image, metadata: { name: image.metadata!.name } });
  const template = workspace();
  const namespaces = Math.max(1, Math.ceil(n / 10));
  for (let ns = 0; ns < namespaces; ns++) api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `svc-ws${ns}` } });
  for (let i = 0; i < n; i++) api.seed({ apiVersion: template.apiVersion, kind: template.kind, metadata: { name: `ws${i}`, namespace: `svc-ws${i % namespaces}` }, spec: template.spec });
}

/**
 * Seeds what a converged manager leaves behind for each parent of `kind`: the children its hook
 * renders, decorated as the loop applies them, and the status the hook writes once it sees them.
 */
function seedConverged(api: FakeApiServer, spec: ControllerSpec<unknown, unknown>, parentResource: typeof RESOURCES.userSpace, related: (parent: KubeObject) => unknown): void {
  const now = new Date();
  for (const parent of api.objects(parentResource)) {
    const rendered = spec.hook({ parent, children: childrenMap([], spec.children), related: related(parent), now, config: spec.config });
    const children = api.seed(...rendered.children.map((child) => decorateChild(child, { parent, parentResource, parentLabel: spec.parentLabel })));
    const settled = spec.hook({ parent, children: childrenMap(children, spec.children), related: related(parent), now, config: spec.config });
    api.seed({ ...parent, status: desiredStatus(settled.status, parent, spec.foreignStatusFields) });
  }
}

function seedConvergedKinds(api: FakeApiServer, kinds: { userSpaces: number; workspaces: number }): void {
  if (kinds.userSpaces) {
    const apiServer = { service: api.object(RESOURCES.service, 'kubernetes', 'default') ?? null, endpointSlices: api.objects(RESOURCES.endpointSlice, 'default') };
    seedConverged(api, userSpaceSpec({ namespace: 'svc-system', gpuResource: 'nvidia.com/gpu' }) as ControllerSpec<unknown, unknown>, RESOURCES.userSpace, () => ({ apiServer, pullSecrets: [] }));
  }
  if (kinds.workspaces) {
    const image = api.objects(RESOURCES.workspaceImage)[0] ?? null;
    seedConverged(api, workspaceSpec({ gatewayHost: 'den.example.com', idleStop: false }) as ControllerSpec<unknown, unknown>, RESOURCES.workspace, () => ({ image, pods: [] }));
  }
}

export const userSpaceDone = (o: Readonly<WithStatus>) => o.status?.observedGeneration === o.metadata?.generation && o.status?.phase === 'Ready';
const workspaceDone = (o: Readonly<WithStatus>) => o.status?.observedGeneration === o.metadata?.generation && o.status?.phase === 'Starting';

function inFlightFigures(api: FakeApiServer) {
  const f = api.latency.figures();
  return { inFlightMean: f.mean, inFlightPeak: f.peak, refused: f.refused };
}

/**
 * The floor: the children the UserSpace hook renders for each UserSpace (decorated as the loop
 * applies them, in its wave order), rendered before the clock starts, then applied by a plain
 * client in FLOOR_STREAMS parallel streams, one UserSpace after another in each stream.
 */
export async function floor(profile: LatencyProfile, userSpaces = USERSPACES): Promise<Row> {
  const api = new FakeApiServer({ latency: profile });
  await api.start();
  try {
    const parents = seedUserSpaces(api, userSpaces);
    const spec = userSpaceSpec({ namespace: 'svc-system', gpuResource: 'nvidia.com/gpu' });
    const related = {
      apiServer: { service: api.object(RESOURCES.service, 'kubernetes', 'default') ?? null, endpointSlices: api.objects(RESOURCES.endpointSlice, 'default') },
      pullSecrets: [],
    };
    const now = new Date();
    const rendered = parents.map((parent) => {
      const output = spec.hook({ parent, children: childrenMap([], spec.children), related, now, config: spec.config });
      const desired = output.children.map((child) => decorateChild(child, { parent, parentResource: RESOURCES.userSpace, parentLabel: spec.parentLabel }));
      return planChildren(desired, []).apply.flat();
    });
    const client = api.client();
    const before = api.requests.length;
    api.latency.resetFigures();
    const started = performance.now();
    await mapBounded(rendered, FLOOR_STREAMS, async (children) => {
      for (const child of children) await client.apply(resourceOf(child.apiVersion!, child.kind!)!, child, FIELD_MANAGERS.manager);
    });
    const seconds = (performance.now() - started) / 1000;
    const requests = api.requests.length - before;
    return { what: `${userSpaces} UserSpaces`, profile: profile.name, who: `floor: plain client, ${FLOOR_STREAMS} streams`, seconds, objects: userSpaces, requests, applies: requests, statusWrites: 0, ...inFlightFigures(api) };
  } finally {
    await api.close();
  }
}

/** A running `den manager` against `api`: its process, what it printed, its health port, the time its loop started. */
export interface RunningManager {
  child: ReturnType<typeof spawn>;
  stderr: string[];
  health: number;
  /** performance.now() of the loop's start, its first Lease request (the clock's start). */
  first: number;
  /** Throws when the manager exited or the deadline passed. */
  check(): void;
  stop(): Promise<void>;
}

/** Starts `den manager` with the chart's identity and RBAC, and waits until its loop starts. */
export async function startManager(api: FakeApiServer, args: string[] = [], seed: () => void = () => undefined): Promise<RunningManager> {
  const dir = await mkdtemp(join(tmpdir(), 'den-converge-bench-'));
  const stderr: string[] = [];
  let child: ReturnType<typeof spawn> | undefined;
  const stop = async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const token = await managerToken(api);
    seed();
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, kubeconfigYaml(api.url, 'den-manager', token), { mode: 0o600 });
    const [health, webhook] = [await freePort(), await freePort()];
    const before = api.requests.length;
    const spawned = spawn(process.execPath, [...NODE_FLAGS, '--inspect=127.0.0.1:0', DEN, 'manager', '--kubeconfig', kubeconfig, '--health-listen', `127.0.0.1:${health}`,
      '--webhook-listen', `127.0.0.1:${webhook}`, '--webhook-url', `https://127.0.0.1:${webhook}`, '--gateway-host', 'den.example.com', ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: chartEnvironment() });
    child = spawned;
    spawned.stderr!.on('data', (c: Buffer) => stderr.push(c.toString()));
    const log = process.env.DEN_BENCH_MANAGER_LOG;
    if (log) spawned.stderr!.pipe(createWriteStream(`${log}.${spawned.pid}`));
    const deadline = Date.now() + TIMEOUT_MS;
    const check = () => {
      if (Date.now() > deadline) throw new Error(`not converged after ${TIMEOUT_MS / 1000} s: ${stderr.join('').slice(-2000)}`);
      if (spawned.exitCode !== null || spawned.signalCode !== null) throw new Error(`den manager exited ${spawned.exitCode ?? spawned.signalCode}: ${stderr.join('').slice(-2000)}`);
    };
    // The clock starts with the loop: its first Lease request, sent as its controllers' caches
    // start listing (they run whether or not it leads, so their first list may go out before the
    // Lease request). The process's start-up and its webhooks' caches, listed before, are not counted.
    let first: number | undefined;
    while (first === undefined) {
      check();
      const mine = api.requests.slice(before).filter((r) => r.user === MANAGER);
      first = mine.find((r) => r.path.includes('/leases'))?.at;
      if (first === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    return { child: spawned, stderr, health, first, check, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** `den manager` against the fake until every seeded object of `kind` has converged. */
async function manager(profile: LatencyProfile, kinds: { userSpaces: number; workspaces: number }, args: string[] = []): Promise<Row> {
  const api = new FakeApiServer({ latency: profile });
  await api.start();
  let running: RunningManager | undefined;
  try {
    running = await startManager(api, args, () => {
      if (kinds.userSpaces) seedUserSpaces(api, kinds.userSpaces);
      if (kinds.workspaces) seedWorkspaces(api, kinds.workspaces);
      if (WARM) seedConvergedKinds(api, kinds);
    });
    const { child, stderr, health, first, check } = running;
    api.latency.resetFigures();
    const converged = () => (kinds.userSpaces ? api.count(RESOURCES.userSpace, userSpaceDone) : 0) + (kinds.workspaces ? api.count(RESOURCES.workspace, workspaceDone) : 0);
    const objects = kinds.userSpaces + kinds.workspaces;
    let peakRssKiB = 0;
    const reconciled = async () => {
      const text = await fetch(`http://127.0.0.1:${health}/metrics`).then((r) => r.text()).catch(() => '');
      return [...text.matchAll(/^den_reconciles_total\{[^}]*controller="(?:userspace|workspace)"[^}]*\} (\d+)/gm)].reduce((a, m) => a + Number(m[1]), 0);
    };
    // Warm: every parent reconciled once, then no reconcile for 2 s (its children's events queue it again).
    let settled = { count: 0, since: performance.now() };
    const warmDone = async () => {
      const count = await reconciled();
      if (count !== settled.count) settled = { count, since: performance.now() };
      return count >= objects && performance.now() - settled.since >= 2000;
    };
    while (!(WARM ? await warmDone() : converged() >= objects)) {
      check();
      peakRssKiB = Math.max(peakRssKiB, await peakRss(child.pid!));
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = ((WARM ? settled.since : performance.now()) - first) / 1000;
    const cpu = (await cpuMsOf(child.pid!)) / 1000;
    const flight = inFlightFigures(api);
    const mine = api.requests.filter((r) => r.user === MANAGER && (r.at ?? 0) >= first);
    const url = inspectorUrl(stderr.join(''));
    if (!url) throw new Error('den manager printed no inspector address');
    const inspector = await Inspector.connect(url);
    if (HEAP_SNAPSHOT) await inspector.heapSnapshot(HEAP_SNAPSHOT);
    if (HOLD_MS) {
      const until = Date.now() + HOLD_MS;
      while (Date.now() < until) {
        check();
        peakRssKiB = Math.max(peakRssKiB, await peakRss(child.pid!));
        await new Promise((r) => setTimeout(r, 100));
      }
      if (HEAP_SNAPSHOT) await inspector.heapSnapshot(HEAP_SNAPSHOT.replace(/(\.\w+)?$/, '.held$1'));
    }
    const memory = await inspector.memory();
    const spaces = await inspector.heapSpaces();
    inspector.close();
    peakRssKiB = Math.max(peakRssKiB, await peakRss(child.pid!));
    const metrics = await (await fetch(`http://127.0.0.1:${health}/metrics`)).text();
    const counter = (result: string) => [...metrics.matchAll(new RegExp(`^den_reconciles_total\\{[^}]*result="${result}"[^}]*\\} (\\d+)`, 'gm'))].reduce((a, m) => a + Number(m[1]), 0);
    const what = [kinds.userSpaces ? `${kinds.userSpaces} UserSpaces` : '', kinds.workspaces ? `${kinds.workspaces} Workspaces` : ''].filter(Boolean).join(' + ');
    return {
      what,
      profile: profile.name,
      who: `${args.length ? `den manager ${args.join(' ')}` : 'den manager (defaults)'}${WARM ? ', warm start' : ''}${leadsLost(stderr.join(''))}`,
      seconds,
      objects,
      requests: mine.length,
      applies: mine.filter((r) => r.method === 'PATCH' && r.query.includes('force=true')).length,
      statusWrites: mine.filter((r) => r.method === 'PUT' && r.path.endsWith('/status')).length,
      ...flight,
      reconciles: counter('ok') + counter('error'),
      failures: counter('error'),
      memory: { peakRssMiB: peakRssKiB / 1024, rssMiB: memory.rssKiB / 1024, liveMiB: memory.liveKiB / 1024, spaces },
      cpuSeconds: cpu,
    };
  } finally {
    await running?.stop();
    await api.close();
  }
}

/**
 * A manager that lost the Lease (a busy machine can starve its renewals) stops reconciling and
 * reconciles every parent again when it leads again (its caches stay), so the row says so.
 */
function leadsLost(log: string): string {
  const lost = log.match(/leader election: lost the lead/g)?.length ?? 0;
  return lost ? `, lost the lead ${lost}×` : '';
}

/** The process's peak resident set (VmHWM) in KiB, as the host reads it. */
export async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
}

export async function run(): Promise<string> {
  const rows: Row[] = [];
  if (SWEEP) {
    const profile = PROFILES[0]!;
    rows.push(await floor(profile));
    for (const args of SWEEP) rows.push(await manager(profile, { userSpaces: USERSPACES, workspaces: 0 }, args));
  } else if (ONLY_BOTH) {
    rows.push(await manager(PROFILES[0]!, { userSpaces: USERSPACES, workspaces: WORKSPACES }));
  } else {
    for (const profile of PROFILES) {
      rows.push(await floor(profile));
      rows.push(await manager(profile, { userSpaces: USERSPACES, workspaces: 0 }));
      rows.push(await manager(profile, { userSpaces: 0, workspaces: WORKSPACES }));
    }
    rows.push(await manager(INSTANT_PROFILE, { userSpaces: USERSPACES, workspaces: WORKSPACES }));
  }
  const runtime = `${COMPILED ? 'compiled JavaScript, as the image runs it' : 'tsx'} on node ${process.version}${NODE_FLAGS.length ? `, ${NODE_FLAGS.join(' ')}` : ''}`;
  const floors = new Map(rows.filter((r) => r.who.startsWith('floor')).map((r) => [`${r.what} ${r.profile}`, r.seconds]));
  const lines = [
    '| converge (cold start) | API server | who | seconds | vs. floor | objects/s | requests per object | applies | status writes | requests in flight (mean / peak) | 429s | reconciles (failed) | manager CPU s | manager peak RSS MiB | RSS / heap+external after GC MiB |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => {
      const floorSeconds = floors.get(`${r.what} ${r.profile}`);
      const ratio = floorSeconds && !r.who.startsWith('floor') ? `${(r.seconds / floorSeconds).toFixed(2)}×` : '—';
      const mem = r.memory ? [r.memory.peakRssMiB.toFixed(0), `${r.memory.rssMiB.toFixed(0)} / ${r.memory.liveMiB.toFixed(0)}`] : ['—', '—'];
      const reconciles = r.reconciles === undefined ? '—' : `${r.reconciles} (${r.failures})`;
      return `| ${r.what} | ${r.profile} | ${r.who} | ${r.seconds.toFixed(1)} | ${ratio} | ${(r.objects / r.seconds).toFixed(0)} | ${(r.requests / r.objects).toFixed(1)} | ${r.applies} | ${r.statusWrites} | ${r.inFlightMean.toFixed(1)} / ${r.inFlightPeak} | ${r.refused} | ${reconciles} | ${r.cpuSeconds === undefined ? '—' : r.cpuSeconds.toFixed(1)} | ${mem[0]} | ${mem[1]} |`;
    }),
  ];
  const spaces = rows.filter((r) => r.memory).map((r) => `${r.what}: ${Object.entries(r.memory!.spaces).filter(([, kib]) => kib >= 1024).map(([name, kib]) => `${name} ${(kib / 1024).toFixed(1)}`).join(', ')}`);
  return lines.join('\n') + `\n\nV8 heap spaces after GC, MiB used: ${spaces.join('; ')}.\n\nAPI server profiles: \`cluster\` = the mean latencies measured on a one-node cluster (issue 23), drawn from an exponential spread, ${CLUSTER_PROFILE.maxInFlight.mutating} write and ${CLUSTER_PROFILE.maxInFlight.readOnly} read seats; \`instant\` = the fake's own speed, in the bench's process. The floor applies the same rendered children (${FLOOR_STREAMS} streams, admin client) and nothing else. Requests per object count every request of the manager from its first Lease request on (lists, watches, applies, finalizer and status writes, Lease). Memory: the \`den manager\` process (${runtime}, ${mallocSettings()}); peak RSS is VmHWM while converging.\n`;
}
