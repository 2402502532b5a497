// How long the reconcile loop takes to converge N UserSpaces and N Workspaces against the
// in-process fake API server (which shares the one Node thread with the manager, so these
// figures include the server's own work). Cold start: the objects exist before the manager
// starts, as after a manager restart or a fail-over. The manager runs under its own
// ServiceAccount with the chart's RBAC, so the API server's escalation check applies to the
// bindings it writes, and a reconcile that fails (to be retried) shows in "failed reconciles".
import { Manager } from '../../hooks/manager.js';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';
import { renderInstall } from '../../infra/install/synth.js';
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
  failures: number;
}

async function converge(kind: 'UserSpace' | 'Workspace', concurrency: number): Promise<Row> {
  const api = new FakeApiServer();
  await api.start();
  try {
    const seeded = kind === 'UserSpace' ? seedUserSpaces(api) : seedWorkspaces(api);
    const done = (o: WithStatus) => o.status?.observedGeneration === o.metadata?.generation && o.status?.phase === (kind === 'UserSpace' ? 'Ready' : 'Starting');
    const resource = kind === 'UserSpace' ? RESOURCES.userSpace : RESOURCES.workspace;
    const before = api.requests.length;
    const manager = new Manager(api.client(await managerToken(api)), {
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
    const { applies, statusWrites, reconciles, failures } = controller.stats;
    const requests = api.requests.length - before;
    stop.abort();
    await running;
    return { what: `${seeded} ${kind}s`, concurrency, seconds, requests, applies, statusWrites, reconciles, failures };
  } finally {
    await api.close();
  }
}

/** A token of den-manager's ServiceAccount, its ClusterRoles and bindings seeded as the chart has them. */
async function managerToken(api: FakeApiServer): Promise<string> {
  const identity = ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];
  for (const obj of renderInstall(DEFAULT_SETTINGS)) if (identity.includes(String(obj.kind))) api.seed(obj);
  const minted = await api.client().request<{ status: { token: string } }>({ method: 'POST', path: '/api/v1/namespaces/svc-system/serviceaccounts/den-manager/token', body: { spec: {} } });
  return minted.status.token;
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
    '| converge (cold start) | workers | seconds | objects/s | API requests | requests per object | applies | status writes | reconciles | failed reconciles |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => {
      const objects = Number(r.what.split(' ')[0]);
      return `| ${r.what} | ${r.concurrency} | ${r.seconds.toFixed(1)} | ${(objects / r.seconds).toFixed(0)} | ${r.requests} | ${(r.requests / objects).toFixed(1)} | ${r.applies} | ${r.statusWrites} | ${r.reconciles} | ${r.failures} |`;
    }),
  ];
  const failed = rows.filter((r) => r.failures > 0).map((r) => `${r.what} with ${r.concurrency} workers`);
  if (failed.length) throw new Error(`reconciles failed on a first pass (${failed.join(', ')}): children applied in an order the API server refuses?\n${lines.join('\n')}`);
  return lines.join('\n') + `\n\nIn-process fake API server on the same Node thread; the manager under its own ServiceAccount; workers = reconciles in flight per controller (4 is the default). Objects/s = objects converged per second; requests per object = API requests (lists, watches, applies, status and finalizer writes) per converged object. Failed reconciles must be 0: every object converges on its first pass.\n`;
}
