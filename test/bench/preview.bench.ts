// Port preview against `kubectl port-forward` of the same port and a direct connection to the
// app: the latency a small GET gains by going browser -> den server -> pods/portforward (fake
// API server, fake kubelet) -> the app, and the throughput of a large body the same way.
// There is no kubectl or cluster here, so a small Go process stands in for `kubectl
// port-forward pod 0:3000` (test/bench/port-forward/main.go, built into a temporary folder): it
// listens on a loopback port and carries each connection it accepts over a pods/portforward
// websocket of its own to the same fake API server, as den server's preview does. The preview
// reuses a port forward the app left open for the next request of the same person
// (server/preview/tunnel-pool.ts), as a keep-alive connection to the stand-in keeps its one
// websocket; a second den server with reuse off (one port forward per request) pairs with a
// new connection to the stand-in per request. The reusing preview runs twice: den server in
// this process (sharing its event loop with the client, the fake API server and the kubelet)
// and a `den server` process of its own. Every client is Node's HTTP client in this process;
// the variants take turns, a slice of requests each, so all see the same machine. The fake
// API server answers in microseconds; a real one and its kubelet add the same round trips to
// both tunnels, and the reused pair is measured once more with GETs at the cluster's latency,
// as the preview confirms the session with one per request.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { portForwardPath } from '../../kube/portforward.js';
import { CLUSTER_PROFILE } from '../support/fake-apiserver.js';
import { FakeExec } from '../support/fake-exec.js';
import { freePort, kubeconfigYaml } from '../support/loopback.js';
import { addPerson, login, SERVER_TOKEN, SERVER_USER, startCluster, startDen } from '../server/core/cluster.js';
import { BenchProcess } from './den-process.js';
import { seedRunningWorkspace } from '../server/preview/world.js';
import { median, quantile } from './stats.js';

const SMALL_REQUESTS = 200;
/** The small GETs of each variant come in this many slices, the variants taking turns. */
const SMALL_SLICES = 4;
const BIG_BYTES = 32 << 20;
const BIG_ROUNDS = 5;
const POD_PORT = 3000;
const PORT_FORWARD_SOURCE = fileURLToPath(new URL('./port-forward/main.go', import.meta.url));

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
      let said = '';
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (res.statusCode !== 200) said += c.toString('utf8');
      });
      res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`${url}: ${res.statusCode} ${said.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').slice(0, 400)}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Milliseconds of each of `count` small GETs one after another, appended to `into`. */
async function latencies(url: string, agent: http.Agent, count: number, cookie?: string, into: number[] = []): Promise<number[]> {
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await get(url, agent, cookie);
    into.push(performance.now() - started);
  }
  return into;
}

async function throughput(url: string, agent: http.Agent, cookie?: string): Promise<number> {
  const started = performance.now();
  const bytes = await get(url, agent, cookie);
  if (bytes !== BIG_BYTES) throw new Error(`got ${bytes} of ${BIG_BYTES} bytes`);
  return bytes / ((performance.now() - started) / 1000);
}

interface PortForwardProcess {
  /** The loopback port it listens on. */
  port: number;
  /** What it wrote to stderr: an `E …` line for each connection it could not carry. */
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts the stand-in and waits for its `Forwarding from 127.0.0.1:PORT -> REMOTE` line. */
async function startPortForward(binary: string, url: string, token: string): Promise<PortForwardProcess> {
  const child: ChildProcess = spawn(binary, [url], { env: { ...process.env, DEN_BENCH_TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const listening = /^Forwarding from 127\.0\.0\.1:(\d+) -> \d+$/m.exec(out);
      if (listening) resolve(Number(listening[1]));
    });
    child.once('error', reject);
    void exited.then(() => reject(new Error(`the port-forward stand-in exited before listening: ${stderr}`)));
  });
  return {
    port,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A real `den server` process against `api`, and the session cookie of `person` on it. */
async function startDenProcess(api: { url: string }, dir: string, person: string): Promise<{ den: BenchProcess; url: string; cookie: string }> {
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, kubeconfigYaml(api.url, SERVER_USER, SERVER_TOKEN), { mode: 0o600 });
  const [port, health] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${port}`;
  const den = await BenchProcess.start('server', ['--kubeconfig', kubeconfig, '--listen', `127.0.0.1:${port}`, '--health-listen', `127.0.0.1:${health}`, '--base-url', url], health);
  const res = await fetch(`${url}/api/v1/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: person, password: `${person}-password` }) });
  if (res.status !== 204) {
    await den.stop();
    throw new Error(`login as ${person} on the den server process: HTTP ${res.status} ${await res.text()}`);
  }
  return { den, url, cookie: res.headers.getSetCookie()[0]!.split(';')[0]! };
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
  const viaDenProcess = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const viaForward = new http.Agent({ keepAlive: true, maxSockets: 1 });
  // Neither kept alive nor limited: Node's client asks for `Connection: close`, a new connection each time.
  const viaForwardNew = new http.Agent({ keepAlive: false });
  let forward: PortForwardProcess | undefined;
  let denProcess: Awaited<ReturnType<typeof startDenProcess>> | undefined;
  try {
    denProcess = await startDenProcess(api, home, 'demo');
    const binary = join(home, 'port-forward');
    await promisify(execFile)('go', ['build', '-o', binary, PORT_FORWARD_SOURCE]);
    const forwardPath = `${portForwardPath({ namespace: 'svc-demo', pod: 'dev-0' })}?ports=${POD_PORT}`;
    forward = await startPortForward(binary, `${api.url}${forwardPath}`, api.adminToken);
    const signed = await login(den, 'demo', 'demo-password');
    const directUrl = `http://127.0.0.1:${appPort}`;
    const previewUrl = `${den.url}/w/dev/ports/${POD_PORT}`;
    const noReuseUrl = `${denNoReuse.url}/w/dev/ports/${POD_PORT}`;
    const processUrl = `${denProcess.url}/w/dev/ports/${POD_PORT}`;
    const forwardUrl = `http://127.0.0.1:${forward.port}`;
    const variants = {
      direct: (n: number, into?: number[]) => latencies(`${directUrl}/small`, direct, n, undefined, into),
      preview: (n: number, into?: number[]) => latencies(`${previewUrl}/small`, viaDen, n, signed.cookie, into),
      process: (n: number, into?: number[]) => latencies(`${processUrl}/small`, viaDenProcess, n, denProcess!.cookie, into),
      forward: (n: number, into?: number[]) => latencies(`${forwardUrl}/small`, viaForward, n, undefined, into),
      noReuse: (n: number, into?: number[]) => latencies(`${noReuseUrl}/small`, viaDenNoReuse, n, signed.cookie, into),
      forwardNew: (n: number, into?: number[]) => latencies(`${forwardUrl}/small`, viaForwardNew, n, undefined, into),
    };
    // Warm-up: JIT, the minted token, the workspace lookup.
    for (const measure of Object.values(variants)) await measure(SMALL_REQUESTS / SMALL_SLICES);
    const small = { direct: [] as number[], preview: [] as number[], process: [] as number[], forward: [] as number[], noReuse: [] as number[], forwardNew: [] as number[] };
    for (let slice = 0; slice < SMALL_SLICES; slice++) {
      for (const [name, measure] of Object.entries(variants)) await measure(SMALL_REQUESTS / SMALL_SLICES, small[name as keyof typeof small]);
    }
    for (const times of Object.values(small)) times.sort((a, b) => a - b);
    const rates = { direct: [] as number[], preview: [] as number[], process: [] as number[], forward: [] as number[] };
    for (let i = 0; i < BIG_ROUNDS; i++) {
      rates.direct.push(await throughput(`${directUrl}/big`, direct));
      rates.preview.push(await throughput(`${previewUrl}/big`, viaDen, signed.cookie));
      rates.process.push(await throughput(`${processUrl}/big`, viaDenProcess, denProcess.cookie));
      rates.forward.push(await throughput(`${forwardUrl}/big`, viaForward));
    }
    // Each preview request confirms the person's session with the API server (server/auth/
    // sessions.ts: a sign-out on another replica holds at once); kubectl's connections make no
    // such request. So the reused pair once more with GETs answered as on the measured cluster.
    api.latency.use(CLUSTER_PROFILE);
    const onCluster = { preview: [] as number[], forward: [] as number[] };
    for (let slice = 0; slice < SMALL_SLICES; slice++) {
      await variants.preview(SMALL_REQUESTS / SMALL_SLICES, onCluster.preview);
      await variants.forward(SMALL_REQUESTS / SMALL_SLICES, onCluster.forward);
    }
    for (const times of Object.values(onCluster)) times.sort((a, b) => a - b);
    if (forward.stderr()) throw new Error(`the port-forward stand-in reported: ${forward.stderr()}`);
    const ms = (v: number) => v.toFixed(2);
    const mib = (bps: number) => (bps / (1 << 20)).toFixed(1);
    const m = Object.fromEntries(Object.entries(small).map(([k, v]) => [k, median(v)])) as Record<keyof typeof small, number>;
    const p90 = (times: number[]) => ms(quantile(times, 0.9));
    const [dr, pr, sr, fr] = [median(rates.direct), median(rates.preview), median(rates.process), median(rates.forward)];
    return [
      '| measure | value |',
      '|---|---|',
      `| small GET (100 B), direct loopback to the app: median (p90) of ${SMALL_REQUESTS} | ${ms(m.direct)} ms (${p90(small.direct)}) |`,
      `| same GET, tunnel reused: port preview (den server in the bench process) / port preview (den server, a process of its own) / port-forward stand-in (one kept-alive connection) | ${ms(m.preview)} ms (${p90(small.preview)}) / ${ms(m.process)} ms (${p90(small.process)}) / ${ms(m.forward)} ms (${p90(small.forward)}) |`,
      `| latency added over direct (median): preview in the bench process / preview, own process / stand-in | ${ms(m.preview - m.direct)} / ${ms(m.process - m.direct)} / ${ms(m.forward - m.direct)} ms |`,
      `| ratio preview / stand-in (median latency), tunnel reused: in the bench process, own process | ${(m.preview / m.forward).toFixed(2)}, ${(m.process / m.forward).toFixed(2)} |`,
      `| same GET, tunnel reused, API server GETs taking ${CLUSTER_PROFILE.meanMs.GET} ms on average as measured on a cluster: preview in the bench process / stand-in | ${ms(median(onCluster.preview))} ms (${p90(onCluster.preview)}) / ${ms(median(onCluster.forward))} ms (${p90(onCluster.forward)}) |`,
      `| same GET, a new pods/portforward per request: preview with reuse off (den server in the bench process) / stand-in, a new connection per request | ${ms(m.noReuse)} ms (${p90(small.noReuse)}) / ${ms(m.forwardNew)} ms (${p90(small.forwardNew)}) |`,
      `| latency added over direct (median): preview, reuse off / stand-in, new connections | ${ms(m.noReuse - m.direct)} / ${ms(m.forwardNew - m.direct)} ms |`,
      `| ratio preview / stand-in (median latency), reuse off / new connections | ${(m.noReuse / m.forwardNew).toFixed(2)} |`,
      `| ${BIG_BYTES >> 20} MiB body (median of ${BIG_ROUNDS}): direct loopback / preview in the bench process / preview, own process / port-forward stand-in | ${mib(dr)} / ${mib(pr)} / ${mib(sr)} / ${mib(fr)} MiB/s |`,
      `| ratio of throughputs: stand-in / direct | ${(fr / dr).toFixed(2)} |`,
      `| ratio of throughputs: preview / stand-in, in the bench process and own process | ${(pr / fr).toFixed(2)}, ${(sr / fr).toFixed(2)} |`,
      `| load average (1 min) at the end of the run | ${loadavg()[0]!.toFixed(1)} |`,
    ].join('\n');
  } catch (err) {
    // A request the stand-in could not carry fails as a hang-up; what it printed says why.
    const said = forward?.stderr();
    throw said ? new Error(`${(err as Error).message}; the port-forward stand-in reported: ${said}`) : err;
  } finally {
    direct.destroy();
    viaDen.destroy();
    viaDenNoReuse.destroy();
    viaDenProcess.destroy();
    viaForward.destroy();
    viaForwardNew.destroy();
    await forward?.stop();
    await denProcess?.den.stop();
    await den.close();
    await denNoReuse.close();
    await fake.close();
    await api.close();
    app.closeAllConnections();
    await new Promise((resolve) => app.close(resolve));
    await rm(home, { recursive: true, force: true });
  }
}
