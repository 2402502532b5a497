// Does the convergence bench's model predict the cluster? Issue 23's scenarios, measured on a
// one-node cluster (2 cores shared by etcd, the API server and Den) with Den as it was then,
// replayed against the fake API server under each latency profile, side by side with the
// cluster's figures:
//   (a) 500 UserSpaces created by one `kubectl apply` (one after another, 23 s): the last Ready
//       72 s after the first was created, creation → Ready 51 s at the median, 57 s at p90; run
//       twice: created by the modelled kubectl, and paced as the cluster's kubectl created them;
//   (b) 300 stopped Workspaces in one namespace: all Suspended 31 s after the apply started;
//   (c) 300 UserSpaces created in 8 parallel streams: all Ready 53 s after the apply started;
//   (d) the floor: the 14 children of 300 UserSpaces applied in 8 streams by a plain client
//       (`kubectl apply --server-side` on the cluster): 21.9 s.
// Den then: 4 reconciles in flight, no client-side rate limit (`--reconciles-in-flight=4
// --kube-qps=0`); the children of one wave were already applied concurrently (since the first
// reconcile loop), so these flags are all that differs in how it paces its requests. The
// manager runs and is leading before the objects are created, as on the cluster; creation is a
// client as kubectl's (a GET, then a POST, through the webhooks), against the same model.
// Beside each figure: the load average and the CPU seconds of the bench's process (the fake API
// server, the creating client and the floor's streams run in it) and of den manager, so a run
// starved of CPU shows as one.
//
// DEN_BENCH_PROFILES: `cluster-cpu,cluster` (latency profiles, test/support/fake-apiserver/latency.ts).
// DEN_BENCH_MANAGER_FLAGS: Den's flags (`--reconciles-in-flight=4 --kube-qps=0`, Den as measured).
import { loadavg } from 'node:os';
import { readFile } from 'node:fs/promises';
import type { KubeObject } from '../../kube/client.js';
import { isNotFound } from '../../kube/errors.js';
import { RESOURCES, type ResourceType } from '../../kube/resources.js';
import { mapBounded } from '../../process/concurrency.js';
import { CLUSTER_CPU_PROFILE, CLUSTER_PROFILE, FakeApiServer, INSTANT_PROFILE, type LatencyProfile } from '../support/fake-apiserver.js';
import { workspace, workspaceImage } from '../hooks/workspace/inputs.js';
import { benchUserSpace, floor, startManager, userSpaceDone } from './convergence.bench.js';
import { quantile } from './stats.js';

const PROFILES = (process.env.DEN_BENCH_PROFILES ?? 'cluster-cpu,cluster').split(',').map((name) => {
  const profile = [CLUSTER_CPU_PROFILE, CLUSTER_PROFILE, INSTANT_PROFILE].find((p) => p.name === name);
  if (!profile) throw new Error(`DEN_BENCH_PROFILES: no profile ${name} (cluster-cpu, cluster, instant)`);
  return profile;
});
const MANAGER_FLAGS = (process.env.DEN_BENCH_MANAGER_FLAGS ?? '--reconciles-in-flight=4 --kube-qps=0').split(/\s+/).filter(Boolean);
const LOAD_NAMESPACE = 'svc-load';

export const repetitions = 1;

type WithStatus = KubeObject & { status?: { phase?: string; observedGeneration?: number } };
const suspended = (o: Readonly<WithStatus>) => o.status?.observedGeneration === o.metadata?.generation && o.status?.phase === 'Suspended';

/** What one scenario measured, and what the cluster did. */
interface Outcome {
  scenario: string;
  profile: string;
  /** Modelled seconds per figure, and the cluster's where the issue gives it. */
  figures: { name: string; modelled: number; cluster?: number }[];
  load: [number, number];
  benchCpu: number;
  managerCpu?: number;
}

/** CPU seconds (user + system) a process has used, from /proc. */
async function cpuSecondsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/** As `kubectl apply` creates an object it has not seen: a GET (404), then a POST. */
async function kubectlCreate(api: FakeApiServer, resource: ResourceType, obj: KubeObject): Promise<void> {
  const client = api.client();
  await client.get(resource, obj.metadata!.name!, obj.metadata!.namespace).then(
    () => { throw new Error(`${obj.metadata!.name} exists already`); },
    (err: unknown) => { if (!isNotFound(err)) throw err; },
  );
  await client.create(resource, obj, obj.metadata!.namespace);
}

/**
 * With den manager leading and idle, creates `objects` in `streams` streams and waits until
 * each is `done`; returns when each was created and when each was first seen done (ms).
 */
async function createAndConverge(profile: LatencyProfile, resource: ResourceType, objects: KubeObject[], streams: number, done: (o: Readonly<WithStatus>) => boolean, seed: (api: FakeApiServer) => void, paceMs = 0) {
  const api = new FakeApiServer({ latency: profile });
  await api.start();
  const manager = await startManager(api, MANAGER_FLAGS, () => seed(api)).catch(async (err: unknown) => {
    await api.close();
    throw err;
  });
  try {
    // Idle and ready (caches synced, webhooks listening) before anything is created.
    while ((await fetch(`http://127.0.0.1:${manager.health}/readyz`).then((r) => r.status).catch(() => 0)) !== 200) {
      manager.check();
      await new Promise((r) => setTimeout(r, 50));
    }
    const load0 = loadavg()[0]!;
    const cpu0 = process.cpuUsage();
    const managerCpu0 = await cpuSecondsOf(manager.child.pid!);
    const created = new Map<string, number>();
    const converged = new Map<string, number>();
    const started = performance.now();
    const creating = mapBounded(objects, streams, async (obj, i) => {
      // Paced: the i-th object no sooner than i × paceMs after the start, as the cluster's kubectl created them.
      const due = started + i * paceMs - performance.now();
      if (due > 0) await new Promise((r) => setTimeout(r, due));
      const before = performance.now();
      await kubectlCreate(api, resource, obj);
      created.set(obj.metadata!.name!, before);
    });
    let creationError: unknown;
    creating.catch((err: unknown) => (creationError = err));
    while (converged.size < objects.length) {
      manager.check();
      if (creationError) throw creationError;
      const now = performance.now();
      for (const o of api.objects(resource)) if (!converged.has(o.metadata!.name!) && done(o)) converged.set(o.metadata!.name!, now);
      await new Promise((r) => setTimeout(r, 50));
    }
    await creating;
    const cpu = process.cpuUsage(cpu0);
    return {
      started,
      created,
      converged,
      load: [load0, loadavg()[0]!] as [number, number],
      benchCpu: (cpu.user + cpu.system) / 1e6,
      managerCpu: (await cpuSecondsOf(manager.child.pid!)) - managerCpu0,
    };
  } finally {
    await manager.stop();
    await api.close();
  }
}

/** (a); `paced`: created at the cluster's pace (500 in 23 s) instead of by the modelled kubectl. */
async function scenarioA(profile: LatencyProfile, paced: boolean): Promise<Outcome> {
  const objects = Array.from({ length: 500 }, (_, i) => benchUserSpace(i));
  const run = await createAndConverge(profile, RESOURCES.userSpace, objects, 1, userSpaceDone, () => undefined, paced ? 23_000 / 500 : 0);
  const firstCreated = Math.min(...run.created.values());
  const lastReady = Math.max(...run.converged.values());
  const toReady = objects.map((o) => (run.converged.get(o.metadata!.name!)! - run.created.get(o.metadata!.name!)!) / 1000).sort((a, b) => a - b);
  return outcomeOf(paced ? '(a) 500 UserSpaces, created at the cluster\'s pace (23 s)' : '(a) 500 UserSpaces, one kubectl apply', profile, run, [
    { name: 'last Ready after the first created', modelled: (lastReady - firstCreated) / 1000, cluster: 72 },
    { name: 'creation → Ready, median', modelled: quantile(toReady, 0.5), cluster: 51 },
    { name: 'creation → Ready, p90', modelled: quantile(toReady, 0.9), cluster: 57 },
    { name: 'creating the 500', modelled: creationSeconds(run), cluster: 23 },
  ]);
}

type Run = Awaited<ReturnType<typeof createAndConverge>>;

/** When the last object was created, seconds after the start. */
const creationSeconds = (run: Run) => (Math.max(...run.created.values()) - run.started) / 1000;

/** When the last object converged, seconds after the start. */
const convergedSeconds = (run: Run) => (Math.max(...run.converged.values()) - run.started) / 1000;

/** A scenario's row: its figures, beside the load and CPU its run saw. */
const outcomeOf = (scenario: string, profile: LatencyProfile, run: Run, figures: Outcome['figures']): Outcome => ({
  scenario,
  profile: profile.name,
  figures,
  load: run.load,
  benchCpu: run.benchCpu,
  managerCpu: run.managerCpu,
});

async function scenarioB(profile: LatencyProfile): Promise<Outcome> {
  const template = workspace({ running: false });
  const objects = Array.from({ length: 300 }, (_, i) => ({ apiVersion: template.apiVersion, kind: template.kind, metadata: { name: `ws${i}`, namespace: LOAD_NAMESPACE }, spec: template.spec }));
  const run = await createAndConverge(profile, RESOURCES.workspace, objects, 1, suspended, (api) => {
    const image = workspaceImage();
    api.seed({ ...image, metadata: { name: image.metadata!.name } }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: LOAD_NAMESPACE } });
  });
  return outcomeOf('(b) 300 stopped Workspaces in one namespace, one kubectl apply', profile, run, [
    { name: 'all Suspended after the apply started', modelled: convergedSeconds(run), cluster: 31 },
    { name: 'creating the 300', modelled: creationSeconds(run) },
  ]);
}

async function scenarioC(profile: LatencyProfile): Promise<Outcome> {
  const objects = Array.from({ length: 300 }, (_, i) => benchUserSpace(i));
  const run = await createAndConverge(profile, RESOURCES.userSpace, objects, 8, userSpaceDone, () => undefined);
  return outcomeOf('(c) 300 UserSpaces, 8 parallel streams', profile, run, [
    { name: 'all Ready after the apply started', modelled: convergedSeconds(run), cluster: 53 },
    { name: 'creating the 300', modelled: creationSeconds(run) },
  ]);
}

async function scenarioD(profile: LatencyProfile): Promise<Outcome> {
  const load0 = loadavg()[0]!;
  const cpu0 = process.cpuUsage();
  const row = await floor(profile, 300);
  const cpu = process.cpuUsage(cpu0);
  return {
    scenario: '(d) floor: 14 children of 300 UserSpaces, 8 streams',
    profile: profile.name,
    figures: [{ name: 'applied', modelled: row.seconds, cluster: 21.9 }],
    load: [load0, loadavg()[0]!],
    benchCpu: (cpu.user + cpu.system) / 1e6,
  };
}

export async function run(): Promise<string> {
  const outcomes: Outcome[] = [];
  for (const profile of PROFILES) {
    for (const scenario of [scenarioD, (p: LatencyProfile) => scenarioA(p, false), (p: LatencyProfile) => scenarioA(p, true), scenarioB, scenarioC]) outcomes.push(await scenario(profile));
  }
  const lines = [
    '| scenario | figure | API server model | modelled s | cluster s | modelled ÷ cluster | load average (start / end) | CPU s: bench process / den manager |',
    '|---|---|---|---:|---:|---:|---:|---:|',
    ...outcomes.flatMap((o) => o.figures.map((f) =>
      `| ${o.scenario} | ${f.name} | ${o.profile} | ${f.modelled.toFixed(1)} | ${f.cluster ?? '—'} | ${f.cluster ? (f.modelled / f.cluster).toFixed(2) : '—'} | ${o.load[0].toFixed(1)} / ${o.load[1].toFixed(1)} | ${o.benchCpu.toFixed(1)} / ${o.managerCpu === undefined ? '—' : o.managerCpu.toFixed(1)} |`)),
  ];
  return `${lines.join('\n')}\n\nDen as measured on the cluster: \`den manager ${MANAGER_FLAGS.join(' ')}\`. The bench's process holds the fake API server, the creating client and the floor's streams; on 2 cores a run whose load average is well above 2 had its figures stretched by waiting for CPU, not by the model.\n`;
}
