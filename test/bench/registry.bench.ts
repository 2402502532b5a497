// One sync of a registry of 1,000 repositories × 20 tags: the real AWS SDK listing the loopback
// ECR fake, then den manager writing the catalog into the in-process fake API server (which
// shares the one Node thread, so its work is in the figures). Then a forced resync of the
// unchanged registry: the goal is no write to any catalog entry.
import { performance } from 'node:perf_hooks';
import { Manager } from '../../hooks/manager.js';
import { cloudRegistryProvider } from '../../hooks/registry/cloud-registry.js';
import { defaultProviders } from '../../hooks/registry/providers.js';
import { denCrds } from '../../contract/index.js';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { fakeAwsEnvironment, FakeEcr, useAwsEnvironment } from '../support/fake-ecr.js';

const REPOSITORIES = Number(process.env.DEN_BENCH_REGISTRY_REPOSITORIES ?? 1000);
const TAGS = 20;
const ACCOUNT = '111122223333';
const TIMEOUT_MS = 300_000;

type Registry = KubeObject & { status?: { images?: number; lastSyncTime?: string; observedGeneration?: number; conditions?: { type: string; status: string }[] } };

function seed(ecr: FakeEcr): void {
  for (let r = 0; r < REPOSITORIES; r++) {
    ecr.putRepository(ACCOUNT, `team-${Math.floor(r / 100)}/service-${r}`, Array.from({ length: TAGS }, (_, t) => ({ tags: [`1.${t}.0`], pushedAt: 1_750_000_000 + t * 60 })));
  }
}

async function until(what: string, probe: () => boolean): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached after ${TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Row {
  what: string;
  seconds: number;
  ecrCalls: number;
  entryWrites: number;
  statusWrites: number;
  entries: number;
}

function table(rows: Row[]): string {
  const lines = [
    `${REPOSITORIES} repositories × ${TAGS} tags on the loopback ECR fake; kube writes to the in-process fake API server.`,
    '',
    '| step | wall time (s) | ECR API calls | catalog entry writes | status writes | entries owned |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.what} | ${r.seconds.toFixed(2)} | ${r.ecrCalls} | ${r.entryWrites} | ${r.statusWrites} | ${r.entries} |`),
  ];
  return lines.join('\n');
}

async function listingOnly(ecr: FakeEcr): Promise<Row> {
  const before = ecr.calls.length;
  const started = performance.now();
  const listing = await cloudRegistryProvider().list({ spec: { cloud: { region: 'eu-west-1' } }, wantsRepository: () => true, signal: AbortSignal.timeout(TIMEOUT_MS) });
  const seconds = (performance.now() - started) / 1000;
  const images = listing.repositories.reduce((n, r) => n + r.images.length, 0);
  return { what: `listing alone (${images} images)`, seconds, ecrCalls: ecr.calls.length - before, entryWrites: 0, statusWrites: 0, entries: 0 };
}

async function throughManager(ecr: FakeEcr, limit: number): Promise<Row[]> {
  const api = new FakeApiServer();
  await api.start();
  api.installCrds(denCrds().map((crd) => ({ ...crd })));
  const manager = new Manager(api.client(), {
    config: {
      namespace: 'svc-system',
      gatewayHost: 'den.example.com',
      idleStop: false,
      gpuResource: 'nvidia.com/gpu',
      relistIntervalMs: 10 * 60_000,
      registrySync: { providers: defaultProviders(), listingTimeoutMs: TIMEOUT_MS },
    },
    leaderElect: false,
    log: () => undefined,
  });
  const stop = new AbortController();
  const running = manager.run(stop.signal);
  try {
    const get = () => api.object<Registry>(RESOURCES.imageRegistry, 'bench');
    const ready = () => get()?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
    const entryWrites = () => api.requests.filter((r) => r.path.startsWith('/apis/den.dev/v1alpha1/workspaceimages') && ['PATCH', 'PUT', 'POST', 'DELETE'].includes(r.method)).length;
    const statusWrites = () => api.requests.filter((r) => r.path === '/apis/den.dev/v1alpha1/imageregistries/bench/status' && r.method === 'PUT').length;
    const rows: Row[] = [];

    let ecrBefore = ecr.calls.length;
    let started = performance.now();
    await api.client().create(RESOURCES.imageRegistry, {
      apiVersion: 'den.dev/v1alpha1',
      kind: 'ImageRegistry',
      metadata: { name: 'bench' },
      spec: { provider: 'cloud-registry', cloud: { region: 'eu-west-1' }, sync: { tags: { limit }, prune: true } },
    });
    await until('first sync', () => ready() && get()?.status?.images === REPOSITORIES * limit);
    rows.push({ what: `first sync, tags.limit ${limit}`, seconds: (performance.now() - started) / 1000, ecrCalls: ecr.calls.length - ecrBefore, entryWrites: entryWrites(), statusWrites: statusWrites(), entries: get()!.status!.images! });

    // The status write of the first sync has landed; a second one would be a new listing's.
    const firstSync = get()!.status!.lastSyncTime;
    await new Promise((r) => setTimeout(r, 1100));
    const [writesBefore, statusBefore] = [entryWrites(), statusWrites()];
    ecrBefore = ecr.calls.length;
    started = performance.now();
    await api.client().patch(RESOURCES.imageRegistry, 'bench', { metadata: { annotations: { 'den.dev/force-sync': 'bench' } } });
    await until('resync', () => ready() && get()?.status?.lastSyncTime !== firstSync);
    rows.push({
      what: `forced resync, nothing changed, tags.limit ${limit}`,
      seconds: (performance.now() - started) / 1000,
      ecrCalls: ecr.calls.length - ecrBefore,
      entryWrites: entryWrites() - writesBefore,
      statusWrites: statusWrites() - statusBefore,
      entries: get()!.status!.images!,
    });
    return rows;
  } finally {
    stop.abort();
    await running;
    await api.close();
  }
}

export async function run(): Promise<string> {
  const ecr = await new FakeEcr({ accounts: { AKIDDENTEST: ACCOUNT } }).start();
  const restore = useAwsEnvironment(fakeAwsEnvironment(ecr.url, 'AKIDDENTEST'));
  try {
    seed(ecr);
    const rows = [await listingOnly(ecr), ...(await throughManager(ecr, 1)), ...(await throughManager(ecr, TAGS))];
    return table(rows);
  } finally {
    restore();
    await ecr.stop();
  }
}
