// The whole platform on this machine: the fake kube-apiserver with Den's CRDs and install
// chart, the real `den` processes started through bin/den.js under their own ServiceAccounts
// (as the Deployments run them: one manager, two server replicas and two gateway replicas,
// each pair behind a round-robin proxy as behind its Service), and the parts of a cluster the fake lacks:
// a StatefulSet controller and kubelet that create the workspace pod and its home PVC, and
// pods/exec served by running commands on this machine (fake-exec).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { denCrds } from '../../contract/index.js';
import { renderInstall } from '../../infra/install/synth.js';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';
import { KubeClient, type KubeObject } from '../../kube/client.js';
import { loadConnection } from '../../kube/connection.js';
import { isNotFound } from '../../kube/errors.js';
import { SYSTEM_NAMESPACE } from '../../kube/group.js';
import { Informer } from '../../kube/informer.js';
import { RESOURCES } from '../../kube/resources.js';
import { ApiError, FakeApiServer } from './fake-apiserver.js';
import { FakeExec } from './fake-exec.js';
import { loadHostKey } from '../../gateway/host-key.js';
import { freePort, kubeconfigYaml } from './loopback.js';
import { RoundRobinHttpProxy, RoundRobinTcpProxy } from './round-robin.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DEN_BIN = join(REPO_ROOT, 'bin/den.js');
const READY_TIMEOUT_MS = 45_000;
const STOP_TIMEOUT_MS = 8_000;
/** Lines of each process's stderr kept for failure messages. */
const STDERR_LINES = 200;

export type Role = 'manager' | 'server' | 'gateway';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `den <args>` (through bin/den.js, as a person would) to completion, with no DEN_* or KUBECONFIG from the test runner. */
export function runDen(args: string[], opts: { stdin?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
  return runCommand(process.execPath, [DEN_BIN, ...args], { ...opts, env: cleanEnv() });
}

/** Runs a program to completion, feeding `stdin`, collecting its output; kills it after `timeoutMs`. */
export function runCommand(file: string, args: string[], opts: { stdin?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CommandResult> {
  return new Promise((resolvePromise, reject) => {
    // Without input the child reads /dev/null: an empty pipe that a child exiting at once never
    // reads would fail the write with EPIPE now and then.
    const child = spawn(file, args, { cwd: REPO_ROOT, env: opts.env ?? process.env, stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.stdin?.on('error', (err) => (stderr += `\n[stdin: ${err.message}]`));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
    if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  });
}

/** Polls `probe` until it answers something other than undefined/false. */
export async function eventually<R>(probe: () => R, what: string, timeoutMs: number, intervalMs = 100): Promise<Exclude<Awaited<R>, undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as Exclude<Awaited<R>, undefined | false>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError ? ` (last error: ${(lastError as Error).message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Whether `lookup` (a get) answers 404: true for 404, false when found, any other error thrown. */
export async function gone(lookup: Promise<unknown>): Promise<boolean> {
  try {
    await lookup;
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

/** One `den <role>` child process and what it said on stderr. */
export class DenProcess {
  /** The last STDERR_LINES lines, for failure messages. */
  readonly stderr: string[] = [];
  /** Everything it wrote on stderr (its log), line by line. */
  readonly log: string[] = [];
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(
    readonly role: Role,
    args: string[],
    readonly healthUrl: string,
    /** Which replica, in failure messages (`server-1`). */
    readonly name: string = role,
  ) {
    this.child = spawn(process.execPath, [DEN_BIN, role, ...args], { cwd: REPO_ROOT, env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    let partial = '';
    this.child.stderr!.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      this.stderr.push(...lines);
      this.log.push(...lines);
      if (this.stderr.length > STDERR_LINES) this.stderr.splice(0, this.stderr.length - STDERR_LINES);
    });
    this.exited = new Promise((ok) => {
      this.child.on('error', (err) => {
        this.stderr.push(`[spawn failed: ${err.message}]`);
        ok(null);
      });
      this.child.on('exit', (code) => ok(code));
    });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves once `/readyz` answers 200; rejects with the process's stderr when it exits first. */
  async ready(timeoutMs = READY_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`den ${this.role} exited with code ${this.child.exitCode} before it was ready:\n${this.tail()}`);
      const ok = await fetch(`${this.healthUrl}/readyz`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error(`den ${this.role} was not ready after ${timeoutMs} ms:\n${this.tail()}`);
  }

  /** Sends `signal` (SIGKILL: gone at once; SIGSTOP: frozen, its sockets open; SIGCONT: thawed). */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGTERM (graceful), then SIGKILL if it has not exited in time; answers the exit code. */
  async stop(): Promise<number | null> {
    if (this.running) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      const code = await this.exited;
      clearTimeout(timer);
      return code;
    }
    return this.exited;
  }

  tail(lines = 40): string {
    return this.stderr.slice(-lines).map((l) => `  [${this.name}] ${l}`).join('\n');
  }
}

/** The test runner's environment without anything that would point a child at another cluster. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DEN_') && k !== 'KUBECONFIG' && k !== 'KUBERNETES_SERVICE_HOST') env[k] = v;
  return env;
}

const POD_READY_CONDITIONS = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];
/** Images under this registry cannot be pulled, here as on any real node (`.invalid` never resolves). */
export const UNPULLABLE_REGISTRY = 'registry.invalid';

function timestamp(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * What the StatefulSet controller and the kubelet do for a one-replica StatefulSet: create
 * its home PVCs from the claim templates and its pod `<name>-0` through the API server's
 * built-in admission (LimitRange defaults, ResourceQuota; a refusal is a FailedCreate event) (owned by the StatefulSet,
 * with the template's labels and a Ready status in the kubelet's shape, or ErrImagePull for
 * an image under `registry.invalid/`), delete the pod when replicas drop to 0, and report the
 * replica counts in the StatefulSet's status.
 */
export class HarnessKubelet {
  /** What went wrong in the harness itself (shown with the processes' output). */
  readonly errors: string[] = [];
  private readonly statefulSets: Informer;

  constructor(
    private readonly api: FakeApiServer,
    readonly node = 'harness-node',
  ) {
    this.statefulSets = new Informer(api.client(), RESOURCES.statefulSet, { backoffMs: 50, onError: (err) => this.errors.push(String((err as Error)?.message ?? err)) });
    this.statefulSets.on((event) => {
      if (event.type !== 'DELETED') this.reconcile(event.object);
    });
  }

  run(signal: AbortSignal): Promise<void> {
    return this.statefulSets.run(signal);
  }

  get synced(): Promise<void> {
    return this.statefulSets.synced;
  }

  private reconcile(seen: KubeObject): void {
    const { name, namespace } = seen.metadata as { name: string; namespace: string };
    // Read the stored object, not the event: a later write may already have replaced it.
    const sts = this.api.object<any>(RESOURCES.statefulSet, name, namespace);
    if (!sts || sts.metadata.deletionTimestamp) return;
    const replicas: number = sts.spec?.replicas ?? 1;
    const podName = `${name}-0`;
    let pod = this.api.object<any>(RESOURCES.pod, podName, namespace);
    if (replicas >= 1) {
      for (const template of sts.spec?.volumeClaimTemplates ?? []) this.ensureClaim(sts, template);
      const admitted = pod ? undefined : this.admitted(sts, this.renderPod(sts, podName), `Pod ${podName}`);
      if (admitted) {
        pod = this.api.seed(admitted)[0];
        this.api.seed(...this.startEvents(pod));
        this.api.setPodLog(namespace, podName, harnessPodLog(podName));
      }
    } else if (pod) {
      this.api.remove(RESOURCES.pod, podName, namespace);
      pod = undefined;
    }
    const count = pod ? 1 : 0;
    const ready = pod?.status?.phase === 'Running' ? 1 : 0;
    const status = {
      observedGeneration: sts.metadata.generation,
      replicas: count,
      readyReplicas: ready,
      currentReplicas: count,
      updatedReplicas: count,
      availableReplicas: ready,
      collisionCount: 0,
    };
    const current = this.api.object<any>(RESOURCES.statefulSet, name, namespace);
    if (current && JSON.stringify(current.status ?? {}) !== JSON.stringify(status)) this.api.seed({ ...current, status });
  }

  private ensureClaim(sts: any, template: any): void {
    const namespace = sts.metadata.namespace;
    const claim = `${template.metadata.name}-${sts.metadata.name}-0`;
    if (this.api.object(RESOURCES.persistentVolumeClaim, claim, namespace)) return;
    // No ownerReference: without a retention policy the StatefulSet controller leaves claims behind.
    const admitted = this.admitted(sts, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: claim, namespace, labels: { ...sts.spec.selector?.matchLabels, ...template.metadata.labels } },
      spec: { storageClassName: 'standard', volumeMode: 'Filesystem', ...template.spec, volumeName: `pvc-${claim}` },
      status: { phase: 'Bound', accessModes: template.spec?.accessModes ?? ['ReadWriteOnce'], capacity: { storage: template.spec?.resources?.requests?.storage ?? '1Gi' } },
    } as KubeObject, `Claim ${claim} for Pod ${sts.metadata.name}-0`);
    if (admitted) this.api.seed(admitted);
  }

  /**
   * What the API server's built-in admission (LimitRange, ResourceQuota) makes of a pod or
   * claim the controller creates; a refusal becomes the controller's FailedCreate event.
   */
  private admitted(sts: any, obj: KubeObject, what: string): KubeObject | undefined {
    try {
      return this.api.admitBuiltIn(obj);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const { name, namespace, uid } = sts.metadata;
      const now = timestamp();
      this.api.seed({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${name}.failedcreate`, namespace },
        involvedObject: { apiVersion: 'apps/v1', kind: 'StatefulSet', name, namespace, uid },
        reason: 'FailedCreate',
        message: `create ${what} in StatefulSet ${name} failed error: ${err.body.message}`,
        source: { component: 'statefulset-controller' },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type: 'Warning',
        reportingComponent: 'statefulset-controller',
      } as KubeObject);
      return undefined;
    }
  }

  /**
   * The events of a pod's start as the scheduler and the kubelet record them: Scheduled, then
   * Pulled, Created and Started per container, or Pulling and Failed for an unpullable image.
   */
  private startEvents(pod: any): KubeObject[] {
    const { name, namespace, uid } = pod.metadata;
    const now = timestamp();
    const event = (reason: string, message: string, over: Record<string, unknown> = {}): KubeObject =>
      ({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${name}.${randomBytes(8).toString('hex')}`, namespace },
        involvedObject: { apiVersion: 'v1', kind: 'Pod', name, namespace, uid },
        reason,
        message,
        source: { component: 'kubelet', host: this.node },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type: 'Normal',
        eventTime: null,
        reportingComponent: 'kubelet',
        reportingInstance: this.node,
        ...over,
      }) as KubeObject;
    const events = [
      event('Scheduled', `Successfully assigned ${namespace}/${name} to ${this.node}`, {
        source: {},
        firstTimestamp: null,
        lastTimestamp: null,
        count: undefined,
        eventTime: new Date().toISOString().replace('Z', '000Z'),
        action: 'Binding',
        reportingComponent: 'default-scheduler',
        reportingInstance: `default-scheduler-${this.node}`,
      }),
    ];
    for (const c of pod.spec?.containers ?? []) {
      const about = { involvedObject: { apiVersion: 'v1', kind: 'Pod', name, namespace, uid, fieldPath: `spec.containers{${c.name}}` } };
      if (String(c.image).startsWith(`${UNPULLABLE_REGISTRY}/`)) {
        events.push(event('Pulling', `Pulling image "${c.image}"`, about));
        events.push(event('Failed', `Failed to pull image "${c.image}": ${pod.status?.containerStatuses?.find((s: any) => s.name === c.name)?.state?.waiting?.message ?? 'pull failed'}`, { ...about, type: 'Warning' }));
        continue;
      }
      events.push(event('Pulled', `Container image "${c.image}" already present on machine`, about));
      events.push(event('Created', `Created container ${c.name}`, about));
      events.push(event('Started', `Started container ${c.name}`, about));
    }
    return events;
  }

  private renderPod(sts: any, podName: string): KubeObject {
    const template = sts.spec.template ?? {};
    const now = timestamp();
    const containers: any[] = template.spec?.containers ?? [];
    const unpullable = containers.find((c) => String(c.image).startsWith(`${UNPULLABLE_REGISTRY}/`));
    const metadata = {
      name: podName,
      namespace: sts.metadata.namespace,
      labels: { ...template.metadata?.labels, 'statefulset.kubernetes.io/pod-name': podName, 'apps.kubernetes.io/pod-index': '0' },
      annotations: { ...template.metadata?.annotations },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: sts.metadata.name, uid: sts.metadata.uid, controller: true, blockOwnerDeletion: true }],
    };
    const spec = { ...template.spec, hostname: podName, subdomain: sts.spec.serviceName, nodeName: this.node };
    const status = unpullable ? pullFailureStatus(containers, unpullable, now) : runningStatus(containers, podName, now);
    return { apiVersion: 'v1', kind: 'Pod', metadata, spec, status };
  }
}

/** What a workspace pod started by the harness kubelet has written to its log. */
export function harnessPodLog(pod: string): string {
  return Array.from({ length: 8 }, (_, i) => `${pod} log line ${i + 1}\n`).join('');
}

/** A pod's status once its containers run, as the kubelet reports it. */
function runningStatus(containers: any[], podName: string, now: string): Record<string, unknown> {
  return {
    phase: 'Running',
    conditions: POD_READY_CONDITIONS.map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now })),
    hostIP: '10.0.0.12',
    podIP: '10.244.1.7',
    startTime: now,
    containerStatuses: containers.map((c) => ({
      name: c.name,
      state: { running: { startedAt: now } },
      lastState: {},
      ready: true,
      restartCount: 0,
      image: c.image,
      imageID: `${c.image}@sha256:${'0'.repeat(64)}`,
      containerID: `containerd://${podName}`,
      started: true,
    })),
    qosClass: 'Guaranteed',
  };
}

/** What containerd reports for a registry whose name does not resolve. */
function pullFailureStatus(containers: any[], unpullable: any, now: string): Record<string, unknown> {
  const image = String(unpullable.image);
  const notReady = { status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${unpullable.name}]` };
  return {
    phase: 'Pending',
    conditions: [
      { type: 'PodReadyToStartContainers', status: 'True', lastProbeTime: null, lastTransitionTime: now },
      { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: now },
      { type: 'Ready', ...notReady, lastProbeTime: null, lastTransitionTime: now },
      { type: 'ContainersReady', ...notReady, lastProbeTime: null, lastTransitionTime: now },
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now },
    ],
    hostIP: '10.0.0.12',
    podIP: '10.244.1.8',
    startTime: now,
    containerStatuses: containers.map((c) => ({
      name: c.name,
      state: {
        waiting: {
          reason: 'ErrImagePull',
          message: `failed to pull and unpack image "${image}": failed to resolve reference "${image}": failed to do request: Head "https://${UNPULLABLE_REGISTRY}/v2/": dial tcp: lookup ${UNPULLABLE_REGISTRY}: no such host`,
        },
      },
      lastState: {},
      ready: false,
      restartCount: 0,
      image: c.image,
      imageID: '',
      started: false,
    })),
    qosClass: 'Guaranteed',
  };
}

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
  /** Replicas of `den server` and of `den gateway` (default 2, as the install chart runs them). */
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
  /** Every `den` process: the manager, then the server replicas, then the gateway replicas. */
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
    const [managerHealth, webhook] = await Promise.all([freePort(), freePort()]);
    const [serverPorts, serverHealth, sshPorts, gatewayHealth] = await Promise.all([ports(), ports(), ports(), ports()]);
    const web = new RoundRobinHttpProxy(serverPorts.map((port) => ({ host: '127.0.0.1', port })));
    const ssh = new RoundRobinTcpProxy(sshPorts.map((port) => ({ host: '127.0.0.1', port })));
    this.proxies = [web, ssh];
    this.webProxy = web;
    this.baseUrl = `http://127.0.0.1:${await web.listen()}`;
    this.ssh = { host: '127.0.0.1', port: await ssh.listen() };
    this.health = {
      manager: [`http://127.0.0.1:${managerHealth}`],
      server: serverHealth.map((port) => `http://127.0.0.1:${port}`),
      gateway: gatewayHealth.map((port) => `http://127.0.0.1:${port}`),
    };

    // The manager first: it registers the webhooks and creates the gateway's host key Secret.
    const manager = new DenProcess(
      'manager',
      [
        '--kubeconfig', await this.identity('den-manager'),
        '--health-listen', `127.0.0.1:${managerHealth}`,
        '--webhook-listen', `127.0.0.1:${webhook}`,
        '--webhook-url', `https://127.0.0.1:${webhook}`,
        '--gateway-host', '127.0.0.1',
        '--relist-interval', this.opts.relistInterval ?? '5m',
      ],
      `http://127.0.0.1:${managerHealth}`,
    );
    this.processes.push(manager);
    const serverIdentity = await this.identity('den-server');
    this.servers = serverPorts.map((port, i) => {
      const args = ['--kubeconfig', serverIdentity, '--listen', `127.0.0.1:${port}`, '--health-listen', `127.0.0.1:${serverHealth[i]}`, '--base-url', this.baseUrl, '--gateway-port', String(this.ssh.port)];
      if (this.opts.appsDomain) args.push('--apps-domain', this.opts.appsDomain);
      return { process: new DenProcess('server', args, `http://127.0.0.1:${port}`, `server-${i + 1}`), url: `http://127.0.0.1:${port}` };
    });
    // Both replicas present one host key, as both mount the chart's Secret.
    const hostKeyFile = join(this.dir, 'ssh_host_ed25519_key');
    await loadHostKey(hostKeyFile, { generateIfMissing: true });
    const gatewayIdentity = await this.identity('den-gateway');
    this.gateways = sshPorts.map((port, i) => {
      const args = ['--kubeconfig', gatewayIdentity, '--listen', `127.0.0.1:${port}`, '--health-listen', `127.0.0.1:${gatewayHealth[i]}`, '--host-key-file', hostKeyFile];
      return { process: new DenProcess('gateway', args, `http://127.0.0.1:${gatewayHealth[i]}`, `gateway-${i + 1}`), ssh: { host: '127.0.0.1', port } };
    });
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

  /** A kubeconfig holding a token of the role's own ServiceAccount, so the chart's RBAC applies. */
  private async identity(serviceAccount: string): Promise<string> {
    const answer = await this.api.client().request<{ status: { token: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${SYSTEM_NAMESPACE}/serviceaccounts/${serviceAccount}/token`,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 24 * 3600 } },
    });
    const file = join(this.dir, `${serviceAccount}.kubeconfig`);
    await writeFile(file, kubeconfigYaml(this.api.url, `system:serviceaccount:${SYSTEM_NAMESPACE}:${serviceAccount}`, answer.status.token), { mode: 0o600 });
    return file;
  }
}
