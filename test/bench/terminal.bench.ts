// Browser terminal relay throughput against the SSH gateway's, on the same exec: the same
// login shell in a pty (fake-exec runs it under `script`), the same command typed into it,
// the same fake API server, both servers in this process. The terminal's bytes go
// pods/exec -> den server's relay -> a websocket client; the gateway's go pods/exec ->
// den gateway -> SSH (ssh2 client).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import ssh2 from 'ssh2';
import { WebSocket } from 'ws';
import { generateHostKey } from '../../ssh/host-key.js';
import { Gateway } from '../../gateway/server.js';
import { WorkspaceDirectory, type Workspace, type WorkspaceImage } from '../../gateway/workspaces.js';
import { Informer } from '../../kube/informer.js';
import { RESOURCES } from '../../kube/resources.js';
import { CSRF_PROTOCOL_PREFIX, TERMINAL_PROTOCOL } from '../../web/terminal-protocol.js';
import { FakeExec } from '../support/fake-exec.js';
import { freePort } from '../support/loopback.js';
import { GATEWAY_TOKEN, pod, prepareCluster, workspace } from '../gateway/harness.js';
import { addPerson, login, startCluster, startDen } from '../server/core/cluster.js';
import { median } from './stats.js';

const PAYLOAD = 16 * 1024 * 1024;
const ROUNDS = 3;
const COMMAND = `head -c ${PAYLOAD} /dev/zero; exit\n`;

interface Shell {
  /** Resolves with the first output (the prompt). */
  ready: Promise<void>;
  write(text: string): void;
  bytes(): number;
  closed: Promise<void>;
}

/** Bytes/second of COMMAND's output through one fresh shell, from typing it to the shell's end. */
async function measure(open: () => Promise<Shell>): Promise<number> {
  const shell = await open();
  await shell.ready;
  const before = shell.bytes();
  const started = performance.now();
  shell.write(COMMAND);
  await shell.closed;
  const bytes = shell.bytes() - before;
  if (bytes < PAYLOAD) throw new Error(`the shell delivered ${bytes} of ${PAYLOAD} bytes`);
  return bytes / ((performance.now() - started) / 1000);
}

export async function run(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'den-terminal-bench-'));
  const api = await startCluster();
  await addPerson(api, 'demo');
  prepareCluster(api, home);
  const user = generateHostKey('bench');
  api.seed(workspace('demo', [user.publicKey]), pod('demo-0', 'demo'));
  const fake = new FakeExec({ cwd: home, env: { PS1: '$ ' } });
  fake.attachTo(api);
  const stop = new AbortController();
  const port = await freePort();
  const den = await startDen(api, { port, baseUrl: `http://127.0.0.1:${port}` });
  let gateway: Gateway | undefined;
  try {
    const client = api.client(GATEWAY_TOKEN);
    const workspaces = new Informer<Workspace>(client, RESOURCES.workspace, { backoffMs: 50 });
    const images = new Informer<WorkspaceImage>(client, RESOURCES.workspaceImage, { backoffMs: 50 });
    const directory = new WorkspaceDirectory(workspaces);
    void workspaces.run(stop.signal);
    void images.run(stop.signal);
    await Promise.all([workspaces.synced, images.synced]);
    gateway = new Gateway({ hostKey: generateHostKey().privateKey, client, named: (n) => directory.named(n), image: (n) => images.get(n), keepaliveIntervalMs: 30_000, log: () => undefined });
    const sshPort = (await gateway.listen('127.0.0.1', 0)).port;
    const signed = await login(den, 'demo', 'demo-password');

    const viaTerminal = (): Promise<Shell> => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/w/demo/terminal/ws?cols=80&rows=24`, [TERMINAL_PROTOCOL, CSRF_PROTOCOL_PREFIX + signed.csrf], {
        headers: { Cookie: signed.cookie, Origin: den.url },
      });
      let bytes = 0;
      const ready = new Promise<void>((resolve) => ws.on('message', (data: Buffer, binary) => binary && (bytes += data.length) && resolve()));
      return Promise.resolve({
        ready,
        write: (text) => ws.send(Buffer.from(text), { binary: true }),
        bytes: () => bytes,
        closed: new Promise<void>((resolve) => ws.on('close', () => resolve())),
      });
    };
    const viaGateway = async (): Promise<Shell> => {
      const conn = new ssh2.Client();
      await new Promise<void>((resolve, reject) => {
        conn.once('ready', () => resolve());
        conn.once('error', reject);
        conn.connect({ host: '127.0.0.1', port: sshPort, username: 'demo', privateKey: user.privateKey, readyTimeout: 20_000 });
      });
      const stream = await new Promise<ssh2.ClientChannel>((resolve, reject) => conn.shell({ term: 'xterm', cols: 80, rows: 24 }, (err, s) => (err ? reject(err) : resolve(s))));
      let bytes = 0;
      const ready = new Promise<void>((resolve) => stream.on('data', (c: Buffer) => (bytes += c.length) && resolve()));
      const closed = new Promise<void>((resolve) => stream.on('close', () => resolve())).then(() => void conn.end());
      return { ready, write: (text) => stream.write(text), bytes: () => bytes, closed };
    };

    await measure(viaTerminal); // warm-up
    await measure(viaGateway);
    const terminal: number[] = [];
    const ssh: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      ssh.push(await measure(viaGateway));
      terminal.push(await measure(viaTerminal));
    }
    const mib = (bps: number) => (bps / (1024 * 1024)).toFixed(1);
    const t = median(terminal);
    const g = median(ssh);
    return [
      '| measure | value |',
      '|---|---|',
      `| shell output through den gateway + SSH (ssh2 client, pty; median of ${ROUNDS} × ${PAYLOAD >> 20} MiB) | ${mib(g)} MiB/s |`,
      `| same exec through den server's browser terminal relay (websocket client) | ${mib(t)} MiB/s |`,
      `| ratio terminal / gateway | ${(t / g).toFixed(2)} |`,
    ].join('\n');
  } finally {
    await gateway?.shutdown(0);
    stop.abort();
    await den.close();
    await fake.close();
    await api.close();
    await rm(home, { recursive: true, force: true });
  }
}
