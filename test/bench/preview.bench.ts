// Port preview against a direct connection to the same app: the latency a small GET gains by
// going browser -> den server -> pods/portforward (fake API server, fake kubelet) -> the app,
// and the throughput of a large body the same way. Both clients keep their connection to the
// first hop alive. The preview reuses a port forward the app left open for the next request of
// the same person (server/preview/tunnel-pool.ts); a second den server with reuse off (one port
// forward per request, as the portforward protocol carries one TCP stream per websocket) shows
// what that saves. `kubectl port-forward` is not available on this
// machine (no kubectl, no cluster), so the comparison is with a direct loopback connection to
// the app: what the preview adds over any tunnel at all. The fake API server answers in
// microseconds; a real one and its kubelet add their own round trips.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { FakeExec } from '../support/fake-exec.js';
import { addPerson, login, startCluster, startDen } from '../server/core/cluster.js';
import { seedRunningWorkspace } from '../server/preview/world.js';
import { median, quantile } from './stats.js';

const SMALL_REQUESTS = 200;
const BIG_BYTES = 32 << 20;
const BIG_ROUNDS = 3;
const POD_PORT = 3000;

function startApp(): Promise<http.Server> {
  const small = Buffer.alloc(100, 'x');
  const big = Buffer.alloc(1 << 20, 'y');
  const server = http.createServer((req, res) => {
    if (req.url === '/small') return void res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': small.length }).end(small);
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': BIG_BYTES });
    let sent = 0;
    const pump = (): void => {
      while (sent < BIG_BYTES) {
        sent += big.length;
        if (!res.write(big)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** One GET to completion; the bytes of the body. */
function get(url: string, agent: http.Agent, cookie?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: cookie ? { Cookie: cookie } : {} }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`${url}: ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function latencies(url: string, agent: http.Agent, cookie?: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < SMALL_REQUESTS; i++) {
    const started = performance.now();
    await get(url, agent, cookie);
    out.push(performance.now() - started);
  }
  return out.sort((a, b) => a - b);
}

async function throughput(url: string, agent: http.Agent, cookie?: string): Promise<number> {
  const started = performance.now();
  const bytes = await get(url, agent, cookie);
  if (bytes !== BIG_BYTES) throw new Error(`got ${bytes} of ${BIG_BYTES} bytes`);
  return bytes / ((performance.now() - started) / 1000);
}

export async function run(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'den-preview-bench-'));
  const app = await startApp();
  const appPort = (app.address() as AddressInfo).port;
  const api = await startCluster();
  await addPerson(api, 'demo');
  seedRunningWorkspace(api, 'dev', 'svc-demo');
  const fake = new FakeExec({ cwd: home, localPort: (port) => (port === POD_PORT ? appPort : port) });
  fake.attachTo(api);
  const den = await startDen(api);
  const denNoReuse = await startDen(api, { previewLimits: { tunnelIdleMs: 0 } });
  const direct = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const viaDen = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const viaDenNoReuse = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const signed = await login(den, 'demo', 'demo-password');
    const directUrl = `http://127.0.0.1:${appPort}`;
    const previewUrl = `${den.url}/w/dev/ports/${POD_PORT}`;
    const noReuseUrl = `${denNoReuse.url}/w/dev/ports/${POD_PORT}`;
    // Warm-up: JIT, the minted token, the workspace lookup.
    await latencies(`${directUrl}/small`, direct);
    await latencies(`${previewUrl}/small`, viaDen, signed.cookie);
    await latencies(`${noReuseUrl}/small`, viaDenNoReuse, signed.cookie);
    const d = await latencies(`${directUrl}/small`, direct);
    const p = await latencies(`${previewUrl}/small`, viaDen, signed.cookie);
    const n = await latencies(`${noReuseUrl}/small`, viaDenNoReuse, signed.cookie);
    const directRates: number[] = [];
    const previewRates: number[] = [];
    for (let i = 0; i < BIG_ROUNDS; i++) {
      directRates.push(await throughput(`${directUrl}/big`, direct));
      previewRates.push(await throughput(`${previewUrl}/big`, viaDen, signed.cookie));
    }
    const ms = (v: number) => v.toFixed(2);
    const mib = (bps: number) => (bps / (1 << 20)).toFixed(1);
    const [dm, pm] = [median(d), median(p)];
    const [dr, pr] = [median(directRates), median(previewRates)];
    return [
      '| measure | value |',
      '|---|---|',
      `| small GET (100 B), direct loopback to the app: median (p90) of ${SMALL_REQUESTS} | ${ms(dm)} ms (${ms(quantile(d, 0.9))}) |`,
      `| same GET through the port preview (den server, tunnel reused) | ${ms(pm)} ms (${ms(quantile(p, 0.9))}) |`,
      `| latency the preview adds (median) | ${ms(pm - dm)} ms |`,
      `| same GET with tunnel reuse off (one pods/portforward per request) | ${ms(median(n))} ms (${ms(quantile(n, 0.9))}) |`,
      `| latency the preview adds without reuse (median) | ${ms(median(n) - dm)} ms |`,
      `| ${BIG_BYTES >> 20} MiB body, direct loopback (median of ${BIG_ROUNDS}) | ${mib(dr)} MiB/s |`,
      `| same body through the port preview | ${mib(pr)} MiB/s |`,
      `| ratio preview / direct throughput | ${(pr / dr).toFixed(2)} |`,
    ].join('\n');
  } finally {
    direct.destroy();
    viaDen.destroy();
    viaDenNoReuse.destroy();
    await den.close();
    await denNoReuse.close();
    await fake.close();
    await api.close();
    app.closeAllConnections();
    await new Promise((resolve) => app.close(resolve));
    await rm(home, { recursive: true, force: true });
  }
}
