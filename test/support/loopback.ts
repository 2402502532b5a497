// What a test needs to run a Den role against the loopback fake API server: a free port to
// name in `--listen`, and a kubeconfig naming the fake and a token.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';

/** A free loopback port (bound and released; the OS does not hand it out again at once). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

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
