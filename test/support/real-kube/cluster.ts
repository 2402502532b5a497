// A real Kubernetes API server for tests and benches: Debian's etcd and `kapi apiserver` from
// ../shared/kube on free loopback ports in a temporary folder, with static tokens and
// ServiceAccount signing keys, and optionally `kapi controller-manager` (quota status, namespace
// termination, ServiceAccount tokens, StatefulSets and PVCs, garbage collection). Nothing runs
// pods: there is no node.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { KubeClient, type KubeObject } from '../../../kube/client.js';
import { staticConnection } from '../../../kube/connection.js';
import { resourceOf, type ResourceType } from '../../../kube/resources.js';
import { freePort } from '../loopback.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Where `kapi` is when the project's checkout has ../shared beside it (as CI lays it out). */
export const DEFAULT_KAPI = resolve(REPO_ROOT, '../shared/kube/kapi');
const READY_TIMEOUT_MS = 60_000;

/** What the tests need and could not find, in one line naming how to get it. */
export class RealKubeMissing extends Error {
  override readonly name = 'RealKubeMissing';
}

function onPath(name: string, path = process.env.PATH): string | undefined {
  for (const dir of (path ?? '').split(':')) {
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/** The binaries: etcd, and a kube-apiserver and kube-controller-manager (kapi's, unless named). */
export interface KubeBinaries {
  etcd: string;
  /** argv prefix of the API server: `[kapi, 'apiserver']` or `[kube-apiserver]`. */
  apiserver: string[];
  controllerManager: string[];
}

/** Finds the binaries, or throws one line naming what is missing and how to get it. */
export function kubeBinaries(env: NodeJS.ProcessEnv = process.env): KubeBinaries {
  const etcd = env.DEN_ETCD || onPath('etcd', env.PATH);
  if (!etcd) throw new RealKubeMissing('real Kubernetes for the tests: etcd is missing: install Debian\'s etcd-server (apt-get install --no-install-recommends etcd-server) or name one in DEN_ETCD');
  const kapi = env.DEN_KAPI || DEFAULT_KAPI;
  const haveKapi = existsSync(kapi);
  const apiserver = env.DEN_KUBE_APISERVER ? [env.DEN_KUBE_APISERVER] : haveKapi ? [kapi, 'apiserver'] : undefined;
  const controllerManager = env.DEN_KUBE_CONTROLLER_MANAGER ? [env.DEN_KUBE_CONTROLLER_MANAGER] : haveKapi ? [kapi, 'controller-manager'] : undefined;
  if (!apiserver || !controllerManager)
    throw new RealKubeMissing(`real Kubernetes for the tests: ${kapi} is missing: lay ../shared beside the checkout (it holds kube/kapi), or name a kapi in DEN_KAPI (or DEN_KUBE_APISERVER and DEN_KUBE_CONTROLLER_MANAGER)`);
  return { etcd, apiserver, controllerManager };
}

export interface RealKubeOptions {
  /** Start kube-controller-manager too (default true). */
  controllerManager?: boolean;
  /** Extra flags for the API server. */
  apiserverFlags?: string[];
}

/** What a test process needs to reach a running real API server (also passed between processes). */
export interface RealKubeAddress {
  url: string;
  /** PEM of the API server's self-signed serving certificate: trust it, never skip verification. */
  ca: string;
  adminToken: string;
  /** The folder holding its state (kubeconfigs written here). */
  dir: string;
}

/** A kubeconfig naming the real server, trusting its certificate, with one bearer token. */
export function realKubeconfigYaml(addr: Pick<RealKubeAddress, 'url' | 'ca'>, user: string, token: string): string {
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'den-real', cluster: { server: addr.url, 'certificate-authority-data': Buffer.from(addr.ca).toString('base64') } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: 'den-real', context: { cluster: 'den-real', user } }],
    'current-context': 'den-real',
  });
}

/** A client of the real server as `token` (default: the administrator, group system:masters). */
export function realClient(addr: RealKubeAddress, token = addr.adminToken): KubeClient {
  return new KubeClient(staticConnection(addr.url, token, { ca: addr.ca }));
}

/** Every component still running, killed if this process exits without stopping them (a crashed or interrupted run). */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

interface Proc {
  child: ChildProcess;
  log: string;
  exited: Promise<void>;
}

/** etcd + kube-apiserver (+ kube-controller-manager) on loopback. */
export class RealKube implements RealKubeAddress {
  url = '';
  ca = '';
  readonly adminToken = 'admin-' + Math.random().toString(36).slice(2);
  dir = '';
  private bins!: KubeBinaries;
  private etcdPort = 0;
  private apiPort = 0;
  private etcd?: Proc;
  private apiserver?: Proc;
  private cm?: Proc;

  constructor(private readonly opts: RealKubeOptions = {}) {}

  static async start(opts: RealKubeOptions = {}): Promise<RealKube> {
    const kube = new RealKube(opts);
    try {
      await kube.boot();
    } catch (err) {
      await kube.stop();
      throw err;
    }
    return kube;
  }

  get address(): RealKubeAddress {
    return { url: this.url, ca: this.ca, adminToken: this.adminToken, dir: this.dir };
  }

  admin(): KubeClient {
    return realClient(this, this.adminToken);
  }

  private async boot(): Promise<void> {
    this.bins = kubeBinaries();
    this.dir = await mkdtemp(join(tmpdir(), 'den-kube-'));
    execFileSync('openssl', ['genrsa', '-out', join(this.dir, 'sa.key'), '2048'], { stdio: 'ignore' });
    execFileSync('openssl', ['rsa', '-in', join(this.dir, 'sa.key'), '-pubout', '-out', join(this.dir, 'sa.pub')], { stdio: 'ignore' });
    await writeFile(join(this.dir, 'tokens.csv'), `${this.adminToken},admin,admin,system:masters\n`, { mode: 0o600 });
    [this.etcdPort, this.apiPort] = await Promise.all([freePort(), freePort()]);
    this.url = `https://127.0.0.1:${this.apiPort}`;
    await this.startEtcd();
    await this.startApiServer();
    if (this.opts.controllerManager !== false) await this.startControllerManager();
  }

  private spawnLogged(name: string, argv: string[]): Proc {
    const logFile = join(this.dir, `${name}.log`);
    const fd = openSync(logFile, 'a');
    const child = spawn(argv[0], argv.slice(1), { cwd: this.dir, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    running.add(child);
    const exited = new Promise<void>((ok) => {
      const gone = () => {
        running.delete(child);
        ok();
      };
      child.once('exit', gone);
      child.once('error', gone);
    });
    return { child, log: logFile, exited };
  }

  async startEtcd(): Promise<void> {
    const peer = await freePort();
    this.etcd = this.spawnLogged('etcd', [
      this.bins.etcd,
      '--data-dir', join(this.dir, 'etcd'),
      '--listen-client-urls', `http://127.0.0.1:${this.etcdPort}`,
      '--advertise-client-urls', `http://127.0.0.1:${this.etcdPort}`,
      '--listen-peer-urls', `http://127.0.0.1:${peer}`,
      '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`,
      '--initial-cluster', `default=http://127.0.0.1:${peer}`,
      '--unsafe-no-fsync',
    ]);
  }

  /** Starts (or starts again, on the same etcd, port and keys) kube-apiserver; resolves once /readyz is ok. */
  async startApiServer(): Promise<void> {
    this.apiserver = this.spawnLogged('apiserver', [
      ...this.bins.apiserver,
      `--etcd-servers=http://127.0.0.1:${this.etcdPort}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${this.apiPort}`,
      `--cert-dir=${join(this.dir, 'pki')}`,
      `--token-auth-file=${join(this.dir, 'tokens.csv')}`,
      '--authorization-mode=RBAC',
      '--service-account-issuer=https://kubernetes.default.svc',
      `--service-account-key-file=${join(this.dir, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(this.dir, 'sa.key')}`,
      '--service-cluster-ip-range=10.96.0.0/16',
      '--enable-priority-and-fairness=false',
      ...(this.opts.apiserverFlags ?? []),
    ]);
    await this.waitReady('kube-apiserver', this.apiserver, async () => {
      if (!this.ca) {
        const crt = join(this.dir, 'pki', 'apiserver.crt');
        if (!existsSync(crt)) return false;
        this.ca = await readFile(crt, 'utf8');
      }
      const res = await this.admin().send({ path: '/readyz' }).catch(() => undefined);
      if (!res) return false;
      res.resume();
      return res.statusCode === 200;
    });
  }

  /** Kills kube-apiserver (SIGKILL: no graceful goodbye to its watchers). */
  async killApiServer(): Promise<void> {
    await this.kill(this.apiserver, 'SIGKILL');
    this.apiserver = undefined;
  }

  async startControllerManager(): Promise<void> {
    const kubeconfig = join(this.dir, 'controller-manager.kubeconfig');
    await writeFile(kubeconfig, realKubeconfigYaml(this, 'admin', this.adminToken), { mode: 0o600 });
    const health = await freePort();
    this.cm = this.spawnLogged('controller-manager', [
      ...this.bins.controllerManager,
      `--kubeconfig=${kubeconfig}`,
      "--controllers=*",
      `--service-account-private-key-file=${join(this.dir, 'sa.key')}`,
      `--root-ca-file=${join(this.dir, 'pki', 'apiserver.crt')}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${health}`,
      '--concurrent-resource-quota-syncs=4',
      '--concurrent-namespace-syncs=4',
    ]);
    await this.waitReady('kube-controller-manager', this.cm, async () => {
      const res = await fetch(`https://127.0.0.1:${health}/healthz`).catch((err: Error) => (String((err as { cause?: Error }).cause?.message ?? err.message).includes('self-signed') || String(err).includes('certificate') ? 'up' : undefined));
      return res !== undefined;
    });
  }

  async stopControllerManager(): Promise<void> {
    await this.kill(this.cm, 'SIGTERM');
    this.cm = undefined;
  }

  private async waitReady(what: string, proc: Proc, probe: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`${what} exited before it was ready:\n${await this.tail(proc)}`);
      if (await probe().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${what} was not ready after ${READY_TIMEOUT_MS} ms:\n${await this.tail(proc)}`);
  }

  private async tail(proc: Proc, lines = 30): Promise<string> {
    const text = await readFile(proc.log, 'utf8').catch(() => '');
    return text.split('\n').slice(-lines).join('\n');
  }

  private async kill(proc: Proc | undefined, signal: NodeJS.Signals): Promise<void> {
    if (!proc || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
    proc.child.kill(signal);
    const timer = setTimeout(() => proc.child.kill('SIGKILL'), 5_000);
    await proc.exited;
    clearTimeout(timer);
  }

  /** The log of one component, for failure messages. */
  async logTail(component: 'etcd' | 'apiserver' | 'controller-manager', lines = 30): Promise<string> {
    const text = await readFile(join(this.dir, `${component}.log`), 'utf8').catch(() => '');
    return text.split('\n').slice(-lines).join('\n');
  }

  async stop(): Promise<void> {
    await this.kill(this.cm, 'SIGTERM');
    await this.kill(this.apiserver, 'SIGTERM');
    await this.kill(this.etcd, 'SIGTERM');
    if (this.dir && !process.env.DEN_KEEP_KUBE) await rm(this.dir, { recursive: true, force: true });
  }
}

const CHART_ONLY_KINDS: Record<string, ResourceType> = {
  'Deployment.apps/v1': { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true },
  'PodDisruptionBudget.policy/v1': { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', namespaced: true },
  'Ingress.networking.k8s.io/v1': { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', plural: 'ingresses', namespaced: true },
};

/** Where an object lives in the REST API: Den's own table, then the kinds only the chart renders. */
export function resourceTypeOf(obj: KubeObject): ResourceType {
  const r = resourceOf(obj.apiVersion!, obj.kind!) ?? CHART_ONLY_KINDS[`${obj.kind}.${obj.apiVersion}`];
  if (!r) throw new Error(`no resource type for ${obj.apiVersion} ${obj.kind}`);
  return r;
}

/** Applies objects server-side as `kubectl apply --server-side` would, in order. */
export async function applyAll(client: KubeClient, objects: KubeObject[], fieldManager = 'kubectl'): Promise<void> {
  for (const obj of objects) await client.apply(resourceTypeOf(obj), obj, fieldManager);
}
