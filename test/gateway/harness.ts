// A running gateway against the fake API server and the fake exec/portforward endpoints,
// with the gateway's real RBAC (infra's gatewayClusterRules) and real OpenSSH clients.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ssh2 from 'ssh2';
import type { KubeObject } from '../../kube/client.js';
import { LABELS } from '../../kube/group.js';
import { Informer } from '../../kube/informer.js';
import { RESOURCES } from '../../kube/resources.js';
import { gatewayClusterRules } from '../../infra/install/rbac-rules.js';
import { generateHostKey } from '../../ssh/host-key.js';
import { Gateway, type GatewayLimits } from '../../gateway/server.js';
import { WorkspaceDirectory, type Workspace, type WorkspaceImage } from '../../gateway/workspaces.js';
import type { UserSpace } from '../../contract/user-space.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { FakeExec } from '../support/fake-exec.js';
import { provision } from '../support/userspaces.js';

const run = promisify(execFile);

export const GATEWAY_TOKEN = 'gateway-token';
export const GATEWAY_USER = 'system:serviceaccount:svc-system:den-gateway';
export const PERSON = 'demo';
export const NAMESPACE = 'svc-demo';
/** Whom the cluster sees opening a session's exec and port forwards. */
export const OWNER_USER = 'system:serviceaccount:svc-demo:session';

export interface UserKey {
  file: string;
  publicKey: string;
}

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function makeKey(dir: string, name: string, type = 'ed25519'): Promise<UserKey> {
  const file = join(dir, name);
  await run('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', `${name}@test`, '-f', file]);
  return { file, publicKey: (await readFile(`${file}.pub`, 'utf8')).trim() };
}

export function workspace(name: string, keys: string[], opts: { namespace?: string; phase?: string; podName?: string } = {}): KubeObject {
  return {
    apiVersion: RESOURCES.workspace.apiVersion,
    kind: 'Workspace',
    metadata: { name, namespace: opts.namespace ?? NAMESPACE },
    spec: { imageRef: { name: 'base' }, sshAuthorizedKeys: keys, running: opts.phase !== 'Suspended' },
    status: { phase: opts.phase ?? 'Running', podName: opts.podName },
  };
}

export function pod(name: string, workspaceName: string | undefined, namespace = NAMESPACE): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: workspaceName ? { [LABELS.workspace]: workspaceName } : { app: 'other' } },
    spec: { containers: [{ name: 'workspace', image: 'example/dev:1' }] },
    status: { phase: 'Running' },
  };
}

/**
 * The gateway's identity with infra's RBAC, the person `demo` as the manager leaves them (namespace
 * svc-demo, the `session` ServiceAccount and the owner's Role that sessions run as), and a
 * WorkspaceImage whose home is `home`.
 */
export function prepareCluster(api: FakeApiServer, home: string): void {
  provision(api, PERSON, `${PERSON}@example.com`);
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
    {
      apiVersion: RESOURCES.workspaceImage.apiVersion,
      kind: 'WorkspaceImage',
      metadata: { name: 'base' },
      spec: { displayName: 'Base', image: 'example/dev:1', shell: '/bin/bash', homePath: home },
    } as KubeObject,
  );
}

export class GatewayHarness {
  readonly api = new FakeApiServer();
  fake!: FakeExec;
  gateway!: Gateway;
  home = '';
  keys = '';
  port = 0;
  readonly logs: { msg: string; fields?: Record<string, unknown> }[] = [];
  workspaces!: Informer<Workspace>;
  /** The gateway's UserSpace cache: people's own profile keys, for shared workspaces. */
  people!: Informer<UserSpace>;
  private readonly stop = new AbortController();

  async start(opts: { protocols?: string[]; keepaliveIntervalMs?: number; limits?: Partial<GatewayLimits>; proxyProtocolFrom?: string[]; shareCheckMs?: number } = {}): Promise<this> {
    this.home = await mkdtemp(join(tmpdir(), 'den-gw-home-'));
    this.keys = await mkdtemp(join(tmpdir(), 'den-gw-keys-'));
    await this.api.start();
    prepareCluster(this.api, this.home);
    this.fake = new FakeExec({ cwd: this.home, protocols: opts.protocols });
    this.fake.attachTo(this.api);

    const client = this.api.client(GATEWAY_TOKEN);
    this.workspaces = new Informer<Workspace>(client, RESOURCES.workspace, { backoffMs: 50 });
    const images = new Informer<WorkspaceImage>(client, RESOURCES.workspaceImage, { backoffMs: 50 });
    this.people = new Informer<UserSpace>(client, RESOURCES.userSpace, { backoffMs: 50 });
    const directory = new WorkspaceDirectory(this.workspaces);
    void this.workspaces.run(this.stop.signal);
    void images.run(this.stop.signal);
    void this.people.run(this.stop.signal);
    await Promise.all([this.workspaces.synced, images.synced, this.people.synced]);
    this.gateway = new Gateway({
      hostKey: generateHostKey().privateKey,
      client,
      named: (name) => directory.named(name),
      image: (name) => images.get(name),
      people: this.people,
      shareCheckMs: opts.shareCheckMs,
      keepaliveIntervalMs: opts.keepaliveIntervalMs ?? 30_000,
      limits: opts.limits,
      proxyProtocolFrom: opts.proxyProtocolFrom,
      log: (msg, fields) => this.logs.push({ msg, fields }),
    });
    this.port = (await this.gateway.listen('127.0.0.1', 0)).port;
    return this;
  }

  /** Seeds objects and waits until the gateway's Workspace cache has seen them. */
  async seed(...objects: KubeObject[]): Promise<void> {
    const stored = this.api.seed(...objects);
    const rvs = stored.filter((o) => o.kind === 'Workspace').map((o) => [o.metadata!.namespace!, o.metadata!.name!, o.metadata!.resourceVersion!] as const);
    const deadline = Date.now() + 5000;
    while (!rvs.every(([ns, name, rv]) => this.workspaces.get(name, ns)?.metadata?.resourceVersion === rv)) {
      if (Date.now() > deadline) throw new Error('workspace cache did not catch up');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  sshOptions(key: UserKey): string[] {
    return [
      '-F', '/dev/null',
      '-o', 'StrictHostKeyChecking=no',
      '-o', 'UserKnownHostsFile=/dev/null',
      '-o', 'BatchMode=yes',
      '-o', 'IdentitiesOnly=yes',
      '-o', 'ConnectTimeout=10',
      '-i', key.file,
    ];
  }

  /** Runs an OpenSSH program (ssh, scp, sftp) and collects what it printed. */
  command(program: string, args: string[], input?: string | Buffer, timeoutMs = 15_000): Promise<CommandResult> {
    return new Promise((resolve, reject) => {
      const env = { ...process.env };
      delete env.SSH_AUTH_SOCK;
      const child = spawn(program, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (c: Buffer) => out.push(c));
      child.stderr.on('data', (c: Buffer) => err.push(c));
      child.stdin.on('error', (e) => err.push(Buffer.from(`[stdin: ${e.message}]`)));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${program} ${args.join(' ')} did not finish in ${timeoutMs} ms; stderr: ${Buffer.concat(err).toString()}`));
      }, timeoutMs);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
      });
      if (input !== undefined) child.stdin.end(input);
      else child.stdin.end();
    });
  }

  /** `ssh [flags] user@gateway [remote...]`. */
  ssh(key: UserKey, user: string, remote: string[], opts: { input?: string | Buffer; flags?: string[] } = {}): Promise<CommandResult> {
    return this.command('ssh', [...this.sshOptions(key), '-p', String(this.port), ...(opts.flags ?? []), `${user}@127.0.0.1`, ...remote], opts.input);
  }

  /** An ssh2 client connected as `user` with the private key in `key`. */
  async client(user: string, key: UserKey): Promise<ssh2.Client> {
    const conn = new ssh2.Client();
    const privateKey = await readFile(key.file, 'utf8');
    await new Promise<void>((resolve, reject) => {
      conn.once('ready', () => resolve());
      conn.once('error', reject);
      conn.connect({ host: '127.0.0.1', port: this.port, username: user, privateKey, readyTimeout: 10_000 });
    });
    conn.on('error', (err: Error) => this.logs.push({ msg: 'test client error', fields: { error: err.message } }));
    return conn;
  }

  async close(): Promise<void> {
    await this.gateway?.shutdown(0);
    this.stop.abort();
    await this.fake?.close();
    await this.api.close();
    await rm(this.home, { recursive: true, force: true });
    await rm(this.keys, { recursive: true, force: true });
  }
}

/** Lines OpenSSH prints about a host key it just accepted, which say nothing about the session. */
export function withoutKnownHostsNoise(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => !l.startsWith('Warning: Permanently added'))
    .join('\n');
}
