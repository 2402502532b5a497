// SSH gateway figures, measured side by side in one run: throughput of a command's output
// through `den gateway` (a separate process, ssh2 client in this one) against the same
// pods/exec stream read directly from the same fake API server; session set-up time; and
// the gateway process's resident memory per idle session with 100 open.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import ssh2, { type ClientChannel } from 'ssh2';
import { startExec } from '../../kube/exec.js';
import { generateHostKey } from '../../gateway/host-key.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { FakeExec } from '../support/fake-exec.js';
import { freePort, kubeconfigYaml } from '../support/loopback.js';
import { GATEWAY_TOKEN, NAMESPACE, pod, prepareCluster, workspace } from '../gateway/harness.js';
import { median } from './stats.js';

const PAYLOAD = 48 * 1024 * 1024;
const ROUNDS = 3;
const SETUPS = 15;
const IDLE_SESSIONS = 100;
const DEN = fileURLToPath(new URL('../../bin/den.js', import.meta.url));

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    http.get({ host: '127.0.0.1', port, path: '/readyz' }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    }).on('error', () => resolve(false));
  });
}

async function rssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

function connect(port: number, privateKey: string): Promise<ssh2.Client> {
  return new Promise((resolve, reject) => {
    const conn = new ssh2.Client();
    conn.once('ready', () => resolve(conn));
    conn.once('error', reject);
    conn.connect({ host: '127.0.0.1', port, username: 'demo', privateKey, readyTimeout: 20_000 });
  });
}

function exec(conn: ssh2.Client, command: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) => conn.exec(command, (err, stream) => (err ? reject(err) : resolve(stream))));
}

/** Bytes/second of `head -c PAYLOAD /dev/zero` read through the gateway. */
async function throughGateway(port: number, privateKey: string): Promise<number> {
  const conn = await connect(port, privateKey);
  conn.on('error', () => conn.end());
  try {
    const stream = await exec(conn, `head -c ${PAYLOAD} /dev/zero`);
    const started = performance.now();
    let bytes = 0;
    await new Promise<void>((resolve) => {
      stream.on('data', (c: Buffer) => (bytes += c.length));
      stream.on('close', () => resolve());
    });
    if (bytes !== PAYLOAD) throw new Error(`gateway delivered ${bytes} of ${PAYLOAD} bytes`);
    return bytes / ((performance.now() - started) / 1000);
  } finally {
    conn.end();
  }
}

/** Bytes/second of the same command read straight from pods/exec. */
async function direct(api: FakeApiServer): Promise<number> {
  let bytes = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      cb();
    },
  });
  const started = performance.now();
  const session = await startExec(api.client(GATEWAY_TOKEN), { namespace: NAMESPACE, pod: 'demo-0', container: 'workspace' }, { command: ['head', '-c', String(PAYLOAD), '/dev/zero'], tty: false }, { stdout: sink, stderr: sink });
  const exit = await session.done;
  if (exit.exitCode !== 0 || bytes !== PAYLOAD) throw new Error(`direct exec delivered ${bytes} bytes, exit ${exit.exitCode}`);
  return bytes / ((performance.now() - started) / 1000);
}

export async function run(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'den-gw-bench-'));
  const api = new FakeApiServer();
  await api.start();
  prepareCluster(api, dir);
  const fake = new FakeExec({ cwd: dir });
  fake.attachTo(api);
  const user = generateHostKey('bench');
  api.seed(workspace('demo', [user.publicKey]), pod('demo-0', 'demo'));

  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, kubeconfigYaml(api.url, 'gateway', GATEWAY_TOKEN));
  const [sshPort, healthPort] = [await freePort(), await freePort()];
  let gateway: ChildProcess | undefined;
  const clients: ssh2.Client[] = [];
  try {
    gateway = spawn(process.execPath, [DEN, 'gateway', '--kubeconfig', kubeconfig, '--listen', `127.0.0.1:${sshPort}`, '--health-listen', `127.0.0.1:${healthPort}`, '--host-key-file', join(dir, 'host_key'), '--keepalive-interval', '30s'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const logs: string[] = [];
    gateway.stderr!.on('data', (c: Buffer) => logs.push(c.toString()));
    const deadline = Date.now() + 30_000;
    while (!(await healthy(healthPort))) {
      if (Date.now() > deadline || gateway.exitCode !== null) throw new Error(`den gateway did not become ready: ${logs.join('').slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    // Memory: one idle session as the baseline, then IDLE_SESSIONS more, each an open exec waiting on stdin.
    const openIdle = async () => {
      const conn = await connect(sshPort, user.privateKey);
      conn.on('error', () => conn.end());
      clients.push(conn);
      const stream = await exec(conn, 'cat');
      stream.resume();
    };
    await openIdle();
    await new Promise((r) => setTimeout(r, 1000));
    const before = await rssKiB(gateway.pid!);
    for (let i = 0; i < IDLE_SESSIONS; i += 10) await Promise.all(Array.from({ length: 10 }, openIdle));
    const waitAll = Date.now() + 20_000;
    while (fake.execs.filter((e) => e.command.includes('cat') && e.exitCode === undefined).length < IDLE_SESSIONS + 1 && Date.now() < waitAll) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1000));
    const after = await rssKiB(gateway.pid!);
    for (const c of clients.splice(0)) c.end();

    // Set-up: TCP connect to authenticated, and to the first exec's exit.
    const authMs: number[] = [];
    const firstExecMs: number[] = [];
    for (let i = 0; i < SETUPS; i++) {
      const t0 = performance.now();
      const conn = await connect(sshPort, user.privateKey);
      conn.on('error', () => conn.end());
      const t1 = performance.now();
      const stream = await exec(conn, 'true');
      await new Promise<void>((resolve) => {
        stream.resume();
        stream.on('close', () => resolve());
      });
      firstExecMs.push(performance.now() - t0);
      authMs.push(t1 - t0);
      conn.end();
    }

    // Throughput, alternating so both see the same machine state.
    const viaGateway: number[] = [];
    const viaDirect: number[] = [];
    await throughGateway(sshPort, user.privateKey); // warm-up
    for (let i = 0; i < ROUNDS; i++) {
      viaDirect.push(await direct(api));
      viaGateway.push(await throughGateway(sshPort, user.privateKey));
    }

    const mib = (bps: number) => (bps / (1024 * 1024)).toFixed(0);
    const g = median(viaGateway);
    const d = median(viaDirect);
    return [
      '| measure | value |',
      '|---|---|',
      `| exec output, direct pods/exec websocket (median of ${ROUNDS} × ${PAYLOAD >> 20} MiB) | ${mib(d)} MiB/s |`,
      `| same output through den gateway + SSH (ssh2 client) | ${mib(g)} MiB/s |`,
      `| ratio gateway / direct | ${(g / d).toFixed(2)} |`,
      `| connect + key exchange + authentication (median of ${SETUPS}) | ${median(authMs).toFixed(1)} ms |`,
      `| connect to first exec's exit status (median of ${SETUPS}) | ${median(firstExecMs).toFixed(1)} ms |`,
      `| gateway RSS growth per idle session (${IDLE_SESSIONS} open, each an exec waiting on stdin) | ${((after - before) / IDLE_SESSIONS).toFixed(0)} KiB |`,
      `| gateway RSS with ${IDLE_SESSIONS + 1} idle sessions | ${(after / 1024).toFixed(0)} MiB |`,
    ].join('\n');
  } finally {
    for (const c of clients) c.end();
    if (gateway && gateway.exitCode === null) {
      const exited = new Promise((resolve) => gateway!.once('exit', resolve));
      gateway.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (gateway.exitCode === null) gateway.kill('SIGKILL');
    }
    await fake.close();
    await api.close();
    await rm(dir, { recursive: true, force: true });
  }
}
