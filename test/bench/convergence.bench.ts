// How long the reconcile loop takes to converge N UserSpaces and N Workspaces against the
// in-process fake API server (which shares the one Node thread with the manager, so these
// figures include the server's own work). Cold start: the objects exist before the manager
// starts, as after a manager restart or a fail-over.
import { Manager } from '../../hooks/manager.js';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { workspace, workspaceImage } from '../hooks/workspace/inputs.js';

const N = Number(process.env.DEN_BENCH_CONVERGENCE_N ?? 1000);
const TIMEOUT_MS = 120_000;

type WithStatus = KubeObject & { status?: { phase?: string; observedGeneration?: number } };

interface Row {
  what: string;
  concurrency: number;
  seconds: number;
  requests: number;
  applies: number;
  statusWrites: number;
  reconciles: number;
}

async function converge(kind: 'UserSpace' | 'Workspace', concurrency: number): Promise<Row> {
  const api = new FakeApiServer();
  await api.start();
  try {
    const seeded = kind === 'UserSpace' ? seedUserSpaces(api) : seedWorkspaces(api);
    const done = (o: WithStatus) => o.status?.observedGeneration === o.metadata?.generation && o.status?.phase === (kind === 'UserSpace' ? 'Ready' : 'Starting');
    const resource = kind === 'UserSpace' ? RESOURCES.userSpace : RESOURCES.workspace;
    const before = api.requests.length;
    const manager = new Manager(api.client(), {
      config: { namespace: 'svc-system', gatewayHost: 'den.example.com', gpuResource: 'nvidia.com/gpu', relistIntervalMs: 10 * 60_000, idleStop: false },
      leaderElect: false,
      log: () => undefined,
      controller: { concurrency },
    });
    const stop = new AbortController();
    const started = performance.now();
    const running = manager.run(stop.signal);
    const deadline = Date.now() + TIMEOUT_MS;
    while (api.objects<WithStatus>(resource).filter(done).length < seeded) {
      if (Date.now() > deadline) throw new Error(`${kind}: not converged after ${TIMEOUT_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const controller = manager.controllers!.find((c) => c.spec.parent.kind === kind)!;
    const { applies, statusWrites, reconciles } = controller.stats;
    const requests = api.requests.length - before;
    stop.abort();
    await running;
    return { what: `${seeded} ${kind}s`, concurrency, seconds, requests, applies, statusWrites, reconciles };
  } finally {
    await api.close();
  }
}

function seedUserSpaces(api: FakeApiServer): number {
  for (let i = 0; i < N; i++) {
    api.seed({
      apiVersion: 'den.dev/v1alpha1',
      kind: 'UserSpace',
      metadata: { name: `user${i}` },
      spec: { owner: `user${i}@example.com`, quota: { cpu: '4', memory: '8Gi', storage: '50Gi', workspaces: 3 }, networkPolicy: i % 2 ? 'Isolated' : 'ClusterEgress' },
    });
  }
  return N;
}

/** N Workspaces spread over N/10 user namespaces, all of one WorkspaceImage. */
function seedWorkspaces(api: FakeApiServer): number {
  const image = workspaceImage();
  api.seed({ ...image, metadata: { name: image.metadata!.name } });
  const template = workspace();
  const namespaces = Math.max(1, Math.ceil(N / 10));
  for (let n = 0; n < namespaces; n++) api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `svc-user${n}` } });
  for (let i = 0; i < N; i++) {
    api.seed({ apiVersion: template.apiVersion, kind: template.kind, metadata: { name: `ws${i}`, namespace: `svc-user${i % namespaces}` }, spec: template.spec });
  }
  return N;
}

export async function run(): Promise<string> {
  const rows: Row[] = [];
  for (const concurrency of [4, 16]) rows.push(await converge('UserSpace', concurrency));
  for (const concurrency of [4, 16]) rows.push(await converge('Workspace', concurrency));
  const lines = [
    '| converge (cold start) | workers | seconds | objects/s | API requests | applies | status writes | reconciles |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.what} | ${r.concurrency} | ${r.seconds.toFixed(1)} | ${(Number(r.what.split(' ')[0]) / r.seconds).toFixed(0)} | ${r.requests} | ${r.applies} | ${r.statusWrites} | ${r.reconciles} |`),
  ];
  return lines.join('\n') + `\n\nIn-process fake API server on the same Node thread; workers = reconciles in flight per controller (4 is the default). Objects/s = objects converged per second.\n`;
}
