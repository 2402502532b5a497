// What a test needs to run a Den role against the loopback fake API server: a free port to
// name in `--listen`, and a kubeconfig naming the fake and a token.
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';

/** Binds and releases a loopback port: the port it got (0 asks the OS for one), or undefined when it is taken. */
async function bindOnce(port: number): Promise<number | undefined> {
  const server = net.createServer();
  const bound = await new Promise<boolean>((ok) => {
    server.once('error', () => ok(false));
    server.listen(port, '127.0.0.1', () => ok(true));
  });
  if (!bound) return undefined;
  const { port: got } = server.address() as AddressInfo;
  await new Promise<void>((ok) => server.close(() => ok()));
  return got;
}

/** The low end of the ports the kernel hands out for outgoing connections (Linux: 32768). */
function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

/**
 * A free loopback port for a child process to listen on. Picked below the ephemeral range: a
 * port the OS handed out with listen(0) and released may be taken at once as the local port of
 * one of the suite's many outgoing connections before the child binds it (EADDRINUSE).
 */
export async function freePort(): Promise<number> {
  const low = Math.max(1024, ephemeralLow() - 12000);
  const span = Math.max(1, ephemeralLow() - low);
  for (let attempt = 0; attempt < 50; attempt++) {
    const candidate = low + Math.floor(Math.random() * span);
    if (handedOut.has(candidate) || !claimPort(candidate)) continue;
    const port = await bindOnce(candidate);
    if (port === undefined) continue;
    handedOut.add(port);
    return port;
  }
  return (await bindOnce(0))!;
}

/**
 * One lock file per port handed out, shared by every test process of the machine (mocha's
 * workers pick at random from the same range): created with O_EXCL, holding the pid, removed
 * when the process exits. A lock whose process is gone (killed) is taken over by renaming it
 * away first, which only one claimant can do.
 */
export const PORT_LOCKS = join(tmpdir(), 'den-test-ports');
const claimed = new Set<string>();

/** Claims `port` for this process across processes: false when another live process holds it. */
export function claimPort(port: number): boolean {
  mkdirSync(PORT_LOCKS, { recursive: true });
  const file = join(PORT_LOCKS, String(port));
  const create = () => {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
    } catch {
      return false; // EEXIST: held
    }
    if (claimed.size === 0) process.once('exit', releasePorts);
    claimed.add(file);
    return true;
  };
  if (create()) return true;
  const holder = Number(readFileSync(file, { encoding: 'utf8', flag: 'r' }).trim() || 0);
  if (holder === process.pid || alive(holder)) return false;
  try {
    renameSync(file, `${file}.stale-${process.pid}`);
  } catch {
    return false; // another claimant took it over first
  }
  rmSync(`${file}.stale-${process.pid}`, { force: true });
  return create();
}

function alive(pid: number): boolean {
  if (!(pid > 0)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releasePorts(): void {
  for (const file of claimed) rmSync(file, { force: true });
  claimed.clear();
}

/**
 * Ports this process has handed out: a port is free again the moment `bindOnce` releases it, so
 * without this the ten ports a platform asks for at once could repeat one before its child binds
 * it (EADDRINUSE, seen about once in ten full runs). A process hands out a few hundred of 12,000.
 */
const handedOut = new Set<number>();

/**
 * A kubeconfig naming one cluster and one token user, as `kubectl config view --raw` writes
 * it. client-node refuses plain http unless TLS verification is off, so the loopback fake's
 * cluster entry says so (there is no TLS to verify).
 */
export function kubeconfigYaml(server: string, user: string, token: string): string {
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'den-test', cluster: { server, 'insecure-skip-tls-verify': server.startsWith('http:') } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: 'den-test', context: { cluster: 'den-test', user } }],
    'current-context': 'den-test',
  });
}

/** The one temporary folder of this test process's kubeconfig files, removed when it exits. */
let kubeconfigDir: string | undefined;
let kubeconfigCount = 0;

function kubeconfigFolder(): string {
  if (!kubeconfigDir) {
    const dir = mkdtempSync(join(tmpdir(), 'den-kubeconfig-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    kubeconfigDir = dir;
  }
  return kubeconfigDir;
}

/**
 * `kubeconfigYaml` written to a file of its own, as `--kubeconfig` reads it. The files share
 * one temporary folder per test process, which goes when the process exits, failed tests and all.
 */
export function kubeconfigFile(server: string, token: string, user = 'user'): string {
  const file = join(kubeconfigFolder(), `config-${++kubeconfigCount}`);
  writeFileSync(file, kubeconfigYaml(server, user, token), { mode: 0o600 });
  return file;
}
