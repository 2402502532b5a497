// 300 Workspaces created one after another through Den's webhooks (mutating and validating, two
// manager replicas behind one address, as behind their Service) on a real kube-apiserver, against
// 300 ConfigMaps created the same way in the same namespace: one client, one stream, each create
// timed from request to answer. The namespace belongs to a Ready UserSpace (its svc-quota counted
// by kube-controller-manager, count/workspaces.den.dev included) with room for every Workspace;
// the manager reconciles the created Workspaces (Services, StatefulSets) meanwhile, as it would.
// Which kind goes first alternates between runs.
//
// DEN_BENCH_REAL_WORKSPACES: how many of each (default 300).
import type { KubeObject } from '../../kube/client.js';
import { userNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { median, quantile } from './stats.js';
import { ratio, startRealCluster, until, type RealBenchCluster } from './real-den.js';

const COUNT = Number(process.env.DEN_BENCH_REAL_WORKSPACES ?? 300);
if (!Number.isInteger(COUNT) || COUNT < 1) throw new Error(`DEN_BENCH_REAL_WORKSPACES: ${JSON.stringify(process.env.DEN_BENCH_REAL_WORKSPACES)} is not a count of Workspaces`);
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl bench@laptop';

export const repetitions = 3;
let runIndex = 0;

interface Stream {
  seconds: number;
  medianMs: number;
  p90Ms: number;
}

async function stream(create: (i: number) => Promise<unknown>): Promise<Stream> {
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < COUNT; i++) {
    const t = performance.now();
    await create(i);
    times.push(performance.now() - t);
  }
  const sorted = times.sort((a, b) => a - b);
  return { seconds: (performance.now() - started) / 1000, medianMs: median(sorted), p90Ms: quantile(sorted, 0.9) };
}

/** A person with room for every Workspace of the bench, Ready (its quota counted), and an image. */
async function person(cluster: RealBenchCluster, name: string): Promise<string> {
  await cluster.admin.apply(RESOURCES.workspaceImage, { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'ubuntu' }, spec: { displayName: 'Ubuntu', image: 'docker.io/library/ubuntu:24.04' } }, 'kubectl');
  const room = COUNT + 10;
  await cluster.admin.apply(
    RESOURCES.userSpace,
    { apiVersion: 'den.dev/v1alpha1', kind: 'UserSpace', metadata: { name }, spec: { owner: `${name}@example.com`, quota: { cpu: String(room), memory: `${room}Gi`, storage: `${room}Gi`, workspaces: room }, networkPolicy: 'Isolated' } },
    'kubectl',
  );
  await until(`UserSpace ${name} Ready`, async () => (await cluster.admin.get<KubeObject & { status?: { phase?: string } }>(RESOURCES.userSpace, name)).status?.phase === 'Ready', 120_000);
  return userNamespace(name);
}

export async function run(): Promise<string> {
  const run = runIndex++;
  const cluster = await startRealCluster();
  try {
    const namespace = await person(cluster, `bench${run}`);
    const workspaces = () =>
      stream((i) =>
        cluster.admin.create(RESOURCES.workspace, {
          apiVersion: 'den.dev/v1alpha1',
          kind: 'Workspace',
          metadata: { name: `ws${i}`, namespace },
          spec: { imageRef: { name: 'ubuntu' }, storage: '1Gi', resources: { requests: { cpu: '500m', memory: '512Mi' } }, sshAuthorizedKeys: [KEY] },
        }, namespace),
      );
    const configMaps = () => stream((i) => cluster.admin.create(RESOURCES.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm${i}`, namespace }, data: { key: `value ${i}` } }, namespace));
    let ws: Stream;
    let cm: Stream;
    if (run % 2 === 0) {
      cm = await configMaps();
      ws = await workspaces();
    } else {
      ws = await workspaces();
      cm = await configMaps();
    }
    return [
      `| ${COUNT} creates in one stream | total, s | median, ms | p90, ms |`,
      '|---|---:|---:|---:|',
      `| Workspace, through Den's webhooks | ${ws.seconds.toFixed(2)} | ${ws.medianMs.toFixed(1)} | ${ws.p90Ms.toFixed(1)} |`,
      `| ConfigMap | ${cm.seconds.toFixed(2)} | ${cm.medianMs.toFixed(1)} | ${cm.p90Ms.toFixed(1)} |`,
      `| Workspace ÷ ConfigMap | ${ratio(ws.seconds, cm.seconds)} | ${ratio(ws.medianMs, cm.medianMs)} | ${ratio(ws.p90Ms, cm.p90Ms)} |`,
      '',
      `A real kube-apiserver (kapi, Kubernetes 1.25) with etcd and kube-controller-manager, fresh for each run; Den installed from the chart, two managers (their webhooks behind one round-robin address), servers and gateways (tsx). One client (the administrator's token) creates one object at a time in a Ready person's namespace; the manager reconciles the Workspaces meanwhile. Which kind goes first alternates between runs.`,
    ].join('\n');
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${cluster.den?.diagnostics(15) ?? ''}`);
  } finally {
    await cluster.stop();
  }
}
