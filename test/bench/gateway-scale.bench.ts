// `den gateway` at scale, side by side with an idle one: two real `den gateway` processes
// against one fake API server answering with the latency model's cluster profile, both caching
// the same PEOPLE × 2 Workspaces. One holds SESSIONS open SSH sessions (ssh2 clients in this
// process, one per person, keys made with node:crypto, each an interactive shell on a pty);
// the other none. Measured: each gateway's RSS and live heap after a full collection, and the
// set-up time of the next session (TCP connect → key exchange → authentication → shell open →
// first byte of the shell), alternating between both gateways in rounds, to a Workspace whose
// name is its own and to one called `dev` as every person's second Workspace is (the SSH username
// names a Workspace; the offered key picks among those of that name).
//
// The workspace pods' side of pods/exec is a small in-process kubelet: it accepts the channel
// websocket as the API server hands it over (after authentication and RBAC), sends the prompt
// and echoes what it is sent, so that 1,000 sessions cost no 1,000 local shells.
//
// Both gateways run with the chart's Node flags (bench-gateway.ts; DEN_BENCH_GATEWAY_NODE_FLAGS
// replaces them). DEN_BENCH_SESSIONS: sessions held open (1000).
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import ssh2, { type ClientChannel } from 'ssh2';
import { WebSocketServer, type RawData } from 'ws';
import type { KubeObject } from '../../kube/client.js';
import { LABELS } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { gatewayClusterRules } from '../../infra/install/rbac-rules.js';
import { generateHostKey, type HostKeyPair } from '../../ssh/host-key.js';
import { CLUSTER_PROFILE, FakeApiServer } from '../support/fake-apiserver.js';
import { FakeExec, V4, V5 } from '../support/fake-exec.js';
import { freePort, kubeconfigYaml } from '../support/loopback.js';
import { provision } from '../support/userspaces.js';
import { GATEWAY_TOKEN, GATEWAY_USER } from '../gateway/harness.js';
import { benchGatewayNodeFlags } from './bench-gateway.js';
import { BenchProcess, type ProcessMemory } from './den-process.js';
import { median, quantile } from './stats.js';

const SESSIONS = Number(process.env.DEN_BENCH_SESSIONS ?? 1000);
/** One person per session, each with two Workspaces: `p0007-a`, which holds the session, and `dev`. */
const PEOPLE = SESSIONS;
/** Sessions set up at once while the loaded gateway fills (under its default MaxStartups of 100). */
const OPEN_CONCURRENCY = 16;
const ROUNDS = 4;
const PER_ROUND = 5;
const WARMUP = 3;
const PROMPT = '$ ';
const SESSION_TIMEOUT_MS = 60_000;

/** Person `p`'s own Workspace, `p0007-a`; their second one is `dev`, a name every person uses. */
function ownWorkspace(person: number): string {
  return `p${String(person).padStart(4, '0')}-a`;
}
const SHARED_NAME = 'dev';

function namespaceOf(person: number): string {
  return `svc-p${String(person).padStart(4, '0')}`;
}

/** The people, their Workspaces (Running, one key each) and pods, the gateway's identity and the catalog entry. */
function seed(api: FakeApiServer, keys: HostKeyPair[]): void {
  api.addUser(GATEWAY_TOKEN, { username: GATEWAY_USER, groups: ['system:serviceaccounts'] });
  api.seed(
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'den-gateway' }, rules: gatewayClusterRules() } as KubeObject,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'den-gateway' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'den-gateway' },
      subjects: [{ kind: 'ServiceAccount', name: 'den-gateway', namespace: 'svc-system' }],
    } as KubeObject,
    { apiVersion: RESOURCES.workspaceImage.apiVersion, kind: 'WorkspaceImage', metadata: { name: 'base' }, spec: { displayName: 'Base', image: 'example/dev:1', shell: '/bin/bash', homePath: '/home/dev' } } as KubeObject,
  );
  for (let p = 0; p < PEOPLE; p++) {
    const person = `p${String(p).padStart(4, '0')}`;
    provision(api, person, `${person}@example.com`);
    for (const name of [ownWorkspace(p), SHARED_NAME]) {
      api.seed(
        {
          apiVersion: RESOURCES.workspace.apiVersion,
          kind: 'Workspace',
          metadata: { name, namespace: namespaceOf(p) },
          spec: { imageRef: { name: 'base' }, sshAuthorizedKeys: [keys[p]!.publicKey], running: true },
          status: { phase: 'Running', podName: `${name}-0` },
        } as KubeObject,
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `${name}-0`, namespace: namespaceOf(p), labels: { [LABELS.workspace]: name } },
          spec: { containers: [{ name: 'workspace', image: 'example/dev:1' }] },
          status: { phase: 'Running' },
        } as KubeObject,
      );
    }
  }
}

/** The kubelet's side of pods/exec, in this process: the stream-up frame, the prompt, then an echo of stdin. */
function serveExecInProcess(api: FakeApiServer): { close(): void } {
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (offered: Set<string>) => [V5, V4].find((p) => offered.has(p)) ?? false });
  api.onUpgrade(FakeExec.paths.exec, (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', () => ws.terminate());
      ws.send(Buffer.from([1]));
      ws.send(Buffer.concat([Buffer.from([1]), Buffer.from(PROMPT)]));
      ws.on('message', (data: RawData) => {
        const buf = data as Buffer;
        if (buf[0] === 0 && buf.length > 1) ws.send(Buffer.concat([Buffer.from([1]), buf.subarray(1)]));
      });
    });
  });
  return {
    close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
    },
  };
}

interface OpenSession {
  conn: ssh2.Client;
  shell: ClientChannel;
}

/** Connects as `username`, opens a shell on a pty and resolves at its first byte, with the milliseconds that took. */
function openSession(port: number, username: string, privateKey: string): Promise<OpenSession & { ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const conn = new ssh2.Client();
    const fail = (err: Error) => {
      clearTimeout(timer);
      conn.end();
      reject(new Error(`session as ${username}: ${err.message}`));
    };
    const timer = setTimeout(() => fail(new Error(`no first byte after ${SESSION_TIMEOUT_MS / 1000} s`)), SESSION_TIMEOUT_MS);
    conn.once('error', fail);
    conn.once('close', () => fail(new Error('the connection closed before the shell answered')));
    conn.once('ready', () => {
      conn.shell({ term: 'xterm', cols: 80, rows: 24 }, (err, shell) => {
        if (err) return fail(err);
        let stderr = '';
        shell.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        shell.once('close', () => fail(new Error(`the shell ended before its first byte: ${stderr.trim()}`)));
        shell.once('data', (chunk: Buffer) => {
          const ms = performance.now() - started;
          if (!chunk.toString().startsWith(PROMPT)) return fail(new Error(`the shell's first bytes were ${JSON.stringify(chunk.toString())}`));
          clearTimeout(timer);
          conn.removeAllListeners('error').removeAllListeners('close');
          shell.removeAllListeners('close');
          conn.on('error', () => conn.end());
          resolve({ conn, shell, ms });
        });
      });
    });
    conn.connect({ host: '127.0.0.1', port, username, privateKey, readyTimeout: 60_000, keepaliveInterval: 0 });
  });
}

async function setUpTimes(port: number, username: string, privateKey: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = await openSession(port, username, privateKey);
    out.push(s.ms);
    s.conn.end();
  }
  return out;
}

async function startGateway(kubeconfig: string, hostKeyFile: string): Promise<{ den: BenchProcess; port: number }> {
  const [port, health] = [await freePort(), await freePort()];
  const den = await BenchProcess.start('gateway', ['--kubeconfig', kubeconfig, '--listen', `127.0.0.1:${port}`, '--health-listen', `127.0.0.1:${health}`, '--host-key-file', hostKeyFile], health);
  return { den, port };
}

const mib = (kib: number) => (kib / 1024).toFixed(1);

export async function run(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'den-gateway-scale-'));
  const api = new FakeApiServer();
  await api.start();
  const kubelet = serveExecInProcess(api);
  const keys = Array.from({ length: PEOPLE }, (_, p) => generateHostKey(`p${p}@bench`));
  seed(api, keys);
  api.latency.use(CLUSTER_PROFILE);
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, kubeconfigYaml(api.url, GATEWAY_USER, GATEWAY_TOKEN), { mode: 0o600 });
  const hostKeyFile = join(dir, 'host_key');
  const gateways: { den: BenchProcess; port: number }[] = [];
  const open: OpenSession[] = [];
  try {
    gateways.push(await startGateway(kubeconfig, hostKeyFile), await startGateway(kubeconfig, hostKeyFile));
    const [idle, loaded] = gateways as [(typeof gateways)[0], (typeof gateways)[0]];
    // The person whose next session is timed, on both gateways: to their own Workspace, and to the one named as everyone's.
    const targets = [ownWorkspace(0), SHARED_NAME];
    const key = keys[0]!.privateKey;
    for (const g of gateways) for (const username of targets) await setUpTimes(g.port, username, key, WARMUP);
    const before = await loaded.den.memory();

    const fillStarted = performance.now();
    const fillMs: number[] = [];
    /** Why a session could not be opened, each time one could not. */
    const failures: string[] = [];
    for (let p = 0; p < SESSIONS; p += OPEN_CONCURRENCY) {
      const batch = Array.from({ length: Math.min(OPEN_CONCURRENCY, SESSIONS - p) }, (_, j) => openSession(loaded.port, ownWorkspace(p + j), keys[p + j]!.privateKey));
      for (const settled of await Promise.allSettled(batch)) {
        if (settled.status === 'rejected') {
          failures.push((settled.reason as Error).message);
          continue;
        }
        open.push(settled.value);
        fillMs.push(settled.value.ms);
      }
    }
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    // The sessions are alive: each shell still echoes.
    const probe = open[open.length - 1]!;
    const echoed = new Promise<void>((resolve) => probe.shell.once('data', () => resolve()));
    probe.shell.write('x');
    await echoed;

    // samples[gateway][target]
    const samples = gateways.map(() => targets.map(() => [] as number[]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [1, 0] : [0, 1];
      for (const i of order) for (const [t, username] of targets.entries()) samples[i]![t]!.push(...(await setUpTimes(gateways[i]!.port, username, key, PER_ROUND)));
    }
    const memory: [ProcessMemory, ProcessMemory] = [await idle.den.memory(), await loaded.den.memory()];
    const n = ROUNDS * PER_ROUND;
    const setUpRows = targets.map((username, t) => {
      const [a, b] = [0, 1].map((i) => [...samples[i]![t]!].sort((x, y) => x - y)) as [number[], number[]];
      const which = t === 0 ? `its own name (${username})` : `\`${username}\`, the name of ${PEOPLE} Workspaces`;
      return `| next session to a Workspace by ${which}, connect → shell's first byte: median (p90) of ${n}, ms | ${median(a).toFixed(1)} (${quantile(a, 0.9).toFixed(1)}) | ${median(b).toFixed(1)} (${quantile(b, 0.9).toFixed(1)}) | ${(median(b) / median(a)).toFixed(2)} |`;
    });
    fillMs.sort((x, y) => x - y);
    return [
      `Two real \`den gateway\` processes side by side against one fake API server with the cluster latency profile, both caching ${PEOPLE * 2} Workspaces of ${PEOPLE} people; Node flags: ${benchGatewayNodeFlags().map((f) => `\`${f}\``).join(' ') || "none (Node's defaults)"}.`,
      '',
      `| measure | idle gateway | gateway with ${open.length} open sessions | ratio |`,
      '|---|---:|---:|---:|',
      `| RSS after a full GC, MiB | ${mib(memory[0].rssKiB)} | ${mib(memory[1].rssKiB)} | ${(memory[1].rssKiB / memory[0].rssKiB).toFixed(2)} |`,
      `| live heap + external after a full GC, MiB | ${mib(memory[0].liveKiB)} | ${mib(memory[1].liveKiB)} | ${(memory[1].liveKiB / memory[0].liveKiB).toFixed(2)} |`,
      `| peak RSS, MiB | ${mib(memory[0].peakRssKiB)} | ${mib(memory[1].peakRssKiB)} | |`,
      `| RSS per open session (its growth from ${mib(before.rssKiB)} MiB before the sessions), KiB | | ${((memory[1].rssKiB - before.rssKiB) / open.length).toFixed(0)} | |`,
      `| live heap + external per open session, KiB | | ${((memory[1].liveKiB - before.liveKiB) / open.length).toFixed(0)} | |`,
      ...setUpRows,
      `| opening the ${SESSIONS} sessions, ${OPEN_CONCURRENCY} at a time: seconds; each session's set-up median (p90), ms | | ${fillSeconds.toFixed(1)} s; ${median(fillMs).toFixed(0)} (${quantile(fillMs, 0.9).toFixed(0)}) | |`,
      `| sessions that could not be opened | | ${failures.length}${failures.length ? ` (first: ${failures[0]!.replaceAll('|', '/').slice(0, 200)})` : ''} | |`,
    ].join('\n');
  } finally {
    for (const s of open) s.conn.end();
    for (const g of gateways) await g.den.stop();
    kubelet.close();
    await api.close();
    await rm(dir, { recursive: true, force: true });
  }
}
