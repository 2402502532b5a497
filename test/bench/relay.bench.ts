// Throughput of a command's output through `den gateway` (a process of its own) against the
// same pods/exec stream without it, from the same fake API server and fake kubelet, two ways,
// each pair alternated round by round so both sides see the same machine:
// - in-process readers: Den's exec client in this process vs. an ssh2 client in this process;
// - separate client processes, as a person compares them on a host: a small Go exec-websocket
//   client (what `kubectl exec` is: a Go process writing the stream to its stdout) vs. the real
//   OpenSSH `ssh` through the gateway writing to its stdout; both stdouts are pipes this process
//   counts, and each is timed from spawn to exit (start-up, handshake and all, as `time` would).
// The gateway runs with the chart's Node flags (bench-gateway.ts); a second one with Node's
// defaults reads the same output in-process each round, so every run shows what they change.
// DEN_BENCH_CPU_PROF=<dir> writes the gateway's CPU profile (node --cpu-prof) there when it stops.
import { execFile, spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ssh2, { type ClientChannel } from 'ssh2';
import { execPath, execQuery, startExec } from '../../kube/exec.js';
import type { FakeApiServer } from '../support/fake-apiserver.js';
import { NAMESPACE } from '../gateway/harness.js';
import { cpuMsOf, endedChildrenCpuMs, ownCpuMs, peakRssKiBOf, startBenchGateway, type BenchGateway } from './bench-gateway.js';
import { chainRateBound, median } from './stats.js';

/** Output of the in-process pair, as before. */
const PAYLOAD = 48 * 1024 * 1024;
/** Output of the process pair: the 100 MB of the cluster check. */
const PROCESS_PAYLOAD = 100 * 1024 * 1024;
const ROUNDS = 3;
const TARGET = { namespace: NAMESPACE, pod: 'demo-0', container: 'workspace' };
const EXEC_CLIENT_SOURCE = fileURLToPath(new URL('./exec-client/main.go', import.meta.url));

const mibPerS = (bps: number) => (bps / (1024 * 1024)).toFixed(0);

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

/** Bytes/second of `head -c PAYLOAD /dev/zero` read through the gateway by ssh2 in this process. */
async function throughGateway(gw: BenchGateway): Promise<number> {
  const conn = await connect(gw.sshPort, gw.user.privateKey);
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

/** Bytes/second of the same command read straight from pods/exec by Den's exec client in this process, as an administrator's kubectl would. */
async function direct(api: FakeApiServer): Promise<number> {
  let bytes = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      cb();
    },
  });
  const started = performance.now();
  const session = await startExec(api.client(), TARGET, { command: ['head', '-c', String(PAYLOAD), '/dev/zero'], tty: false }, { stdout: sink, stderr: sink });
  const exit = await session.done;
  if (exit.exitCode !== 0 || bytes !== PAYLOAD) throw new Error(`direct exec delivered ${bytes} bytes, exit ${exit.exitCode}`);
  return bytes / ((performance.now() - started) / 1000);
}

/** Bytes/second of a client process from spawn to exit, its stdout counted here. */
async function processRate(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let bytes = 0;
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (bytes += c.length));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0 || bytes !== PROCESS_PAYLOAD) throw new Error(`${command} delivered ${bytes} of ${PROCESS_PAYLOAD} bytes, exit ${code}: ${stderr.slice(-500)}`);
  return bytes / seconds;
}

export async function run(): Promise<string> {
  const profileDir = process.env.DEN_BENCH_CPU_PROF;
  const gw = await startBenchGateway({ nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] });
  let plain: BenchGateway | undefined;
  try {
    plain = await startBenchGateway({ nodeFlags: [] });
    const execClient = join(gw.dir, 'exec-client');
    await promisify(execFile)('go', ['build', '-o', execClient, EXEC_CLIENT_SOURCE]);
    const command = ['head', '-c', String(PROCESS_PAYLOAD), '/dev/zero'];
    const execUrl = `${gw.api.url}${execPath(TARGET)}?${execQuery(TARGET, { command, tty: false }, false).toString()}`;
    const viaExecClient = () => processRate(execClient, [execUrl], { ...process.env, DEN_BENCH_TOKEN: gw.api.adminToken });
    const viaOpenSsh = () =>
      processRate('ssh', ['-F', '/dev/null', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'LogLevel=ERROR', '-i', gw.keyFile, '-p', String(gw.sshPort), 'demo@127.0.0.1', command.join(' ')], process.env);

    const pid = gw.process.pid!;
    const inProcess = { direct: [] as number[], gateway: [] as number[], plain: [] as number[] };
    const processes = { execClient: [] as number[], ssh: [] as number[] };
    // CPU per MiB does not depend on what else the machine runs, as the wall-clock ratio does.
    const cpu = { direct: 0, clientAndFake: 0, gateway: 0, plainGateway: 0, sshGateway: 0 };
    // The process pair: this process (fake API server and kubelet, the pipe's reader), the ended
    // children (the client process and the `head` it ran in the "pod"), den gateway.
    const pair = { execBench: 0, execChildren: 0, sshBench: 0, sshChildren: 0 };
    const measured = async (into: 'exec' | 'ssh', fn: () => Promise<number>) => {
      const [own, children] = [ownCpuMs(), await endedChildrenCpuMs()];
      const rate = await fn();
      pair[`${into}Bench`] += ownCpuMs() - own;
      pair[`${into}Children`] += (await endedChildrenCpuMs()) - children;
      return rate;
    };
    await throughGateway(gw); // warm-up
    await throughGateway(plain);
    for (let i = 0; i < ROUNDS; i++) {
      let own = ownCpuMs();
      inProcess.direct.push(await direct(gw.api));
      cpu.direct += ownCpuMs() - own;
      own = ownCpuMs();
      let gatewayCpu = await cpuMsOf(pid);
      inProcess.gateway.push(await throughGateway(gw));
      cpu.clientAndFake += ownCpuMs() - own;
      cpu.gateway += (await cpuMsOf(pid)) - gatewayCpu;
      const plainCpu = await cpuMsOf(plain.process.pid!);
      inProcess.plain.push(await throughGateway(plain));
      cpu.plainGateway += (await cpuMsOf(plain.process.pid!)) - plainCpu;

      processes.execClient.push(await measured('exec', viaExecClient));
      gatewayCpu = await cpuMsOf(pid);
      processes.ssh.push(await measured('ssh', viaOpenSsh));
      cpu.sshGateway += (await cpuMsOf(pid)) - gatewayCpu;
    }
    const perMiB = (ms: number, payload: number) => (ms / ((ROUNDS * payload) / (1024 * 1024))).toFixed(1);
    const g = median(inProcess.gateway);
    const p = median(inProcess.plain);
    const d = median(inProcess.direct);
    const s = median(processes.ssh);
    const k = median(processes.execClient);
    // What the CPU each process of a chain spent allows: the exec client's `head` is counted with
    // the client, as the ssh side's is with ssh (both children of this process).
    const ms = (total: number) => total / ((ROUNDS * PROCESS_PAYLOAD) / (1024 * 1024));
    const execChain = [ms(pair.execBench), ms(pair.execChildren)];
    const sshChain = [ms(pair.sshBench), ms(pair.sshChildren), ms(cpu.sshGateway)];
    const cores = availableParallelism();
    const boundRatio = (cores?: number) => (chainRateBound(sshChain, cores) / chainRateBound(execChain, cores)).toFixed(2);
    const peakMiB = async (g: BenchGateway) => ((await peakRssKiBOf(g.process.pid!)) / 1024).toFixed(0);
    return [
      '| measure | value |',
      '|---|---|',
      `| den gateway's Node flags (the chart's unless DEN_BENCH_GATEWAY_NODE_FLAGS) | ${gw.nodeFlags.map((f) => `\`${f}\``).join(' ') || "none (Node's defaults)"} |`,
      `| **den gateway CPU per MiB relayed**: in-process pair / to OpenSSH ssh | ${perMiB(cpu.gateway, PAYLOAD)} / ${perMiB(cpu.sshGateway, PROCESS_PAYLOAD)} ms |`,
      `| **ratio in-process readers**: gateway / direct | ${(g / d).toFixed(2)} |`,
      `| **ratio client processes**: ssh via gateway / exec client | ${(s / k).toFixed(2)} |`,
      `| in-process readers: exec output read directly by Den's exec client in the bench process (median of ${ROUNDS} × ${PAYLOAD >> 20} MiB) | ${mibPerS(d)} MiB/s |`,
      `| in-process readers: same output through den gateway, read by an ssh2 client in the bench process | ${mibPerS(g)} MiB/s |`,
      `| in-process readers, a second den gateway with Node's defaults (no flags): its CPU per MiB; ratio to direct | ${perMiB(cpu.plainGateway, PAYLOAD)} ms; ${(p / d).toFixed(2)} |`,
      `| peak RSS (VmHWM) of den gateway / of the one with Node's defaults, after relaying ${ROUNDS + 1} × ${PAYLOAD >> 20} MiB (the first also ${ROUNDS} × ${PROCESS_PAYLOAD >> 20} MiB to ssh) | ${await peakMiB(gw)} / ${await peakMiB(plain)} MiB |`,
      `| client processes: Go exec-websocket client (as kubectl exec) to a pipe, spawn to exit (median of ${ROUNDS} × ${PROCESS_PAYLOAD >> 20} MiB) | ${mibPerS(k)} MiB/s |`,
      `| client processes: OpenSSH ssh through den gateway to a pipe, spawn to exit | ${mibPerS(s)} MiB/s |`,
      `| CPU per MiB, in-process: bench process, direct (fake kubelet + exec client) / through the gateway (fake kubelet + ssh2 client) | ${perMiB(cpu.direct, PAYLOAD)} / ${perMiB(cpu.clientAndFake, PAYLOAD)} ms |`,
      `| CPU per MiB, client processes: exec client side: bench process (fake API server and kubelet, pipe reader) / exec client + head | ${perMiB(pair.execBench, PROCESS_PAYLOAD)} / ${perMiB(pair.execChildren, PROCESS_PAYLOAD)} ms |`,
      `| CPU per MiB, client processes: ssh side: bench process / ssh + head | ${perMiB(pair.sshBench, PROCESS_PAYLOAD)} / ${perMiB(pair.sshChildren, PROCESS_PAYLOAD)} ms |`,
      `| ratio client processes as those CPU costs bound it (a chain is as fast as its slowest process, or its total CPU over the cores it shares): a core per process / this machine's ${cores} cores | ${boundRatio()} / ${boundRatio(cores)} |`,
      `| load average (1 min) at the end of the run | ${loadavg()[0]!.toFixed(1)} |`,
    ].join('\n');
  } finally {
    await plain?.stop();
    await gw.stop();
  }
}
