// Den installed on a real API server as `kubectl apply --server-side -f dist/` installs it, and
// its processes run on this machine as the Deployments run them: each under its own
// ServiceAccount's token with the chart's RBAC, two replicas of each role, the managers' webhooks
// registered by URL on loopback behind one TCP round-robin address (as behind their Service).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { denCrds } from '../../../contract/index.js';
import { renderInstall } from '../../../infra/install/synth.js';
import { DEFAULT_SETTINGS } from '../../../infra/install/settings.js';
import type { KubeClient, KubeObject } from '../../../kube/client.js';
import { SYSTEM_NAMESPACE } from '../../../kube/group.js';
import { RESOURCES } from '../../../kube/resources.js';
import { loadHostKey } from '../../../gateway/host-key.js';
import { freePort } from '../loopback.js';
import { DenProcess, eventually, type Role } from '../platform.js';
import { RoundRobinHttpProxy, RoundRobinTcpProxy } from '../round-robin.js';
import { applyAll, RealKube, realClient, realKubeconfigYaml, type RealKubeAddress } from './cluster.js';

/** Den's CRDs applied and Established (the API server serves their kinds). */
export async function installCrds(admin: KubeClient): Promise<void> {
  const crds = denCrds() as unknown as KubeObject[];
  await applyAll(admin, crds);
  await eventually(
    async () => {
      for (const crd of crds) {
        const got = await admin.get<any>(RESOURCES.customResourceDefinition, crd.metadata!.name!);
        if (!got.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True')) return false;
      }
      return true;
    },
    'Den CRDs Established',
    30_000,
  );
}

/** The rest of the chart: namespace, RBAC, ServiceAccounts, Services, webhook configurations (Deployments too: no node runs them). */
export async function installChart(admin: KubeClient): Promise<void> {
  const objects = renderInstall(DEFAULT_SETTINGS).filter((o) => o.kind !== 'CustomResourceDefinition');
  const first = objects.filter((o) => o.kind === 'Namespace');
  await applyAll(admin, [...first, ...objects.filter((o) => o.kind !== 'Namespace')]);
}

export interface InstalledKube {
  kube: RealKube;
  admin: KubeClient;
  /** Den's processes, unless they were not asked for. */
  den?: RealDen;
  /** Stops Den's processes, then the API server. */
  stop(): Promise<void>;
}

/**
 * A fresh API server of its own with Den installed: the CRDs, then kube-controller-manager
 * (after them, so its quota controller discovers count/workspaces.den.dev at once), the chart,
 * and Den's processes unless `den` is false. Nothing is left running when a step fails.
 */
export async function startInstalledKube(opts?: { apiserverFlags?: string[]; den?: RealDenOptions }): Promise<InstalledKube & { den: RealDen }>;
export async function startInstalledKube(opts: { apiserverFlags?: string[]; den?: false | RealDenOptions }): Promise<InstalledKube>;
export async function startInstalledKube(opts: { apiserverFlags?: string[]; den?: false | RealDenOptions } = {}): Promise<InstalledKube> {
  const kube = await RealKube.start({ controllerManager: false, apiserverFlags: opts.apiserverFlags ?? [] });
  let den: RealDen | undefined;
  const stop = async () => {
    await den?.stop();
    await kube.stop();
  };
  try {
    const admin = kube.admin();
    await installCrds(admin);
    await kube.startControllerManager();
    await installChart(admin);
    if (opts.den !== false) den = await new RealDen(kube.address, opts.den ?? {}).start();
    return { kube, admin, den, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A kubeconfig holding a token of a ServiceAccount in svc-system (TokenRequest, bound to its UID). */
export async function serviceAccountKubeconfig(addr: RealKubeAddress, dir: string, serviceAccount: string): Promise<string> {
  const answer = await realClient(addr).request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${SYSTEM_NAMESPACE}/serviceaccounts/${serviceAccount}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 24 * 3600 } },
  });
  const file = join(dir, `${serviceAccount}.kubeconfig`);
  await writeFile(file, realKubeconfigYaml(addr, `system:serviceaccount:${SYSTEM_NAMESPACE}:${serviceAccount}`, answer.status.token), { mode: 0o600 });
  return file;
}

export interface RealDenOptions {
  /** Replicas of each role (default 2, as installed). */
  replicas?: number;
  relistInterval?: string;
  /** Extra flags for every manager. */
  managerFlags?: string[];
}

/** Where the running processes are, in the shape tests pass between processes. */
export interface RealDenAddress {
  baseUrl: string;
  ssh: { host: string; port: number };
  kubeconfig: string;
  health: Record<Role, string[]>;
}

/** den manager, den server and den gateway, each replicated, against a real API server. */
export class RealDen implements RealDenAddress {
  readonly processes: DenProcess[] = [];
  baseUrl = '';
  ssh = { host: '127.0.0.1', port: 0 };
  kubeconfig = '';
  health: Record<Role, string[]> = { manager: [], server: [], gateway: [] };
  webhookUrl = '';
  private proxies: { close(): Promise<void> }[] = [];
  private webhooks: RoundRobinTcpProxy | undefined;
  private managerReplicas: { webhookPort: number; healthUrl: string; args: string[] }[] = [];
  private dir = '';

  constructor(
    readonly kube: RealKubeAddress,
    private readonly opts: RealDenOptions = {},
  ) {}

  get address(): RealDenAddress {
    return { baseUrl: this.baseUrl, ssh: this.ssh, kubeconfig: this.kubeconfig, health: this.health };
  }

  async start(): Promise<this> {
    this.dir = await mkdtemp(join(this.kube.dir, 'den-'));
    this.kubeconfig = join(this.dir, 'admin.kubeconfig');
    await writeFile(this.kubeconfig, realKubeconfigYaml(this.kube, 'admin', this.kube.adminToken), { mode: 0o600 });
    const replicas = this.opts.replicas ?? 2;
    const ports = () => Promise.all(Array.from({ length: replicas }, () => freePort()));
    const [managerHealth, webhookPorts, serverPorts, serverHealth, sshPorts, gatewayHealth] = await Promise.all([ports(), ports(), ports(), ports(), ports(), ports()]);
    const webhooks = new RoundRobinTcpProxy(webhookPorts.map((port) => ({ host: '127.0.0.1', port })));
    const web = new RoundRobinHttpProxy(serverPorts.map((port) => ({ host: '127.0.0.1', port })));
    const ssh = new RoundRobinTcpProxy(sshPorts.map((port) => ({ host: '127.0.0.1', port })));
    this.proxies = [webhooks, web, ssh];
    this.webhookUrl = `https://127.0.0.1:${await webhooks.listen()}`;
    this.baseUrl = `http://127.0.0.1:${await web.listen()}`;
    this.ssh = { host: '127.0.0.1', port: await ssh.listen() };
    this.health = {
      manager: managerHealth.map((p) => `http://127.0.0.1:${p}`),
      server: serverHealth.map((p) => `http://127.0.0.1:${p}`),
      gateway: gatewayHealth.map((p) => `http://127.0.0.1:${p}`),
    };
    const [managerId, serverId, gatewayId] = await Promise.all(['den-manager', 'den-server', 'den-gateway'].map((sa) => serviceAccountKubeconfig(this.kube, this.dir, sa)));
    this.webhooks = webhooks;
    this.managerReplicas = managerHealth.map((health, i) => ({
      webhookPort: webhookPorts[i]!,
      healthUrl: `http://127.0.0.1:${health}`,
      args: [
        '--kubeconfig', managerId,
        '--health-listen', `127.0.0.1:${health}`,
        '--webhook-listen', `127.0.0.1:${webhookPorts[i]}`,
        '--webhook-url', this.webhookUrl,
        '--gateway-host', '127.0.0.1',
        '--relist-interval', this.opts.relistInterval ?? '5m',
        ...(this.opts.managerFlags ?? []),
      ],
    }));
    const managers = this.managerReplicas.map((_, i) => this.managerProcess(i));
    // The first manager alone first: it creates the webhook TLS Secret and the gateway's host key, which the others read.
    this.processes.push(managers[0]);
    await managers[0].ready();
    this.processes.push(...managers.slice(1));
    const hostKeyFile = join(this.dir, 'ssh_host_ed25519_key');
    await loadHostKey(hostKeyFile, { generateIfMissing: true });
    for (let i = 0; i < replicas; i++) {
      this.processes.push(
        new DenProcess('server', ['--kubeconfig', serverId, '--listen', `127.0.0.1:${serverPorts[i]}`, '--health-listen', `127.0.0.1:${serverHealth[i]}`, '--base-url', this.baseUrl, '--gateway-port', String(this.ssh.port)], `http://127.0.0.1:${serverPorts[i]}`, `server-${i + 1}`),
        new DenProcess('gateway', ['--kubeconfig', gatewayId, '--listen', `127.0.0.1:${sshPorts[i]}`, '--health-listen', `127.0.0.1:${gatewayHealth[i]}`, '--host-key-file', hostKeyFile], `http://127.0.0.1:${gatewayHealth[i]}`, `gateway-${i + 1}`),
      );
    }
    await Promise.all(this.processes.map((p) => p.ready()));
    return this;
  }

  private managerProcess(i: number): DenProcess {
    const r = this.managerReplicas[i]!;
    return new DenProcess('manager', r.args, r.healthUrl, `manager-${i + 1}`);
  }

  /** Manager replica `i` (from 0), running or not. */
  manager(i: number): DenProcess {
    return this.replicasOf('manager')[i]!;
  }

  /**
   * Manager replica `i` killed (SIGKILL: no Lease released, no goodbye) and its webhook port
   * out of the rotation, as a Service leaves out a pod that is gone; `keepInRotation` leaves it
   * in (every replica down: the API server's calls are refused).
   */
  async killManager(i: number, opts: { keepInRotation?: boolean } = {}): Promise<void> {
    const manager = this.manager(i);
    if (!opts.keepInRotation) this.webhooks?.withdraw(this.managerReplicas[i]!.webhookPort);
    manager.signal('SIGKILL');
    await manager.exited;
  }

  /** Manager replica `i` stopped if it runs, started again with the same flags, ready, and back in the rotation. */
  async restartManager(i: number): Promise<DenProcess> {
    const old = this.manager(i);
    await old.stop();
    const fresh = this.managerProcess(i);
    this.processes[this.processes.indexOf(old)] = fresh;
    await fresh.ready();
    this.webhooks?.withdraw(this.managerReplicas[i]!.webhookPort, false);
    return fresh;
  }

  replicasOf(role: Role): DenProcess[] {
    return this.processes.filter((p) => p.role === role);
  }

  diagnostics(lines = 25): string {
    return this.processes.map((p) => p.tail(lines)).join('\n');
  }

  async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
    await Promise.all(this.proxies.map((p) => p.close()));
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}
