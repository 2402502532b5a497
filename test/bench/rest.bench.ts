// REST overhead for `GET /api/v1/workspaces` against a direct list of the same Workspaces with
// a minted ServiceAccount token, and what the minted-token cache saves: one process holds the
// in-process fake API server, `den server`'s app (two instances: cache on, cache off) and the
// client, so the figures are ratios on one machine, measured side by side in alternating rounds.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { RESOURCES } from '../../kube/resources.js';
import { TokenMinter } from '../../server/auth/minting.js';
import { call, login, provision, SERVER_TOKEN, seedLocalUser, startCluster, startDen } from '../server/core/cluster.js';

const WORKSPACES = 5;
const SEQUENTIAL = 300;
const CONCURRENCY = 16;
const THROUGHPUT_MS = 2000;
const ROUNDS = 3;
const WARMUP_MS = 1500;

type Probe = () => Promise<void>;

/** One GET over a keep-alive agent, as the KubeClient of the direct path does (fetch adds its own overhead). */
function get(agent: http.Agent, url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function latencies(probe: Probe, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await probe();
    out.push(performance.now() - t);
  }
  return out;
}

async function throughput(probe: Probe, ms: number, concurrency: number): Promise<number> {
  const end = performance.now() + ms;
  let done = 0;
  const worker = async () => {
    while (performance.now() < end) {
      await probe();
      done++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done / ((performance.now() - start) / 1000);
}

export async function run(): Promise<string> {
  const api = await startCluster();
  provision(api, 'alice', 'alice@example.com');
  await seedLocalUser(api, 'alice', 'alice@example.com', 'alice-password');
  for (let i = 0; i < WORKSPACES; i++) {
    api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: `w${i}`, namespace: 'svc-alice' }, spec: { imageRef: { name: 'python' }, storage: '1Gi' } });
  }
  const cached = await startDen(api);
  const uncached = await startDen(api, { cacheMintedTokens: false });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  try {
    const signed = await login(cached, 'alice', 'alice-password');
    const { body } = await call(cached, 'POST', '/tokens', { as: signed });
    const bearer = body.token as string;
    const direct = api.client(await new TokenMinter(api.client(SERVER_TOKEN), { ttlSeconds: 600 }).token('svc-alice', 'session'));

    const auth = { Authorization: `Bearer ${bearer}` };
    const check = (label: string, res: { status: number; body: string }) => {
      if (res.status !== 200) throw new Error(`${label}: HTTP ${res.status} ${res.body}`);
      const list = JSON.parse(res.body) as { items: unknown[] };
      if (list.items.length !== WORKSPACES) throw new Error(`${label}: ${list.items.length} workspaces`);
    };
    const probes: [string, Probe][] = [
      ['direct API call (minted token)', async () => {
        const list = await direct.list(RESOURCES.workspace, { namespace: 'svc-alice' });
        if (list.items.length !== WORKSPACES) throw new Error('direct: wrong list');
      }],
      ['REST, minted-token cache on', async () => check('cached', await get(agent, `${cached.api}/workspaces`, auth))],
      ['REST, minted-token cache off', async () => check('uncached', await get(agent, `${uncached.api}/workspaces`, auth))],
    ];

    // Warm every path up (JIT, sockets) before measuring anything.
    for (const [, probe] of probes) await throughput(probe, WARMUP_MS, CONCURRENCY);
    const lat = new Map<string, number[]>(probes.map(([name]) => [name, []]));
    const rps = new Map<string, number[]>(probes.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with a different path, so warm-up and GC do not favour one.
      const order = probes.map((_, i) => probes[(i + round) % probes.length]!);
      for (const [name, probe] of order) lat.get(name)!.push(...(await latencies(probe, SEQUENTIAL)));
      for (const [name, probe] of order) rps.get(name)!.push(await throughput(probe, THROUGHPUT_MS, CONCURRENCY));
    }

    const baseP50 = quantile([...lat.get(probes[0]![0])!].sort((a, b) => a - b), 0.5);
    const median = (values: number[]) => quantile([...values].sort((a, b) => a - b), 0.5);
    const baseRps = median(rps.get(probes[0]![0])!);
    const rows = probes.map(([name]) => {
      const sorted = [...lat.get(name)!].sort((a, b) => a - b);
      const p50 = quantile(sorted, 0.5);
      const rate = median(rps.get(name)!);
      const added = name === probes[0]![0] ? '—' : `+${(p50 - baseP50).toFixed(2)} ms`;
      return `| ${name} | ${rate.toFixed(0)} | ${(rate / baseRps).toFixed(2)}× | ${p50.toFixed(2)} | ${quantile(sorted, 0.95).toFixed(2)} | ${added} |`;
    });
    return [
      `GET /api/v1/workspaces (bearer token, ${WORKSPACES} Workspaces) vs. listing them directly; ${SEQUENTIAL * ROUNDS} sequential calls for latency,`,
      `${CONCURRENCY} concurrent clients for ${THROUGHPUT_MS / 1000} s × ${ROUNDS} rounds for throughput (median round). Fake API server, server and client share one process.`,
      '',
      '| path | requests/s | vs. direct | p50 ms | p95 ms | added p50 |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows,
    ].join('\n');
  } finally {
    agent.destroy();
    await cached.close();
    await uncached.close();
    await api.close();
  }
}
