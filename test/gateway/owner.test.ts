// Issue 21 §1 and §2: an SSH session runs as the workspace owner's `session` ServiceAccount
// (the fake API server records who opened each exec and port forward), so the owner's Role
// decides; and each session leaves Den Events on the Workspace and audit lines in the log.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import http from 'node:http';
import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import type ssh2 from 'ssh2';
import type { KubeObject } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { startExec } from '../../kube/exec.js';
import { RESOURCES } from '../../kube/resources.js';
import { GATEWAY_TOKEN, GATEWAY_USER, GatewayHarness, makeKey, NAMESPACE, OWNER_USER, pod, workspace, type UserKey } from './harness.js';

const run = promisify(execFile);

interface CoreEvent extends KubeObject {
  reason: string;
  message: string;
  type: string;
  count: number;
  source: { component: string };
  reportingComponent: string;
  involvedObject: { kind: string; name: string; namespace: string; uid?: string };
}

async function fingerprintOf(key: UserKey): Promise<string> {
  const { stdout } = await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${key.file}.pub`]);
  return stdout.split(' ')[1]!;
}

async function waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function forwardOut(conn: ssh2.Client, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    conn.forwardOut('127.0.0.1', 0, 'localhost', port, (err, stream) => {
      if (err) return reject(err);
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      stream.end('GET /x HTTP/1.0\r\n\r\n');
    });
  });
}

function execOn(conn: ssh2.Client, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    conn.exec(command, (err, stream) => {
      if (err) return reject(err);
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
  });
}

describe('SSH sessions run as the workspace owner', function () {
  this.timeout(30_000);
  let h: GatewayHarness;
  let alice: UserKey;

  const calls = (subresource: string) => h.api.requests.filter((r) => r.path === `/api/v1/namespaces/${NAMESPACE}/pods/demo-0/${subresource}`);
  const tokenRequests = () => h.api.requests.filter((r) => r.method === 'POST' && r.path === `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/session/token`);
  const events = (reason?: string) => h.api.objects<CoreEvent>(RESOURCES.event, NAMESPACE).filter((e) => e.source?.component === 'den' && (!reason || e.reason === reason));
  const audits = (act: string) => h.logs.filter((l) => l.msg === 'audit' && l.fields?.audit === act).map((l) => l.fields!);

  beforeEach(async () => {
    h = await new GatewayHarness().start();
    alice = await makeKey(h.keys, 'alice');
    await h.seed(workspace('demo', [alice.publicKey]), pod('demo-0', 'demo'));
  });
  afterEach(() => h.close());

  it("opens the exec with the owner's session token, minted by the gateway and reused by the next session", async () => {
    expect((await h.ssh(alice, 'demo', ['echo', 'as-owner'])).stdout).to.equal('as-owner\n');
    expect((await h.ssh(alice, 'demo', ['echo', 'again'])).stdout).to.equal('again\n');
    expect(calls('exec').map((r) => r.user)).to.deep.equal([OWNER_USER, OWNER_USER]);
    expect(tokenRequests().map((r) => r.user)).to.deep.equal([GATEWAY_USER]);
  });

  it("forwards ports with the owner's token too", async () => {
    const web = http.createServer((_req, res) => res.end('from the pod\n'));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    try {
      const port = (web.address() as AddressInfo).port;
      const r = await h.ssh(alice, 'demo', [], { flags: ['-W', `localhost:${port}`], input: 'GET / HTTP/1.0\r\n\r\n' });
      expect(r.stdout).to.contain('from the pod');
      expect(calls('portforward').map((c) => c.user)).to.deep.equal([OWNER_USER]);
    } finally {
      web.closeAllConnections();
      await new Promise<void>((resolve) => web.close(() => resolve()));
    }
  });

  /** What an administrator does to take a right away from the owner: the rule leaves their Role. */
  function revokeFromOwner(resource: string): void {
    const role = h.api.object<{ rules: { resources: string[]; verbs: string[] }[] } & KubeObject>(RESOURCES.role, 'svc-workspace-user', NAMESPACE)!;
    role.rules = role.rules.map((r) => ({ ...r, resources: r.resources.filter((res) => res !== resource) })).filter((r) => r.resources.length > 0);
    h.api.seed(role);
  }

  it("refuses the session with the cluster's reason once the owner's Role lost pods/exec", async () => {
    revokeFromOwner('pods/exec');

    const r = await h.ssh(alice, 'demo', ['echo', 'should-not-run']);
    expect(r.code).to.equal(255);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.contain(
      `den: the cluster refused the exec as ${OWNER_USER} (HTTP 403): pods "demo-0" is forbidden: User "${OWNER_USER}" cannot create resource "pods/exec" in API group "" in the namespace "${NAMESPACE}"`,
    );
    expect(h.fake.execs).to.have.length(0);
    const [refusal] = audits('cluster-refused');
    expect(refusal).to.deep.include({ identity: OWNER_USER, via: 'ssh', namespace: NAMESPACE, workspace: 'demo', kind: 'exec', request: 'create pods/exec', status: 403, fingerprint: await fingerprintOf(alice) });
  });

  it("refuses a port forward once the owner's Role lost pods/portforward, and audits the cluster's reason", async () => {
    revokeFromOwner('pods/portforward');
    const r = await h.ssh(alice, 'demo', [], { flags: ['-W', 'localhost:8080'] });
    expect(r.code).to.equal(255);
    expect(r.stderr).to.contain('open failed');
    expect(h.fake.forwards).to.have.length(0);
    const [refusal] = audits('cluster-refused');
    expect(refusal).to.deep.include({ identity: OWNER_USER, kind: 'forward', request: 'create pods/portforward', status: 403 });
    expect(refusal!.reason).to.contain(`User "${OWNER_USER}" cannot create resource "pods/portforward"`);
  });

  it("cannot exec anywhere with the gateway's own ServiceAccount", async () => {
    const err = await startExec(h.api.client(GATEWAY_TOKEN), { namespace: NAMESPACE, pod: 'demo-0' }, { command: ['true'], tty: false }, { stdout: new PassThrough() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(KubeApiError);
    expect((err as KubeApiError).status).to.equal(403);
    expect((err as KubeApiError).message).to.contain(`User "${GATEWAY_USER}" cannot create resource "pods/exec"`);
  });

  it('serves a person whose session ServiceAccount was deleted and created again: the refused cached token is replaced once', async () => {
    expect((await h.ssh(alice, 'demo', ['echo', 'before'])).stdout).to.equal('before\n');
    const sa = h.api.object<KubeObject>(RESOURCES.serviceAccount, 'session', NAMESPACE)!;
    h.api.remove(RESOURCES.serviceAccount, 'session', NAMESPACE);
    delete sa.metadata!.uid;
    delete sa.metadata!.resourceVersion;
    h.api.seed(sa);
    // Once kube-apiserver's token cache (10 s) no longer vouches for the old token, it is refused.
    h.api.expireTokenCache();

    expect((await h.ssh(alice, 'demo', ['echo', 'after'])).stdout).to.equal('after\n');
    expect(tokenRequests()).to.have.length(2);
    const execs = calls('exec');
    // The second session's first upgrade carried the old token (refused: 401), the resend a fresh one.
    expect(execs.map((r) => r.user)).to.deep.equal([OWNER_USER, '', OWNER_USER]);
  });

  it('records SSHSessionOpened and SSHSessionClosed Events on the Workspace, with key, address, kind, bytes and duration', async () => {
    const fingerprint = await fingerprintOf(alice);
    const r = await h.ssh(alice, 'demo', ['cat'], { input: 'twelve bytes' });
    expect(r.stdout).to.equal('twelve bytes');
    const [closed] = await waitFor(() => events('SSHSessionClosed').length > 0 && events('SSHSessionClosed'), 'the Closed event');
    const [opened] = events('SSHSessionOpened');
    const uid = h.api.object<KubeObject>(RESOURCES.workspace, 'demo', NAMESPACE)!.metadata!.uid;
    for (const e of [opened!, closed!]) {
      expect(e).to.deep.include({ type: 'Normal', count: 1, source: { component: 'den' }, reportingComponent: 'den.dev/gateway' });
      expect(e.involvedObject).to.deep.equal({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', name: 'demo', namespace: NAMESPACE, uid });
      expect(e.metadata!.annotations).to.deep.include({ 'den.dev/person': 'demo', 'den.dev/kind': 'exec', 'den.dev/fingerprint': fingerprint });
      expect(e.metadata!.annotations!['den.dev/client-address']).to.match(/^127\.0\.0\.1:\d+$/);
    }
    const address = opened!.metadata!.annotations!['den.dev/client-address'];
    expect(opened!.message).to.equal(`SSH exec session opened by demo from ${address} with key ${fingerprint}`);
    expect(closed!.message).to.match(new RegExp(`^SSH exec session closed for demo from ${address} with key ${fingerprint.replace(/[+/]/g, '\\$&')}: 12 bytes in, 12 bytes out, lasted \\d+ s$`));
    expect(closed!.metadata!.annotations).to.deep.include({ 'den.dev/bytes-in': '12', 'den.dev/bytes-out': '12' });
    expect(audits('sign-in')).to.deep.equal([
      { audit: 'sign-in', outcome: 'success', method: 'publickey', username: 'demo', client: address, via: 'ssh', userspace: 'demo', namespace: NAMESPACE, workspace: 'demo', fingerprint },
    ]);
    expect(audits('session-opened')).to.have.length(1);
    expect(audits('session-closed')[0]).to.deep.include({ identity: OWNER_USER, kind: 'exec', bytesIn: 12, bytesOut: 12, fingerprint, client: address, via: 'ssh' });
  });

  it('aggregates a burst of sessions on one connection into one Event with a count, and all its port forwards into one session', async () => {
    const web = http.createServer((_req, res) => res.end('ok\n'));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const conn = await h.client('demo', alice);
    try {
      const port = (web.address() as AddressInfo).port;
      for (let i = 0; i < 3; i++) expect(await execOn(conn, 'true')).to.equal('');
      for (let i = 0; i < 4; i++) expect(await forwardOut(conn, port)).to.contain('ok');
      await waitFor(() => events('SSHSessionOpened').find((e) => e.metadata?.annotations?.['den.dev/kind'] === 'exec' && e.count === 3), 'three exec opens counted on one Event');
    } finally {
      conn.end();
      web.closeAllConnections();
      await new Promise<void>((resolve) => web.close(() => resolve()));
    }
    const forwardClosed = await waitFor(() => events('SSHSessionClosed').find((e) => e.metadata?.annotations?.['den.dev/kind'] === 'forward'), 'the forward session closed');
    expect(forwardClosed.message).to.match(/, 4 forwarded connections$/);
    const kinds = (reason: string) => events(reason).map((e) => `${e.metadata!.annotations!['den.dev/kind']}×${e.count}`).sort();
    expect(kinds('SSHSessionOpened')).to.deep.equal(['exec×3', 'forward×1']);
    // Each exec's close carries its own figures; the four forwards close once, with the connection.
    expect(kinds('SSHSessionClosed').filter((k) => k.startsWith('forward'))).to.deep.equal(['forward×1']);
    expect(calls('portforward')).to.have.length(4);
  });
});
