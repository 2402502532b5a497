// The whole platform on this machine: the fake kube-apiserver with Den's CRDs and install
// chart, the real `den` processes started through bin/den.js under their own ServiceAccounts
// (as the Deployments run them: two managers electing a leader, two server replicas and two
// gateway replicas, each pair behind a round-robin proxy as behind its Service; every process
// with a token of its own), and the parts of a cluster the fake lacks: a StatefulSet controller
// and kubelet that create the workspace pod and its home PVC (harness-kubelet.ts), and pods/exec
// served by running commands on this machine (fake-exec).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { denCrds } from '../../contract/index.js';
import { renderInstall } from '../../infra/install/synth.js';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';
import { KubeClient, type KubeObject } from '../../kube/client.js';
import { loadConnection } from '../../kube/connection.js';
import { SYSTEM_NAMESPACE } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { loadHostKey } from '../../gateway/host-key.js';
import { DenProcess, type Role } from './den-process.js';
import { FakeApiServer } from './fake-apiserver.js';
import { FakeExec } from './fake-exec.js';
import { HarnessKubelet, harnessPodLog } from './harness-kubelet.js';
import { freePort, kubeconfigYaml } from './loopback.js';
import { RoundRobinHttpProxy, RoundRobinTcpProxy } from './round-robin.js';

export { DenProcess, eventually, gone, REPO_ROOT, runCommand, runDen, type CommandResult, type Role } from './den-process.js';
export { HarnessKubelet, harnessPodLog, UNPULLABLE_REGISTRY } from './harness-kubelet.js';

/** Where a journey finds the platform: the same shape for this machine and a real cluster. */
export interface PlatformEnvironment {
  /** Base address of `den server` (REST under `/api/v1`). */
  baseUrl: string;
  /** Where `den gateway` accepts SSH. */
  ssh: { host: string; port: number };
  /** kubeconfig of a cluster administrator (for `den users add` and for looking at objects). */
  kubeconfig: string;
  /** The cluster as its administrator sees it. */
  admin: KubeClient;
  /** Container image of the WorkspaceImage the journey creates. */
  workspaceImage: string;
  /** How long reconciliation (and, on a real cluster, image pulls) may take. */
  convergeMs: number;
  /** Suffix making this run's names unique (a real cluster may hold earlier runs). */
  suffix: string;
  /** Recent output of the platform's processes, for failure messages. */
  diagnostics(): Promise<string>;
  /** The log a workspace pod has written, where the platform writes it (a real image writes its own). */
  podLog?(pod: string): string;
}

export interface LocalPlatformOptions {
  /** Manager relist period (`--relist-interval`). */
  relistInterval?: string;
  /** Replicas of `den manager`, `den server` and `den gateway` (default 2, as the install chart runs them). */
  replicas?: number;
  /** `den server --apps-domain`: host-based app previews under it; none by default. */
  appsDomain?: string;
}

/** One replica of `den server` reached directly, not through the proxy. */
export interface ServerReplica {
  process: DenProcess;
  /** Its own address (REST under `/api/v1`). */
  url: string;
}

/** One replica of `den gateway` reached directly. */
export interface GatewayReplica {
  process: DenProcess;
  ssh: { host: string; port: number };
}

/** Everything on loopback: fake API server, harness kubelet, fake exec and the real `den` processes. */
export class LocalPlatform implements PlatformEnvironment {
  readonly api = new FakeApiServer();
  /** Every `den` process: the managers, then the server replicas, then the gateway replicas. */
  readonly processes: DenProcess[] = [];
  /** The round-robin proxy's address in front of the server replicas (what `--base-url` names). */
  baseUrl = '';
  /** The round-robin proxy in front of the gateway replicas. */
  ssh = { host: '127.0.0.1', port: 0 };
  /** Each replica of `den server`, to reach one directly. */
  servers: ServerReplica[] = [];
  /** Each replica of `den gateway`, to reach one directly. */
  gateways: GatewayReplica[] = [];
  /** The health listeners (/healthz, /readyz, /metrics) of each role's processes. */
  health: Record<Role, string[]> = { manager: [], server: [], gateway: [] };
  /** The proxy in front of the server replicas (how many requests each was sent). */
  webProxy: RoundRobinHttpProxy | undefined;
  private proxies: { close(): Promise<void> }[] = [];
  /** Each process's bearer token by its name (`manager-2`): `api.setWatchLag(ms, token)` makes one replica trail another. */
  readonly tokens: Record<string, string> = {};
  kubeconfig = '';
  workspaceImage = 'registry.example.com/dev/ubuntu:24.04';
  convergeMs = 15_000;
  suffix = '';
  podLog = harnessPodLog;
  /** The "pod's" filesystem: where commands run through pods/exec start. */
  podRoot = '';
  dir = '';
  exec!: FakeExec;
  kubelet!: HarnessKubelet;
  private readonly stopKubelet = new AbortController();
  private kubeletRun?: Promise<void>;

  constructor(private readonly opts: LocalPlatformOptions = {}) {}

  get admin(): KubeClient {
    return new KubeClient(loadConnection(this.kubeconfig));
  }

  async start(): Promise<this> {
    this.dir = await mkdtemp(join(tmpdir(), 'den-platform-'));
    this.podRoot = join(this.dir, 'pod');
    await mkdir(this.podRoot);
    await this.api.start();
    this.api.installCrds(denCrds().map((crd) => ({ ...crd })));
    this.install();

    this.kubeconfig = join(this.dir, 'admin.kubeconfig');
    await writeFile(this.kubeconfig, kubeconfigYaml(this.api.url, 'cluster-admin', this.api.adminToken), { mode: 0o600 });

    this.exec = new FakeExec({ cwd: this.podRoot, podExists: (ns, pod) => this.api.object(RESOURCES.pod, pod, ns) !== undefined, env: { HOME: this.podRoot } });
    this.exec.attachTo(this.api);
    this.kubelet = new HarnessKubelet(this.api);
    this.kubeletRun = this.kubelet.run(this.stopKubelet.signal);
    await this.kubelet.synced;

    const replicas = this.opts.replicas ?? 2;
    const ports = () => Promise.all(Array.from({ length: replicas }, () => freePort()));
    const [managerHealth, webhookPorts, serverPorts, serverHealth, sshPorts, gatewayHealth] = await Promise.all([ports(), ports(), ports(), ports(), ports(), ports()]);
    const webhooks = new RoundRobinTcpProxy(webhookPorts.map((port) => ({ host: '127.0.0.1', port })));
    const web = new RoundRobinHttpProxy(serverPorts.map((port) => ({ host: '127.0.0.1', port })));
    const ssh = new RoundRobinTcpProxy(sshPorts.map((port) => ({ host: '127.0.0.1', port })));
    this.proxies = [webhooks, web, ssh];
    this.webProxy = web;
    const webhookUrl = `https://127.0.0.1:${await webhooks.listen()}`;
    this.baseUrl = `http://127.0.0.1:${await web.listen()}`;
    this.ssh = { host: '127.0.0.1', port: await ssh.listen() };
    this.health = {
      manager: managerHealth.map((port) => `http://127.0.0.1:${port}`),
      server: serverHealth.map((port) => `http://127.0.0.1:${port}`),
      gateway: gatewayHealth.map((port) => `http://127.0.0.1:${port}`),
    };

    // The managers, as the chart's Deployment runs them: the same ServiceAccount, a token each, one
    // Service (the proxy) in front of their webhooks, the Lease deciding which one reconciles.
    const managers: DenProcess[] = [];
    for (const [i, health] of managerHealth.entries()) {
      const name = `manager-${i + 1}`;
      const args = [
        '--kubeconfig', await this.identity('den-manager', name),
        '--health-listen', `127.0.0.1:${health}`,
        '--webhook-listen', `127.0.0.1:${webhookPorts[i]}`,
        '--webhook-url', webhookUrl,
        '--gateway-host', '127.0.0.1',
        '--relist-interval', this.opts.relistInterval ?? '5m',
      ];
      managers.push(new DenProcess('manager', args, `http://127.0.0.1:${health}`, name));
    }
    // The first alone first: it registers the webhooks and creates their TLS Secret and the gateway's host key, which the others read.
    this.processes.push(managers[0]!);
    await managers[0]!.ready();
    this.processes.push(...managers.slice(1));
    this.servers = await Promise.all(serverPorts.map(async (port, i) => {
      const serverIdentity = await this.identity('den-server', `server-${i + 1}`);
      const args = ['--kubeconfig', serverIdentity, '--listen', `127.0.0.1:${port}`, '--health-listen', `127.0.0.1:${serverHealth[i]}`, '--base-url', this.baseUrl, '--gateway-port', String(this.ssh.port)];
      if (this.opts.appsDomain) args.push('--apps-domain', this.opts.appsDomain);
      return { process: new DenProcess('server', args, `http://127.0.0.1:${port}`, `server-${i + 1}`), url: `http://127.0.0.1:${port}` };
    }));
    // Both replicas present one host key, as both mount the chart's Secret.
    const hostKeyFile = join(this.dir, 'ssh_host_ed25519_key');
    await loadHostKey(hostKeyFile, { generateIfMissing: true });
    this.gateways = await Promise.all(sshPorts.map(async (port, i) => {
      const gatewayIdentity = await this.identity('den-gateway', `gateway-${i + 1}`);
      const args = ['--kubeconfig', gatewayIdentity, '--listen', `127.0.0.1:${port}`, '--health-listen', `127.0.0.1:${gatewayHealth[i]}`, '--host-key-file', hostKeyFile];
      return { process: new DenProcess('gateway', args, `http://127.0.0.1:${gatewayHealth[i]}`, `gateway-${i + 1}`), ssh: { host: '127.0.0.1', port } };
    }));
    this.processes.push(...this.servers.map((r) => r.process), ...this.gateways.map((r) => r.process));
    await Promise.all(this.processes.map((p) => p.ready()));
    return this;
  }

  /** The processes of one role. */
  replicasOf(role: Role): DenProcess[] {
    return this.processes.filter((p) => p.role === role);
  }

  /** Stops everything; answers each process's exit code by its name (`server-1`). */
  async stop(): Promise<Record<string, number | null>> {
    const codes: Record<string, number | null> = {};
    await Promise.all(
      this.processes.map(async (p) => {
        codes[p.name] = await p.stop();
      }),
    );
    await Promise.all(this.proxies.map((p) => p.close()));
    this.stopKubelet.abort();
    await this.kubeletRun?.catch(() => undefined);
    await this.exec?.close();
    await this.api.close();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
    return codes;
  }

  async diagnostics(): Promise<string> {
    const kubelet = (this.kubelet?.errors ?? []).slice(-10).map((e) => `  [harness kubelet] ${e}`);
    return [...this.processes.map((p) => p.tail(25)), ...kubelet].join('\n');
  }

  /**
   * What `kubectl apply -f dist/` creates: namespace, ClusterRoles and bindings,
   * ServiceAccounts, Services, webhook configurations, and the Deployments, which report one
   * available replica each because their processes run here.
   */
  private install(): void {
    const objects: KubeObject[] = renderInstall(DEFAULT_SETTINGS);
    for (const obj of objects) {
      if (obj.kind === 'CustomResourceDefinition') continue;
      if (obj.kind === 'Deployment') this.api.seed({ ...obj, status: { observedGeneration: 1, replicas: 1, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 1 } } as KubeObject);
      else this.api.seed(obj);
    }
  }

  /** A kubeconfig holding a token of the role's own ServiceAccount (one token per process), so the chart's RBAC applies. */
  private async identity(serviceAccount: string, processName: string): Promise<string> {
    const answer = await this.api.client().request<{ status: { token: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${SYSTEM_NAMESPACE}/serviceaccounts/${serviceAccount}/token`,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 24 * 3600 } },
    });
    this.tokens[processName] = answer.status.token;
    const file = join(this.dir, `${processName}.kubeconfig`);
    await writeFile(file, kubeconfigYaml(this.api.url, `system:serviceaccount:${SYSTEM_NAMESPACE}:${serviceAccount}`, answer.status.token), { mode: 0o600 });
    return file;
  }
}
