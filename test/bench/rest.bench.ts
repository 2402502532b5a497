// REST overhead for `GET /api/v1/workspaces` against a direct list of the same Workspaces with
// a minted ServiceAccount token, and what the minted-token cache saves: one process holds the
// in-process fake API server, `den server`'s app (two instances: cache on, cache off) and the
// client, so the figures are ratios on one machine, measured side by side in alternating rounds.
// Then `GET /api/v1/workspace-images` over a catalog of hundreds of entries, with the API server
// a network round trip away, one access review at a time against the default fan-out.
import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { KubeClient, type KubeObject } from '../../kube/client.js';
import { staticConnection } from '../../kube/connection.js';
import { RESOURCES } from '../../kube/resources.js';
import { DEFAULT_CATALOG_CONCURRENCY } from '../../server/api/catalog.js';
import { TokenMinter } from '../../kube/minting.js';
import type { FakeApiServer } from '../support/fake-apiserver.js';
import { addPerson, call, login, SERVER_TOKEN, startCluster, startDen } from '../server/core/cluster.js';
import { median, quantile } from './stats.js';

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

const CATALOG_ENTRIES = 300;
/** One in this many entries is usable for the restricted person. */
const USABLE_EVERY = 7;
/** Each way, so an API call costs about twice this more than in-process: a nearby API server. */
const ONE_WAY_DELAY_MS = 1;
const CATALOG_LISTS = 5;

/** A TCP relay to `target` that holds every chunk `oneWayMs` in each direction, order kept. */
async function delayingProxy(target: string, oneWayMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    const both = [client, upstream];
    for (const socket of both) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => both.forEach((s) => s.destroy()));
    }
    const relay = (from: net.Socket, to: net.Socket) => {
      from.on('data', (chunk) => setTimeout(() => to.destroyed || to.write(chunk), oneWayMs));
      from.on('end', () => setTimeout(() => to.end(), oneWayMs));
    };
    relay(client, upstream);
    relay(upstream, client);
  });
  server.on('error', () => server.close());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Narrows `use` of `userspace`'s person to the named entries, as an administrator could with RBAC alone. */
function restrictUse(api: FakeApiServer, userspace: string, usable: string[]): void {
  const role = api.object<KubeObject & { rules: { resources: string[]; verbs: string[] }[] }>(RESOURCES.clusterRole, `svc-userspace-${userspace}`)!;
  role.rules = [
    ...role.rules.map((r) => (r.resources.includes('workspaceimages') ? { ...r, verbs: r.verbs.filter((v) => v !== 'use') } : r)),
    { apiGroups: ['den.dev'], resources: ['workspaceimages'], verbs: ['use'], resourceNames: usable } as (typeof role.rules)[number],
  ];
  api.seed(role);
}

async function catalogTable(): Promise<string> {
  const api = await startCluster();
  const proxy = await delayingProxy(api.url, ONE_WAY_DELAY_MS);
  const names = Array.from({ length: CATALOG_ENTRIES }, (_, i) => `image-${String(i).padStart(3, '0')}`);
  for (const name of names) api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name }, spec: { displayName: name, image: `registry.example.com/${name}:1` } });
  const usable = names.filter((_, i) => i % USABLE_EVERY === 0);
  await addPerson(api, 'alice');
  await addPerson(api, 'dave');
  restrictUse(api, 'dave', usable);
  const serverClient = new KubeClient(staticConnection(proxy.url, SERVER_TOKEN));
  const serial = await startDen(api, { serverClient, catalogConcurrency: 1 });
  const fanned = await startDen(api, { serverClient });
  const agent = new http.Agent({ keepAlive: true });
  try {
    const tokenOf = async (userspace: string) => {
      const signed = await login(fanned, userspace, `${userspace}-password`);
      return (await call(fanned, 'POST', '/tokens', { as: signed })).body.token as string;
    };
    const alice = await tokenOf('alice');
    const dave = await tokenOf('dave');
    const timeList = async (den: typeof serial, token: string, expected: number): Promise<number> => {
      const samples: number[] = [];
      for (let i = 0; i < CATALOG_LISTS + 1; i++) {
        const t = performance.now();
        const res = await get(agent, `${den.api}/workspace-images`, { Authorization: `Bearer ${token}` });
        const answered = res.status === 200 ? (JSON.parse(res.body) as { items: unknown[] }).items.length : -1;
        if (answered !== expected) throw new Error(`catalog: HTTP ${res.status}, ${answered} entries: ${res.body.slice(0, 200)}`);
        // The first list mints the token and warms the connections.
        if (i > 0) samples.push(performance.now() - t);
      }
      return median(samples);
    };
    const everyEntry = await timeList(fanned, alice, CATALOG_ENTRIES);
    const oneAtATime = await timeList(serial, dave, usable.length);
    const fannedOut = await timeList(fanned, dave, usable.length);
    return [
      `GET /api/v1/workspace-images over ${CATALOG_ENTRIES} entries, the API server behind a relay adding ${ONE_WAY_DELAY_MS} ms each way; median of ${CATALOG_LISTS} lists.`,
      '',
      '| caller | access reviews per list | reviews in flight | entries answered | ms per list |',
      '|---|---:|---:|---:|---:|',
      `| may use every entry | 1 | — | ${CATALOG_ENTRIES} | ${everyEntry.toFixed(0)} |`,
      `| may use 1 in ${USABLE_EVERY} | ${CATALOG_ENTRIES + 1} | 1 | ${usable.length} | ${oneAtATime.toFixed(0)} |`,
      `| may use 1 in ${USABLE_EVERY} | ${CATALOG_ENTRIES + 1} | ${DEFAULT_CATALOG_CONCURRENCY} (default) | ${usable.length} | ${fannedOut.toFixed(0)} (${(oneAtATime / fannedOut).toFixed(1)}× faster) |`,
    ].join('\n');
  } finally {
    agent.destroy();
    await serial.close();
    await fanned.close();
    await proxy.close();
    await api.close();
  }
}

export async function run(): Promise<string> {
  return [await workspacesTable(), '', await catalogTable()].join('\n');
}

async function workspacesTable(): Promise<string> {
  const api = await startCluster();
  await addPerson(api, 'alice');
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
    const direct = api.client((await new TokenMinter(api.client(SERVER_TOKEN), { ttlSeconds: 600 }).token({ ownerUid: 'bench', namespace: 'svc-alice', serviceAccount: 'session' })).token);

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

    const baseP50 = median(lat.get(probes[0]![0])!);
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
