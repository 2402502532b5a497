import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { KubeClient } from '../../kube/client.js';
import { KubeconfigError, loadConnection } from '../../kube/connection.js';

const run = promisify(execFile);

interface Seen {
  authorization?: string;
  clientCn?: string;
}

/** Answers every request with `{}` and records what identified it. */
function recorder(seen: Seen[]) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate?.();
    const cn = peer && 'subject' in peer ? peer.subject?.CN : undefined;
    seen.push({ authorization: req.headers.authorization, clientCn: Array.isArray(cn) ? cn.join(',') : cn });
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
  };
}

function listen(server: http.Server | https.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'ctx',
  });
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate with CN "den-test", made by openssl. */
async function makePki(dir: string): Promise<void> {
  const ssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  await ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=test-ca');
  for (const [name, subj, ext] of [
    ['server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1'],
    ['client', '/CN=den-test', 'extendedKeyUsage=clientAuth'],
  ] as const) {
    await ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}-key.pem`, '-out', `${name}.csr`, '-subj', subj);
    await writeFile(join(dir, `${name}.ext`), ext);
    await ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', `${name}.pem`, '-days', '1', '-extfile', `${name}.ext`);
  }
}

describe('loadConnection (a process reaching its API server)', () => {
  let dir: string;
  const servers: (http.Server | https.Server)[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'den-conn-'));
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('sends the kubeconfig token to a plain-HTTP cluster marked insecure-skip-tls-verify', async () => {
    const seen: Seen[] = [];
    const server = http.createServer(recorder(seen));
    servers.push(server);
    const port = await listen(server);
    const file = join(dir, 'config');
    await writeFile(file, kubeconfig({ server: `http://127.0.0.1:${port}/`, 'insecure-skip-tls-verify': true }, { token: 'tok-1' }));
    const connection = loadConnection(file, {});
    expect(connection.server).to.equal(`http://127.0.0.1:${port}`);
    await new KubeClient(connection).request({ path: '/version' });
    expect(seen).to.deep.equal([{ authorization: 'Bearer tok-1', clientCn: undefined }]);
  });

  it('verifies the server with the CA file and presents the client certificate, files named beside the kubeconfig', async () => {
    await makePki(dir);
    const seen: Seen[] = [];
    const [cert, key, ca] = await Promise.all(['server.pem', 'server-key.pem', 'ca.pem'].map((f) => readFile(join(dir, f))));
    const server = https.createServer({ cert, key, ca, requestCert: true, rejectUnauthorized: true }, recorder(seen));
    servers.push(server);
    const port = await listen(server);
    const file = join(dir, 'config');
    await writeFile(file, kubeconfig({ server: `https://127.0.0.1:${port}`, 'certificate-authority': 'ca.pem' }, { 'client-certificate': 'client.pem', 'client-key': 'client-key.pem' }));
    await new KubeClient(loadConnection(file, {})).request({ path: '/version' });
    expect(seen).to.deep.equal([{ authorization: undefined, clientCn: 'den-test' }]);
  });

  it('takes inline certificate data and reads a tokenFile again for every request', async () => {
    await makePki(dir);
    const seen: Seen[] = [];
    const [cert, key, ca] = await Promise.all(['server.pem', 'server-key.pem', 'ca.pem'].map((f) => readFile(join(dir, f))));
    const server = https.createServer({ cert, key }, recorder(seen));
    servers.push(server);
    const port = await listen(server);
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, 'first\n');
    const file = join(dir, 'config');
    await writeFile(file, kubeconfig({ server: `https://127.0.0.1:${port}`, 'certificate-authority-data': ca!.toString('base64') }, { tokenFile }));
    const client = new KubeClient(loadConnection(file, {}));
    await client.request({ path: '/version' });
    await writeFile(tokenFile, 'second\n');
    await client.request({ path: '/version' });
    expect(seen.map((s) => s.authorization)).to.deep.equal(['Bearer first', 'Bearer second']);
  });

  it('refuses a server whose certificate the kubeconfig CA did not sign', async () => {
    await makePki(dir);
    const [cert, key] = await Promise.all(['server.pem', 'server-key.pem'].map((f) => readFile(join(dir, f))));
    const server = https.createServer({ cert, key }, recorder([]));
    servers.push(server);
    const port = await listen(server);
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'other-key.pem', '-out', 'other.pem', '-days', '1', '-subj', '/CN=other'], { cwd: dir });
    const file = join(dir, 'config');
    await writeFile(file, kubeconfig({ server: `https://127.0.0.1:${port}`, 'certificate-authority': 'other.pem' }, { token: 't' }));
    const err = await new KubeClient(loadConnection(file, {})).request({ path: '/version' }).catch((e: Error) => e);
    expect((err as Error).message).to.match(/API server unreachable \(.*(certificate|issuer)/);
  });

  it('still reads a kubeconfig whose user is an exec credential plugin', async () => {
    const seen: Seen[] = [];
    const server = http.createServer(recorder(seen));
    servers.push(server);
    const port = await listen(server);
    const plugin = join(dir, 'plugin.sh');
    await writeFile(plugin, `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}'\n`);
    await chmod(plugin, 0o755);
    const file = join(dir, 'config');
    await writeFile(file, kubeconfig({ server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true }, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' } }));
    await new KubeClient(loadConnection(file, {})).request({ path: '/version' });
    expect(seen.map((s) => s.authorization)).to.deep.equal(['Bearer from-plugin']);
  });

  it('reads a plain kubeconfig without loading @kubernetes/client-node, and loads it for an exec plugin', async () => {
    const connectionModule = new URL('../../kube/connection.ts', import.meta.url).href;
    // A process of its own: this one may have loaded the library already.
    const modulesLoaded = async (user: Record<string, unknown>) => {
      const file = join(dir, 'config');
      await writeFile(file, kubeconfig({ server: 'https://127.0.0.1:1' }, user));
      const script = `import { createRequire } from 'node:module'; const { loadConnection } = await import(${JSON.stringify(connectionModule)}); loadConnection(${JSON.stringify(file)}, {}); console.log(Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('@kubernetes/client-node')).length);`;
      const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
      return Number(stdout.trim());
    };
    expect(await modulesLoaded({ token: 't' })).to.equal(0);
    expect(await modulesLoaded({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'true' } })).to.be.greaterThan(0);
  });

  it('refuses a plain-HTTP cluster not marked insecure-skip-tls-verify, and a missing file, with a KubeconfigError', async () => {
    const file = join(dir, 'config');
    await writeFile(file, kubeconfig({ server: 'http://127.0.0.1:1' }, { token: 't' }));
    expect(() => loadConnection(file, {})).to.throw(KubeconfigError, 'kubeconfig: cluster c is plain HTTP (http://127.0.0.1:1); use https, or set insecure-skip-tls-verify: true for it');
    expect(() => loadConnection(join(dir, 'absent'), {})).to.throw(KubeconfigError, `kubeconfig ${join(dir, 'absent')}: no such file`);
  });

  it('refuses a kubeconfig whose current context names no cluster', async () => {
    const file = join(dir, 'config');
    await writeFile(file, YAML.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [], 'current-context': 'nowhere' }));
    expect(() => loadConnection(file, {})).to.throw(KubeconfigError, 'kubeconfig: no current cluster (set KUBECONFIG or --kubeconfig)');
  });
});
