// `den gateway` as a process of its own in front of the fake API server and fake kubelet, with
// one workspace `demo` whose owner's key the bench holds: the set-up the gateway and relay
// benches share. The gateway runs with the Node flags the chart's container gives it by
// default, unless DEN_BENCH_GATEWAY_NODE_FLAGS is set (space-separated; empty: Node's defaults).
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';
import { gatewayNodeFlags } from '../../infra/install/node-options.js';
import { generateHostKey, type HostKeyPair } from '../../ssh/host-key.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { FakeExec } from '../support/fake-exec.js';
import { freePort, kubeconfigYaml } from '../support/loopback.js';
import { prepareCluster, pod, workspace } from '../gateway/harness.js';

const DEN = fileURLToPath(new URL('../../bin/den.js', import.meta.url));

/** The Node flags of the chart's gateway container with its default memory limit. */
export const CHART_GATEWAY_NODE_FLAGS = gatewayNodeFlags(DEFAULT_SETTINGS.gateway.resources.limits.memory);

/** Node flags for the benches' gateways: the chart's, or DEN_BENCH_GATEWAY_NODE_FLAGS when set. */
export function benchGatewayNodeFlags(): string[] {
  const flags = process.env.DEN_BENCH_GATEWAY_NODE_FLAGS;
  return flags === undefined ? CHART_GATEWAY_NODE_FLAGS : flags.split(' ').filter(Boolean);
}

export interface BenchGateway {
  dir: string;
  api: FakeApiServer;
  fake: FakeExec;
  /** The workspace owner's key; `keyFile` holds its private half for OpenSSH. */
  user: HostKeyPair;
  keyFile: string;
  sshPort: number;
  process: ChildProcess;
  /** The Node flags it runs with (besides `nodeArgs`). */
  nodeFlags: string[];
  /** What the gateway printed on stderr so far. */
  logs: string[];
  stop(): Promise<void>;
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    http.get({ host: '127.0.0.1', port, path: '/readyz' }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    }).on('error', () => resolve(false));
  });
}

/** CPU milliseconds a process has used (user + system), from /proc. */
export async function cpuMsOf(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in USER_HZ (100 on Linux)
}

/** KiB: the most a process has held resident since it started (VmHWM), from /proc. */
export async function peakRssKiBOf(pid: number): Promise<number> {
  return Number(/VmHWM:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]);
}

/** CPU milliseconds of this process's children that have ended and been waited for (user + system). */
export async function endedChildrenCpuMs(): Promise<number> {
  const fields = (await readFile('/proc/self/stat', 'utf8')).split(') ')[1]!.split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // cutime, cstime
}

/** CPU milliseconds this process has used. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Starts the fake cluster and `den gateway` (with `nodeFlags`, else the benches', and `nodeArgs` for its Node, `gatewayArgs` added), ready to serve. */
export async function startBenchGateway(opts: { nodeArgs?: string[]; nodeFlags?: string[]; gatewayArgs?: string[] } = {}): Promise<BenchGateway> {
  const nodeFlags = opts.nodeFlags ?? benchGatewayNodeFlags();
  const dir = await mkdtemp(join(tmpdir(), 'den-gw-bench-'));
  const api = new FakeApiServer();
  await api.start();
  prepareCluster(api, dir);
  const fake = new FakeExec({ cwd: dir });
  fake.attachTo(api);
  const user = generateHostKey('bench');
  api.seed(workspace('demo', [user.publicKey]), pod('demo-0', 'demo'));
  const keyFile = join(dir, 'id_ed25519');
  await writeFile(keyFile, user.privateKey, { mode: 0o600 });
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, kubeconfigYaml(api.url, 'gateway', 'gateway-token'));
  const [sshPort, healthPort] = [await freePort(), await freePort()];
  const gateway = spawn(process.execPath, [...nodeFlags, ...(opts.nodeArgs ?? []), DEN, 'gateway', '--kubeconfig', kubeconfig, '--listen', `127.0.0.1:${sshPort}`, '--health-listen', `127.0.0.1:${healthPort}`, '--host-key-file', join(dir, 'host_key'), '--keepalive-interval', '30s', ...(opts.gatewayArgs ?? [])], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const logs: string[] = [];
  gateway.stderr!.on('data', (c: Buffer) => logs.push(c.toString()));
  const stop = async () => {
    if (gateway.exitCode === null) {
      const exited = new Promise((resolve) => gateway.once('exit', resolve));
      gateway.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (gateway.exitCode === null) gateway.kill('SIGKILL');
    }
    await fake.close();
    await api.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 30_000;
    while (!(await healthy(healthPort))) {
      if (Date.now() > deadline || gateway.exitCode !== null) throw new Error(`den gateway did not become ready: ${logs.join('').slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { dir, api, fake, user, keyFile, sshPort, process: gateway, nodeFlags, logs, stop };
}
