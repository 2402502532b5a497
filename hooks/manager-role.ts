// `den manager`: the reconcile loop and the admission webhooks. Every replica serves the
// webhooks; only the holder of the `den-manager` Lease reconciles. On SIGTERM the caches stop,
// in-flight reconciles finish (bounded), the Lease is released and the webhooks close.
import { roleLog, type Role } from '../process/role.js';
import { MANAGER_SUMMARY } from './summary.js';
import { kubeconfigSetting, namespaceSetting } from '../kube/settings.js';
import { parsers, type Address, type Setting } from '../process/settings.js';
import { KubeClient } from '../kube/client.js';
import { apiServerReachable, whenAvailable } from '../kube/availability.js';
import { loadConnection } from '../kube/connection.js';
import { re2 } from '../process/re2.js';
import { DEFAULT_GPU_RESOURCE } from '../kube/group.js';
import { PULL_POLICIES, type PullPolicy } from '../contract/schema.js';
import { DEN_RELEASE_IMAGE } from '../contract/workspace-source.js';
import { RESOURCES } from '../kube/resources.js';
import { isDns1123Subdomain } from '../kube/names.js';
import { WEBHOOK_SERVICE } from '../contract/names.js';
import { healthListenSetting, startHealthServer } from '../process/health.js';
import { Metrics } from '../process/metrics.js';
import { AdmissionMetrics } from './admission/metrics.js';
import { LoopMetrics } from './loop/metrics.js';
import { ensureHostKeySecret } from './host-key-secret.js';
import { startAdmission } from './admission/index.js';
import { DEFAULT_KUBE_RATE, DEFAULT_RECONCILES_IN_FLIGHT, Manager } from './manager.js';
import { Gauge } from 'prom-client';
import type { DormancyPolicy } from '../contract/dormancy.js';

const settings = {
  kubeconfig: kubeconfigSetting,
  namespace: namespaceSetting('Lease, webhook certificate, pull Secrets, gateway host key'),
  healthListen: healthListenSetting,
  webhookListen: {
    flag: 'webhook-listen',
    env: 'DEN_WEBHOOK_LISTEN',
    describe: 'HTTPS address of the admission webhooks',
    parse: parsers.address,
    default: { host: '0.0.0.0', port: 9443 },
  } satisfies Setting<Address>,
  webhookUrl: {
    flag: 'webhook-url',
    env: 'DEN_WEBHOOK_URL',
    describe: 'outside the cluster: register the webhooks at this https URL instead of the Service',
    parse: parsers.url,
    default: '',
  } satisfies Setting<string>,
  webhookService: {
    flag: 'webhook-service',
    env: 'DEN_WEBHOOK_SERVICE',
    describe: 'Service in front of the webhooks, in --namespace',
    parse: parsers.nonEmpty,
    default: WEBHOOK_SERVICE,
  } satisfies Setting<string>,
  gatewayHost: {
    flag: 'gateway-host',
    env: 'DEN_GATEWAY_HOST',
    describe: 'SSH host name people connect to, written into Workspace status.endpoint',
    parse: parsers.nonEmpty,
    default: 'den.example.com',
  } satisfies Setting<string>,
  gpuResource: {
    flag: 'gpu-resource',
    env: 'DEN_GPU_RESOURCE',
    describe: 'extended resource counted as GPUs in quotas',
    parse: parsers.nonEmpty,
    default: DEFAULT_GPU_RESOURCE,
  } satisfies Setting<string>,
  leaderElect: {
    flag: 'leader-elect',
    env: 'DEN_LEADER_ELECT',
    describe: 'reconcile only while holding the den-manager Lease (turn off only for a single replica)',
    parse: parsers.boolean,
    default: true,
    boolean: true,
  } satisfies Setting<boolean>,
  idleStop: {
    flag: 'idle-stop',
    env: 'DEN_IDLE_STOP',
    describe: 'stop running Workspaces with no SSH session or browser terminal open for longer than their spec.idleTimeout',
    parse: parsers.boolean,
    default: false,
    boolean: true,
  } satisfies Setting<boolean>,
  dormantStopDays: {
    flag: 'dormant-stop-days',
    env: 'DEN_DORMANT_STOP_DAYS',
    describe: 'stop Workspaces with no SSH session or browser terminal for this many days (0: never; docs/schedules.md)',
    parse: parsers.integer(0, 3650),
    default: 0,
  } satisfies Setting<number>,
  dormantDeleteDays: {
    flag: 'dormant-delete-days',
    env: 'DEN_DORMANT_DELETE_DAYS',
    describe: 'delete Workspaces unused this many days more after --dormant-stop-days (0: never)',
    parse: parsers.integer(0, 3650),
    default: 0,
  } satisfies Setting<number>,
  dormantDeleteHome: {
    flag: 'dormant-delete-home',
    env: 'DEN_DORMANT_DELETE_HOME',
    describe: 'delete the home volume with a dormant Workspace (off: the home is kept, and a new workspace of the same name finds it)',
    parse: parsers.boolean,
    default: false,
    boolean: true,
  } satisfies Setting<boolean>,
  cloneImage: {
    flag: 'clone-image',
    env: 'DEN_CLONE_IMAGE',
    describe: 'Den\'s own image: the init container that clones a Workspace\'s spec.source runs its `den clone-source` (the install chart sets it to the image it installs)',
    parse: parsers.nonEmpty,
    default: DEN_RELEASE_IMAGE,
  } satisfies Setting<string>,
  cloneImagePullPolicy: {
    flag: 'clone-image-pull-policy',
    env: 'DEN_CLONE_IMAGE_PULL_POLICY',
    describe: 'pull policy of --clone-image: Always, IfNotPresent or Never',
    parse: (raw: string): PullPolicy => {
      if (!(PULL_POLICIES as readonly string[]).includes(raw)) throw new Error(`must be one of ${PULL_POLICIES.join(', ')}`);
      return raw as PullPolicy;
    },
    default: 'IfNotPresent' as PullPolicy,
  } satisfies Setting<PullPolicy>,
  cloneImagePullSecrets: {
    flag: 'clone-image-pull-secrets',
    env: 'DEN_CLONE_IMAGE_PULL_SECRETS',
    describe: "comma-separated names of the pull Secrets of --clone-image, listed in the imagePullSecrets of every workspace pod that clones; label each den.dev/pull-secret=true in Den's namespace so the UserSpace copies it into every person's namespace (the install chart passes image.pullSecrets)",
    parse: (raw: string): string[] => {
      const names = parsers.list(raw);
      const bad = names.find((n) => !isDns1123Subdomain(n));
      if (bad !== undefined) throw new Error(`'${bad}' is not a Secret name (a lower-case DNS name)`);
      return names;
    },
    default: [] as string[],
    show: '',
  } satisfies Setting<string[]>,
  relistInterval: {
    flag: 'relist-interval',
    env: 'DEN_RELIST_INTERVAL',
    describe: 'full relist of every cache and re-reconcile of every object at this period',
    parse: parsers.duration,
    default: 5 * 60_000,
    show: '5m',
  } satisfies Setting<number>,
  reconcilesInFlight: {
    flag: 'reconciles-in-flight',
    env: 'DEN_RECONCILES_IN_FLIGHT',
    describe: 'reconciles running at once per kind (docs/manager.md says why the default)',
    parse: parsers.integer(1, 1000),
    default: DEFAULT_RECONCILES_IN_FLIGHT,
  } satisfies Setting<number>,
  kubeQps: {
    flag: 'kube-qps',
    env: 'DEN_KUBE_QPS',
    describe: 'requests per second the reconcile loop may start against the API server (client-go QPS; 0: no limit)',
    parse: parsers.integer(0, 100_000),
    default: DEFAULT_KUBE_RATE.perSecond,
  } satisfies Setting<number>,
  kubeBurst: {
    flag: 'kube-burst',
    env: 'DEN_KUBE_BURST',
    describe: 'requests the reconcile loop may start at once above --kube-qps (client-go Burst)',
    parse: parsers.integer(1, 100_000),
    default: DEFAULT_KUBE_RATE.burst,
  } satisfies Setting<number>,
};

/** The dormancy policy of the flags; none when --dormant-stop-days is 0. */
function dormancyOf(s: { dormantStopDays: number; dormantDeleteDays: number; dormantDeleteHome: boolean }): { dormancy?: DormancyPolicy } {
  if (s.dormantStopDays <= 0) return {};
  return { dormancy: { stopAfterDays: s.dormantStopDays, ...(s.dormantDeleteDays > 0 ? { deleteAfterDays: s.dormantDeleteDays, home: s.dormantDeleteHome ? 'Delete' : 'Keep' } : {}) } };
}

function startupError(step: string, err: unknown): Error {
  return new Error(`manager start-up: ${step}: ${(err as Error).message}`, { cause: err });
}

export const managerRole: Role<typeof settings> = {
  summary: MANAGER_SUMMARY,
  settings,
  async run(s, signal) {
    const logLine = roleLog('manager');
    re2(); // the ImageRegistry webhook compiles patterns: fail here, in one line, not on a request
    const client = new KubeClient(loadConnection(s.kubeconfig || undefined));
    // The loop's writes wait for the rate limit; the webhooks' reads and the Lease do not wait behind them.
    const loopClient = new KubeClient(client.connection, undefined, { shared: client, rateLimit: s.kubeQps > 0 ? { perSecond: s.kubeQps, burst: s.kubeBurst } : undefined });
    const metrics = new Metrics();
    const manager = new Manager(client, {
      config: { namespace: s.namespace, gatewayHost: s.gatewayHost, gpuResource: s.gpuResource, relistIntervalMs: s.relistInterval, idleStop: s.idleStop, ...dormancyOf(s), clone: { image: s.cloneImage, imagePullPolicy: s.cloneImagePullPolicy, imagePullSecrets: s.cloneImagePullSecrets } },
      leaderElect: s.leaderElect,
      log: logLine,
      loopClient,
      controller: { metrics: new LoopMetrics(metrics.registry), concurrency: s.reconcilesInFlight },
    });
    new Gauge({
      name: 'den_manager_leader',
      help: '1 while this replica holds the den-manager Lease and reconciles.',
      registers: [metrics.registry],
      collect() {
        this.set(manager.leading ? 1 : 0);
      },
    });
    let admissionReady: () => boolean = () => false;
    const health = await startHealthServer(s.healthListen, () => admissionReady() && manager.ready, metrics).catch((err: unknown) => {
      throw startupError(`--health-listen ${s.healthListen.host}:${s.healthListen.port}`, err);
    });
    logLine('health endpoints listening', { address: `${s.healthListen.host}:${health.address.port}` });
    try {
      const wait = { log: logLine, signal };
      if (!(await apiServerReachable(client, wait))) return;
      const hostKey = await whenAvailable('gateway host key Secret', () => ensureHostKeySecret(client, s.namespace).then(() => true), wait).catch((err: unknown) => {
        throw startupError('gateway host key Secret', err);
      });
      if (hostKey === undefined) return;
      // Registered once: a retried start-up must not register the same figures twice.
      const admissionMetrics = new AdmissionMetrics(metrics.registry);
      // The webhooks read UserSpaces and Workspaces from the loop's caches, which run on every
      // replica from here on; the campaign for the Lease begins once the webhooks serve.
      const managerCaches = manager.runCaches(signal);
      const admission = await whenAvailable('admission webhooks', () => startAdmission({
        client,
        namespace: s.namespace,
        listen: s.webhookListen,
        webhookUrl: s.webhookUrl || undefined,
        serviceName: s.webhookService,
        gpuResource: s.gpuResource,
        signal,
        log: logLine,
        metrics: admissionMetrics,
        shared: { userSpaces: manager.parentCache(RESOURCES.userSpace), workspaces: manager.parentCache(RESOURCES.workspace) },
      }), wait).catch((err: unknown) => {
        throw startupError('admission webhooks', err);
      });
      if (!admission) {
        await managerCaches;
        return;
      }
      admissionReady = admission.ready;
      logLine(s.leaderElect ? 'started; campaigning for the Lease' : 'started; reconciling without leader election', { identity: manager.identity });
      await manager.run(signal);
    } finally {
      await health.close();
    }
    logLine('stopped');
  },
};
