// N UserSpaces applied in 8 streams on a real kube-apiserver until all are Ready, against the
// floor: a plain client applying, in 8 streams with server-side apply, the children the
// UserSpace hook renders for N other UserSpaces (Den's own render functions, decorated and
// ordered as the loop applies them, without the owner references and parent label that tie them
// to a UserSpace), measured in the same run against the same server, in fresh namespaces. Each N
// on a fresh API server (+ kube-controller-manager) with Den installed as the chart installs it,
// two replicas of each process; which of the two goes first alternates between runs.
//
// DEN_BENCH_REAL_USERSPACES: the Ns, comma-separated (default 300,1000; e.g. 100 for a quick run).
// DEN_BENCH_AUDIT=1: the API server's audit log on (it costs both sides some pace), and a table of
// who sent which requests per UserSpace while Den converged and while the floor applied.
// DEN_BENCH_MANAGER_FLAGS: extra flags for both managers (`--kube-qps=0`), to compare settings.
import type { KubeObject } from '../../kube/client.js';
import { userNamespace } from '../../kube/group.js';
import { RESOURCES, resourceOf } from '../../kube/resources.js';
import { userSpaceSpec } from '../../hooks/userspace/controller.js';
import { childrenMap, decorateChild, planChildren } from '../../hooks/loop/plan.js';
import { mapBounded } from '../../process/concurrency.js';
import { Informer } from '../../kube/informer.js';
import { asPlainManifest, auditedRequests, cpuSeconds, ratio, requestBreakdown, startRealCluster, until, type RealBenchCluster } from './real-den.js';

const SIZES = (process.env.DEN_BENCH_REAL_USERSPACES ?? '300,1000').split(',').map((n) => {
  const size = Number(n);
  if (!Number.isInteger(size) || size < 1) throw new Error(`DEN_BENCH_REAL_USERSPACES: ${JSON.stringify(n)} is not a count of UserSpaces`);
  return size;
});
const AUDIT = process.env.DEN_BENCH_AUDIT === '1';
const MANAGER_FLAGS = (process.env.DEN_BENCH_MANAGER_FLAGS ?? '').split(/\s+/).filter(Boolean);
const STREAMS = 8;
const TIMEOUT_MS = 20 * 60_000;

export const repetitions = 3;
let runIndex = 0;

/** The i-th UserSpace of a run (half of them Isolated), as a person would apply it. */
export function realBenchUserSpace(name: string, i: number): KubeObject {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'UserSpace',
    metadata: { name },
    spec: { owner: `${name}@example.com`, quota: { cpu: '4', memory: '8Gi', storage: '50Gi', workspaces: 3 }, networkPolicy: i % 2 ? 'Isolated' : 'ClusterEgress' },
  };
}

type WithStatus = KubeObject & { status?: { phase?: string; observedGeneration?: number; conditions?: { type: string; reason?: string }[] } };
const ready = (o: WithStatus) => o.status?.observedGeneration === o.metadata?.generation && o.status?.phase === 'Ready';
/** Every child exists: Ready, or waiting only for kube-controller-manager to count its quota. */
const childrenExist = (o: WithStatus) => ready(o) || o.status?.conditions?.find((c) => c.type === 'Ready')?.reason === 'QuotaNotCounted';

interface Side {
  seconds: number;
  /** Den only: when the last apply of a UserSpace was answered. */
  appliedSeconds?: number;
  /** Den only: when every UserSpace's children existed (its quota counted or not). */
  childrenSeconds?: number;
  requests?: string[];
  /** CPU seconds spent meanwhile by the API server / by Den's managers. */
  cpu: { apiserver: number; managers: number };
}

async function cpuDuring<T>(cluster: RealBenchCluster, work: () => Promise<T>): Promise<T & { cpu: Side['cpu'] }> {
  const before = await cpuSeconds(cluster);
  const result = await work();
  const after = await cpuSeconds(cluster);
  return { ...result, cpu: { apiserver: after.apiserver - before.apiserver, managers: after.managers - before.managers } };
}

/** N UserSpaces applied by a person's client in 8 streams; the clock stops when the last is Ready. */
async function den(cluster: RealBenchCluster, names: string[]): Promise<Omit<Side, 'cpu'>> {
  const wanted = new Set(names);
  const started = Date.now();
  await mapBounded(names, STREAMS, (name, i) => cluster.admin.apply(RESOURCES.userSpace, realBenchUserSpace(name, i), 'kubectl'));
  const appliedSeconds = (Date.now() - started) / 1000;
  let childrenSeconds: number | undefined;
  // Watched, not polled: a list of every UserSpace several times a second costs the API server more CPU than the floor's applies.
  const watching = new AbortController();
  const userSpaces = new Informer<WithStatus>(cluster.admin, RESOURCES.userSpace);
  const watched = userSpaces.run(watching.signal);
  try {
    await until(
      `${names.length} UserSpaces Ready`,
      async () => {
        const mine = userSpaces.list((u) => wanted.has(u.metadata?.name ?? ''));
        if (childrenSeconds === undefined && mine.filter(childrenExist).length === names.length) childrenSeconds = (Date.now() - started) / 1000;
        return mine.filter(ready).length === names.length;
      },
      TIMEOUT_MS,
      50,
    );
  } finally {
    watching.abort();
    await watched;
  }
  const ended = Date.now();
  const requests = cluster.auditLog ? requestBreakdown(await auditedRequests(cluster.auditLog, started, ended), names.length) : undefined;
  return { seconds: (ended - started) / 1000, appliedSeconds, childrenSeconds, requests };
}

/** The same children, rendered before the clock starts, applied as plain manifests in 8 streams. */
async function floor(cluster: RealBenchCluster, names: string[]): Promise<Omit<Side, 'cpu'>> {
  const spec = userSpaceSpec({ namespace: 'svc-system', gpuResource: 'nvidia.com/gpu' });
  const service = await cluster.admin.get<KubeObject>(RESOURCES.service, 'kubernetes', 'default');
  const endpointSlices = (await cluster.admin.list<KubeObject>(RESOURCES.endpointSlice, { namespace: 'default', labelSelector: 'kubernetes.io/service-name=kubernetes' })).items;
  const now = new Date();
  const rendered = names.map((name, i) => {
    const parent = { ...realBenchUserSpace(name, i), metadata: { name, uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, generation: 1 } };
    const output = spec.hook({ parent: parent as never, children: childrenMap([], spec.children), related: { apiServer: { service, endpointSlices }, pullSecrets: [] }, now, config: spec.config });
    const desired = output.children.map((child) => decorateChild(child, { parent, parentResource: RESOURCES.userSpace, parentLabel: spec.parentLabel }));
    return planChildren(desired, []).apply.flat().map((child) => asPlainManifest(child, spec.parentLabel));
  });
  const started = Date.now();
  await mapBounded(rendered, STREAMS, async (children) => {
    for (const child of children) await cluster.admin.apply(resourceOf(child.apiVersion!, child.kind!)!, child, 'kubectl');
  });
  const ended = Date.now();
  const requests = cluster.auditLog ? requestBreakdown(await auditedRequests(cluster.auditLog, started, ended), names.length) : undefined;
  return { seconds: (ended - started) / 1000, requests };
}

async function measure(n: number, floorFirst: boolean, run: number): Promise<{ den: Side; floor: Side; children: number }> {
  const cluster = await startRealCluster({ audit: AUDIT, den: { managerFlags: MANAGER_FLAGS } });
  try {
    const denNames = Array.from({ length: n }, (_, i) => `den${run}-${i}`);
    const floorNames = Array.from({ length: n }, (_, i) => `floor${run}-${i}`);
    let floorSide: Side;
    let denSide: Side;
    if (floorFirst) {
      floorSide = await cpuDuring(cluster, () => floor(cluster, floorNames));
      denSide = await cpuDuring(cluster, () => den(cluster, denNames));
    } else {
      denSide = await cpuDuring(cluster, () => den(cluster, denNames));
      floorSide = await cpuDuring(cluster, () => floor(cluster, floorNames));
    }
    const children = (await cluster.admin.list(RESOURCES.namespace)).items.filter((ns) => ns.metadata?.name?.startsWith(userNamespace(`den${run}-`))).length;
    if (children !== n) throw new Error(`${n} UserSpaces Ready but ${children} of their namespaces exist`);
    return { den: denSide, floor: floorSide, children };
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${cluster.den?.diagnostics(15) ?? ''}`);
  } finally {
    await cluster.stop();
  }
}

export async function run(): Promise<string> {
  const run = runIndex++;
  const lines = [
    `| UserSpaces | Den: applied in ${STREAMS} streams → all Ready, s | of it: the applies answered / every child exists, s | floor: the rendered children applied in ${STREAMS} streams, s | Den ÷ floor | CPU s meanwhile, Den / floor: API server; Den's managers |`,
    '|---:|---:|---:|---:|---:|---|',
  ];
  const audits: string[] = [];
  for (const n of SIZES) {
    const m = await measure(n, run % 2 === 1, run);
    lines.push(`| ${n} | ${m.den.seconds.toFixed(1)} | ${m.den.appliedSeconds!.toFixed(1)} / ${m.den.childrenSeconds!.toFixed(1)} | ${m.floor.seconds.toFixed(1)} | ${ratio(m.den.seconds, m.floor.seconds)} | ${m.den.cpu.apiserver.toFixed(1)} / ${m.floor.cpu.apiserver.toFixed(1)}; ${m.den.cpu.managers.toFixed(1)} / ${m.floor.cpu.managers.toFixed(1)} |`);
    if (m.den.requests) audits.push(`\nRequests per UserSpace while ${n} converged (audit log, all clients; sa: = svc-system's ServiceAccounts):\n\n| who | verb | resource | count | per UserSpace |\n|---|---|---|---:|---:|\n${m.den.requests.join('\n')}`);
    if (m.floor.requests) audits.push(`\nRequests per UserSpace while the floor applied ${n}:\n\n| who | verb | resource | count | per UserSpace |\n|---|---|---|---:|---:|\n${m.floor.requests.join('\n')}`);
  }
  return (
    lines.join('\n') +
    `\n\nA real kube-apiserver (kapi, Kubernetes 1.25) with etcd and kube-controller-manager on this machine, a fresh one for each N; Den installed from the chart, two managers, servers and gateways (tsx) under their ServiceAccounts. Den's clock runs from the first UserSpace apply until every UserSpace is Ready (its quota counted by kube-controller-manager included); the floor's from its first apply to its last answer. Which side goes first alternates between runs.${AUDIT ? ' Audit log on.' : ''}${MANAGER_FLAGS.length ? ` Manager flags: ${MANAGER_FLAGS.join(' ')}.` : ''}\n` +
    audits.join('\n')
  );
}
