// SSH gateway figures, measured side by side in one run (throughput is relay.bench.ts's): session set-up time; the
// gateway process's resident memory per idle session with 100 open; and, with 1,000 stalled
// unauthenticated connections held (half silent, half stalled after their version line),
// the gateway's memory before, during and after (the grace time closes them) and an
// authenticated session's set-up time against the idle gateway's.
import net from 'node:net';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import ssh2, { type ClientChannel } from 'ssh2';
import { median } from './stats.js';
import { Inspector, inspectorUrl, type Memory } from './inspector.js';
import { startBenchGateway } from './bench-gateway.js';

const SETUPS = 15;
const IDLE_SESSIONS = 100;
/** Sessions opened before the first memory reading, so one-time costs (code compiled, caches filled) are not counted per session. */
const WARM_SESSIONS = 20;
const STALLED = 1000;
/** The gateway's --login-grace-time in this bench: long enough to measure under the load, short enough to wait out. */
const STALL_GRACE_S = 10;
const STALL_WAVES = 2;

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

/** Milliseconds from TCP connect to authenticated, and to the first exec's exit, `n` times in turn. */
async function setUpTimes(port: number, privateKey: string, n: number): Promise<{ authMs: number[]; firstExecMs: number[] }> {
  const authMs: number[] = [];
  const firstExecMs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const conn = await connect(port, privateKey);
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
  return { authMs, firstExecMs };
}

interface Stalled {
  socket: net.Socket;
  closed: boolean;
}

/** Opens `count` connections that never authenticate: even ones silent, odd ones after sending their version line. */
async function openStalled(port: number, count: number): Promise<Stalled[]> {
  const out: Stalled[] = [];
  for (let i = 0; i < count; i += 100) {
    const batch = Array.from({ length: Math.min(100, count - i) }, (_, j) =>
      new Promise<Stalled>((resolve, reject) => {
        const socket = net.connect({ host: '127.0.0.1', port });
        const s: Stalled = { socket, closed: false };
        socket.on('data', () => undefined);
        socket.on('error', () => undefined);
        socket.once('close', () => (s.closed = true));
        socket.once('connect', () => {
          if ((i + j) % 2 === 1) socket.write('SSH-2.0-stalled_client\r\n');
          resolve(s);
        });
        socket.once('error', reject);
      }),
    );
    out.push(...(await Promise.all(batch)));
  }
  return out;
}

interface StalledWave {
  rssBefore: number;
  rssDuring: number;
  rssAfter: number;
  heldDuring: number;
  closedByGateway: number;
  authMs: number[];
  firstExecMs: number[];
}

/** One wave of STALLED stalled connections: memory with them held, set-up time under them, and their end at the grace time. */
async function stalledWave(port: number, pid: number, privateKey: string): Promise<StalledWave> {
  const rssBefore = await rssKiB(pid);
  const stalled = await openStalled(port, STALLED);
  await new Promise((r) => setTimeout(r, 1000));
  const rssDuring = await rssKiB(pid);
  const heldDuring = stalled.filter((s) => !s.closed).length;
  const { authMs, firstExecMs } = await setUpTimes(port, privateKey, SETUPS);
  const deadline = Date.now() + (STALL_GRACE_S + 10) * 1000;
  while (stalled.some((s) => !s.closed) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const closedByGateway = stalled.filter((s) => s.closed).length;
  for (const s of stalled) s.socket.destroy();
  await new Promise((r) => setTimeout(r, 1000));
  return { rssBefore, rssDuring, rssAfter: await rssKiB(pid), heldDuring, closedByGateway, authMs, firstExecMs };
}

export async function run(): Promise<string> {
  const gw = await startBenchGateway({
    nodeArgs: ['--inspect=127.0.0.1:0'],
    // Every stalled connection is held (from one source address) until the grace time closes it.
    gatewayArgs: ['--login-grace-time', `${STALL_GRACE_S}s`, '--max-startups', String(STALLED + 100)],
  });
  const { fake, user, sshPort, logs } = gw;
  const gateway = gw.process;
  const clients: ssh2.Client[] = [];
  try {
    // Memory: WARM_SESSIONS idle sessions as the baseline, then IDLE_SESSIONS more, each an open
    // exec waiting on stdin; both readings after a full collection in the gateway.
    const url = inspectorUrl(logs.join(''));
    if (!url) throw new Error('den gateway printed no inspector address');
    const inspector = await Inspector.connect(url);
    const openIdle = async () => {
      const conn = await connect(sshPort, user.privateKey);
      conn.on('error', () => conn.end());
      clients.push(conn);
      const stream = await exec(conn, 'cat');
      stream.resume();
    };
    const idleExecs = () => fake.execs.filter((e) => e.command.includes('cat') && e.exitCode === undefined).length;
    const openIdleSessions = async (n: number): Promise<Memory> => {
      const target = idleExecs() + n;
      for (let i = 0; i < n; i += 10) await Promise.all(Array.from({ length: Math.min(10, n - i) }, openIdle));
      const waitAll = Date.now() + 20_000;
      while (idleExecs() < target && Date.now() < waitAll) await new Promise((r) => setTimeout(r, 100));
      if (idleExecs() < target) throw new Error(`${idleExecs()} of ${target} idle sessions running`);
      return inspector.memory();
    };
    const before = await openIdleSessions(WARM_SESSIONS);
    const after = await openIdleSessions(IDLE_SESSIONS);
    inspector.close();
    for (const c of clients.splice(0)) c.end();

    // Set-up: TCP connect to authenticated, and to the first exec's exit.
    const { authMs, firstExecMs } = await setUpTimes(sshPort, user.privateKey, SETUPS);

    // Stalled unauthenticated connections, twice: memory must come back down after each wave.
    const waves: StalledWave[] = [];
    for (let i = 0; i < STALL_WAVES; i++) waves.push(await stalledWave(sshPort, gateway.pid!, user.privateKey));

    return [
      '| measure | value |',
      '|---|---|',
      `| connect + key exchange + authentication (median of ${SETUPS}) | ${median(authMs).toFixed(1)} ms |`,
      `| connect to first exec's exit status (median of ${SETUPS}) | ${median(firstExecMs).toFixed(1)} ms |`,
      `| gateway RSS growth per idle session, ${IDLE_SESSIONS} opened after ${WARM_SESSIONS} (each an exec waiting on stdin), read after a full GC | ${((after.rssKiB - before.rssKiB) / IDLE_SESSIONS).toFixed(0)} KiB |`,
      `| gateway live heap + external memory per idle session, same readings | ${((after.liveKiB - before.liveKiB) / IDLE_SESSIONS).toFixed(0)} KiB |`,
      `| gateway RSS that full GC freed with ${IDLE_SESSIONS + WARM_SESSIONS} idle sessions open (garbage of their set-up; a reading without GC counts it) | ${((after.rssBeforeGcKiB - after.rssKiB) / 1024).toFixed(1)} MiB |`,
      `| gateway RSS with ${IDLE_SESSIONS + WARM_SESSIONS} idle sessions | ${(after.rssKiB / 1024).toFixed(0)} MiB |`,
      ...waves.flatMap((w, i) => {
        const wave = `stalled wave ${i + 1} of ${STALL_WAVES}`;
        return [
          `| ${wave}: gateway RSS before / with ${w.heldDuring} of ${STALLED} stalled connections held / after the ${STALL_GRACE_S} s grace time closed ${w.closedByGateway} | ${(w.rssBefore / 1024).toFixed(0)} / ${(w.rssDuring / 1024).toFixed(0)} / ${(w.rssAfter / 1024).toFixed(0)} MiB (${((w.rssDuring - w.rssBefore) / STALLED).toFixed(1)} KiB per stalled connection) |`,
          `| ${wave}: connect + key exchange + authentication under the load, median of ${SETUPS} (ratio to idle) | ${median(w.authMs).toFixed(1)} ms (${(median(w.authMs) / median(authMs)).toFixed(2)}) |`,
          `| ${wave}: connect to first exec's exit under the load, median of ${SETUPS} (ratio to idle) | ${median(w.firstExecMs).toFixed(1)} ms (${(median(w.firstExecMs) / median(firstExecMs)).toFixed(2)}) |`,
        ];
      }),
    ].join('\n');
  } finally {
    for (const c of clients) c.end();
    await gw.stop();
  }
}
