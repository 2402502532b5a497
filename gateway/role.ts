// `den gateway`: the SSH gateway process. Reads its settings once, loads the host key,
// starts the Workspace and WorkspaceImage caches, serves SSH and the health endpoints, and
// on SIGTERM stops accepting and lets open sessions finish (up to a bound) before exiting.
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { roleLog, type Role } from '../process/role.js';
import { GATEWAY_SUMMARY } from './summary.js';
import { kubeconfigSetting, namespaceSetting, tokenTtlSetting } from '../kube/settings.js';
import { parsers, type Address, type Setting } from '../process/settings.js';
import { KubeClient } from '../kube/client.js';
import { apiServerReachable } from '../kube/availability.js';
import { inCluster, loadConnection } from '../kube/connection.js';
import { Informer } from '../kube/informer.js';
import type { UserSpace } from '../contract/user-space.js';
import { untilAborted } from '../process/timers.js';
import { RESOURCES } from '../kube/resources.js';
import { GATEWAY_HOST_KEY_DIR, GATEWAY_HOST_KEY_FILE } from '../contract/names.js';
import { healthListenSetting, startHealthServer } from '../process/health.js';
import { Metrics } from '../process/metrics.js';
import { loadHostKey } from './host-key.js';
import { DEFAULT_GATEWAY_LIMITS, Gateway } from './server.js';
import { maxStartupsText, parseMaxStartups, parsePerSourceStartups, type MaxStartups } from './pre-auth.js';
import { parseTrustedProxies } from '../process/trusted-proxies.js';
import { WorkspaceDirectory, type Workspace, type WorkspaceImage } from './workspaces.js';

function atLeastOneSecond(raw: string): number {
  const ms = parsers.duration(raw);
  if (ms < 1000) throw new Error(`expected at least 1s, got '${raw}'`);
  return ms;
}

const settings = {
  kubeconfig: kubeconfigSetting,
  namespace: namespaceSetting(),
  listen: {
    flag: 'listen',
    env: 'DEN_LISTEN',
    describe: 'SSH listen address (host:port)',
    parse: parsers.address,
    default: { host: '0.0.0.0', port: 2222 },
  } satisfies Setting<Address>,
  healthListen: healthListenSetting,
  tokenTtl: tokenTtlSetting,
  hostKeyFile: {
    flag: 'host-key-file',
    env: 'DEN_HOST_KEY_FILE',
    describe: `SSH host private key (OpenSSH format); generated once when missing outside the cluster; empty: ${GATEWAY_HOST_KEY_DIR}/${GATEWAY_HOST_KEY_FILE} in a pod, else $XDG_CONFIG_HOME/den/${GATEWAY_HOST_KEY_FILE} (~/.config/den/ when unset)`,
    parse: parsers.string,
    default: '',
  } satisfies Setting<string>,
  keepaliveInterval: {
    flag: 'keepalive-interval',
    env: 'DEN_KEEPALIVE_INTERVAL',
    describe: 'interval of SSH keepalive probes (at least 1s); a client missing three in a row is dropped',
    parse: atLeastOneSecond,
    default: 30_000,
    show: '30s',
  } satisfies Setting<number>,
  loginGraceTime: {
    flag: 'login-grace-time',
    env: 'DEN_LOGIN_GRACE_TIME',
    describe: "time a connection has to authenticate (at least 1s) before it is closed, as sshd's LoginGraceTime",
    parse: atLeastOneSecond,
    default: DEFAULT_GATEWAY_LIMITS.loginGraceMs,
    show: `${DEFAULT_GATEWAY_LIMITS.loginGraceMs / 1000}s`,
  } satisfies Setting<number>,
  maxStartups: {
    flag: 'max-startups',
    env: 'DEN_MAX_STARTUPS',
    describe:
      "connections not yet authenticated, from all sources, as sshd's MaxStartups start:rate:full: from start on a new one is closed at once with a chance rising from rate% to 100% at full; one number is a hard cap",
    parse: parseMaxStartups,
    default: DEFAULT_GATEWAY_LIMITS.maxStartups,
    show: maxStartupsText(DEFAULT_GATEWAY_LIMITS.maxStartups),
  } satisfies Setting<MaxStartups>,
  maxStartupsPerSource: {
    flag: 'max-startups-per-source',
    env: 'DEN_MAX_STARTUPS_PER_SOURCE',
    describe:
      "connections not yet authenticated from one client address; more are closed at once (sshd's PerSourceMaxStartups); none: no such cap, as clients behind one NAT share an address",
    parse: parsePerSourceStartups,
    default: DEFAULT_GATEWAY_LIMITS.maxStartupsPerSource,
    show: 'none',
  } satisfies Setting<number | undefined>,
  proxyProtocolFrom: {
    flag: 'proxy-protocol-from',
    env: 'DEN_PROXY_PROTOCOL_FROM',
    describe:
      'comma-separated addresses or CIDR ranges of load balancers that begin each connection with a PROXY protocol header (v2 or v1), whose client address then counts; anyone else is a plain SSH client; empty: none',
    parse: parseTrustedProxies,
    default: [] as string[],
    show: '',
  } satisfies Setting<string[]>,
  maxAuthTries: {
    flag: 'max-auth-tries',
    env: 'DEN_MAX_AUTH_TRIES',
    describe: "failed authentication attempts after which a connection is closed with \"Too many authentication failures\" (sshd's MaxAuthTries)",
    parse: parsers.integer(1, 100),
    default: DEFAULT_GATEWAY_LIMITS.maxAuthTries,
  } satisfies Setting<number>,
};

/**
 * The host key file when none is named: in a pod the path the chart mounts the Secret at;
 * elsewhere the user's own config folder, never a system path a person would need root for.
 */
export function defaultHostKeyFile(env: NodeJS.ProcessEnv): string {
  if (env.KUBERNETES_SERVICE_HOST) return join(GATEWAY_HOST_KEY_DIR, GATEWAY_HOST_KEY_FILE);
  const config = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(env.HOME || homedir(), '.config');
  return join(config, 'den', GATEWAY_HOST_KEY_FILE);
}

export const gatewayRole: Role<typeof settings> = {
  summary: GATEWAY_SUMMARY,
  settings,
  async run(s, signal) {
    const logLine = roleLog('gateway');
    const connection = loadConnection(s.kubeconfig || undefined);
    const hostKeyFile = s.hostKeyFile || defaultHostKeyFile(process.env);
    let hostKey: string;
    try {
      // In a pod without --kubeconfig the key is the Secret the kubelet mounts: never made up here.
      hostKey = await loadHostKey(hostKeyFile, { generateIfMissing: Boolean(s.kubeconfig) || !inCluster() });
    } catch (err) {
      throw new Error(`--host-key-file (DEN_HOST_KEY_FILE): ${(err as Error).message}`, { cause: err });
    }
    const client = new KubeClient(connection);
    const onError = (what: string) => (err: unknown) => logLine(`${what} cache error`, { error: (err as Error).message });
    const workspaces = new Informer<Workspace>(client, RESOURCES.workspace, { onError: onError('workspace') });
    const images = new Informer<WorkspaceImage>(client, RESOURCES.workspaceImage, { onError: onError('workspaceimage') });
    // People's own profile keys, which a workspace shared with them takes (gateway/guest.ts).
    const people = new Informer<UserSpace>(client, RESOURCES.userSpace, { onError: onError('userspace') });
    const directory = new WorkspaceDirectory(workspaces, client);
    const caches = new AbortController();
    const running: Promise<void>[] = [];

    const metrics = new Metrics();
    const gateway = new Gateway({
      metrics,
      hostKey,
      client,
      tokenTtlSeconds: s.tokenTtl / 1000,
      named: (name) => directory.named(name),
      current: (name) => directory.current(name),
      image: (name) => images.get(name),
      people,
      keepaliveIntervalMs: s.keepaliveInterval,
      limits: { loginGraceMs: s.loginGraceTime, maxStartups: s.maxStartups, maxStartupsPerSource: s.maxStartupsPerSource, maxAuthTries: s.maxAuthTries },
      proxyProtocolFrom: s.proxyProtocolFrom,
      log: logLine,
    });
    // SSH listens only once both caches are synced, so accepting connections means ready.
    const health = await startHealthServer(s.healthListen, () => gateway.ready, metrics);
    logLine('health endpoints listening', { address: `${s.healthListen.host}:${health.address.port}` });

    try {
      if (!(await apiServerReachable(client, { log: logLine, signal }))) return;
      running.push(workspaces.run(caches.signal), images.run(caches.signal), people.run(caches.signal));
      await Promise.race([Promise.all([workspaces.synced, images.synced, people.synced]), untilAborted(signal)]);
      if (signal.aborted) return;
      const address = await gateway.listen(s.listen.host, s.listen.port);
      logLine('ssh listening', { address: `${address.address}:${address.port}` });
      await untilAborted(signal);
      logLine('shutting down: no new connections, waiting for open sessions', { connections: gateway.openConnections });
      await gateway.shutdown();
    } finally {
      caches.abort();
      await Promise.allSettled(running);
      await health.close();
    }
    logLine('stopped');
  },
};
