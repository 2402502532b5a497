// `den server`: the REST API and the web UI on `--listen`, with sessions, tokens
// and local users kept as Secrets in `--namespace` (docs/contracts.md, docs/rest-auth.md).
import { once } from 'node:events';
import { http } from '../process/node-http.js';
import type { AddressInfo } from 'node:net';
import { closeServer } from '../process/http-close.js';
import { roleLog, type Role } from '../process/role.js';
import { SERVER_SUMMARY } from './summary.js';
import { kubeconfigSetting, namespaceSetting, tokenTtlSetting } from '../kube/settings.js';
import { parsers, SettingsError, type Setting } from '../process/settings.js';
import { KubeClient } from '../kube/client.js';
import { apiServerReachable } from '../kube/availability.js';
import { loadConnection } from '../kube/connection.js';
import { DEFAULT_GPU_RESOURCE } from '../kube/group.js';
import { sleep, untilAborted } from '../process/timers.js';
import { healthListenSetting, startHealthServer } from '../process/health.js';
import { Metrics } from '../process/metrics.js';
import { MintingMetrics } from '../kube/minting-metrics.js';
import { HttpMetrics } from './metrics.js';
import { re2 } from '../process/re2.js';
import { createApp, previewProxyOf } from './app.js';
import { routeUpgrades } from './upgrades.js';
import { TrustedProxies } from './http/client-address.js';
import { parseTrustedProxies } from './http/client-address.js';
import { loadProviders, ProviderConfigError, type ProviderConfig } from './auth/providers/config.js';
import { IdentityProviders } from './auth/providers/registry.js';
import { AssetStore } from './pages/assets.js';
import { CliPackage } from './cli/bundle.js';
import { createAuthServices } from './auth/services.js';
import { TerminalServer } from './terminal/upgrade.js';
import { ActivityRecorder } from '../shell/activity.js';
import { DenEventRecorder, DEN_REPORTING_COMPONENTS } from '../kube/den-events.js';
import { FIELD_MANAGERS } from '../kube/group.js';
import { isDns1123Subdomain } from '../kube/names.js';
import { appsDomainProblem } from '../contract/apps-domain.js';

// An ingress or load balancer keeps its connections to den server open between requests (AWS
// ALB 60 s, ingress-nginx's upstream keep-alive 60 s) and does not expect them closed under it:
// with Node's 5 s, a request it sends on a connection den server is closing gets a 502 (ALB
// does not retry). So den server keeps an idle connection longer than they do.
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

const SESSION_SWEEP_INTERVAL_MS = 10 * 60_000;
/** Requests still running at shutdown get this long to finish. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * `--base-url`: where browsers reach den server, an origin only. Pages, cookies, redirects and
 * the terminal's Origin check all live at the root of it; a path (`https://host/den`) would
 * send people to addresses that do not exist, so it is refused rather than half-honoured.
 */
export function baseUrl(raw: string): string {
  const url = parsers.url(raw);
  const { pathname, search, hash, username, password } = new URL(url);
  if (pathname !== '/' || search || hash || username || password) {
    throw new Error(`must be an origin such as https://den.example.com, without a path, query or credentials (den server serves at the root), got '${raw}'`);
  }
  return url;
}

const setting = <T>(s: Setting<T>) => s;

export const serverSettings = {
  kubeconfig: kubeconfigSetting,
  namespace: namespaceSetting('sessions, tokens, local users'),
  listen: setting({ flag: 'listen', env: 'DEN_LISTEN', describe: 'HTTP listen address', parse: parsers.address, default: parsers.address(':8080') }),
  healthListen: healthListenSetting,
  baseUrl: setting({ flag: 'base-url', env: 'DEN_BASE_URL', describe: 'public base URL; https makes cookies Secure', parse: baseUrl }),
  localAuth: setting({ flag: 'local-auth', env: 'DEN_LOCAL_AUTH', describe: 'allow local username/password sign-in and local user management', parse: parsers.boolean, default: true, boolean: true }),
  gatewayPort: setting({ flag: 'gateway-port', env: 'DEN_GATEWAY_PORT', describe: 'port people reach den gateway on (the ssh command, VS Code link and ~/.ssh/config block the pages offer)', parse: parsers.integer(1, 65535), default: 22 }),
  gpuResource: setting({ flag: 'gpu-resource', env: 'DEN_GPU_RESOURCE', describe: 'extended resource a workspace\'s `gpu` is requested as', parse: parsers.nonEmpty, default: DEFAULT_GPU_RESOURCE }),
  trustedProxies: setting({ flag: 'trusted-proxies', env: 'DEN_TRUSTED_PROXIES', describe: 'comma-separated addresses or CIDR ranges of reverse proxies whose X-Forwarded-For names the client (login throttling); empty: none, the TCP peer is the client', parse: parseTrustedProxies, default: [] as string[], show: '' }),
  identityProvidersFile: setting({
    flag: 'identity-providers-file',
    env: 'DEN_IDENTITY_PROVIDERS_FILE',
    describe: 'YAML file listing the identity providers people sign in with (README "Signing in with an identity provider"); DEN_OIDC_<NAME>_* and DEN_GITHUB_<NAME>_* variables add more',
    parse: parsers.nonEmpty,
    default: '',
  }),
  appsDomain: setting({
    flag: 'apps-domain',
    env: 'DEN_APPS_DOMAIN',
    describe: 'domain of host-based app previews, <port>--<workspace>--<person>.<domain> (docs/preview.md); empty: path-based previews only',
    parse: (raw) => {
      const domain = raw.toLowerCase();
      if (!isDns1123Subdomain(domain)) throw new Error(`must be a DNS domain such as apps.den.example, got '${raw}'`);
      return domain;
    },
    default: '',
  }),
  appsAllowPublicPorts: setting({ flag: 'apps-allow-public-ports', env: 'DEN_APPS_ALLOW_PUBLIC_PORTS', describe: 'people may share a port of their workspace publicly, no sign-in (host-based previews only; needs --apps-domain)', parse: parsers.boolean, default: false, boolean: true }),
  tokenTtl: tokenTtlSetting,
};

/** The identity providers of the file and the variables; every mistake is one line of a SettingsError (exit 2). */
export function readIdentityProviders(file: string, env: Record<string, string | undefined>): ProviderConfig[] {
  try {
    return loadProviders(file, env);
  } catch (err) {
    if (err instanceof ProviderConfigError) throw new SettingsError(err.problems.join('\n'));
    throw err;
  }
}

export const serverRole: Role<typeof serverSettings> = {
  summary: SERVER_SUMMARY,
  settings: serverSettings,
  async run(settings, signal) {
    const say = roleLog('server');
    re2(); // fails here, in one line, rather than on the first request that needs it
    const providerConfigs = readIdentityProviders(settings.identityProvidersFile, process.env);
    const appsProblem = settings.appsDomain ? appsDomainProblem(settings.appsDomain, settings.baseUrl, '--base-url') : undefined;
    if (appsProblem) throw new SettingsError(`--apps-domain (DEN_APPS_DOMAIN): ${appsProblem}`);
    if (settings.appsAllowPublicPorts && !settings.appsDomain) throw new SettingsError('--apps-allow-public-ports (DEN_APPS_ALLOW_PUBLIC_PORTS) needs --apps-domain: only host-based previews can be shared');
    const client = new KubeClient(loadConnection(settings.kubeconfig || undefined));
    const metrics = new Metrics();
    const auth = createAuthServices(client, {
      mintingMetrics: new MintingMetrics(metrics.registry),
      namespace: settings.namespace,
      tokenTtlSeconds: settings.tokenTtl / 1000,
      onError: (err) => say('cache error, retrying', { error: String((err as Error)?.message ?? err) }),
    });
    let synced = false;
    let listening = false;
    void auth.synced.then(() => {
      synced = true;
      say('caches synced');
    });

    // Scripts and styles are bundled once, before anyone can ask for a page.
    const assets = new AssetStore();
    await assets.load();
    // And the den laptops install from /cli/install.sh, so the first download waits for nothing.
    const cli = new CliPackage();
    await cli.load();
    // One recorder for REST, the pages and the terminal: their bursts aggregate together.
    const events = new DenEventRecorder({ reportingComponent: DEN_REPORTING_COMPONENTS.server });
    const config = { baseUrl: settings.baseUrl, localAuth: settings.localAuth, trustedProxies: settings.trustedProxies, gatewayPort: settings.gatewayPort, appsDomain: settings.appsDomain, allowPublicPorts: settings.appsAllowPublicPorts };
    const ready = () => synced && listening;
    const previews = previewProxyOf({ config, auth, serverClient: client, log: say, ready, assets });
    const app = createApp({
      config,
      serverClient: client,
      auth,
      resources: { gpuResource: settings.gpuResource, log: say, events: events.record },
      providers: new IdentityProviders(providerConfigs),
      log: say,
      ready,
      assets,
      cli,
      httpMetrics: new HttpMetrics(metrics.registry),
      previews,
    });
    // /metrics stays off the listener people reach; the probes may use either.
    const health = await startHealthServer(settings.healthListen, () => synced && listening, metrics);
    const server = http.createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, headersTimeout: KEEP_ALIVE_TIMEOUT_MS + 1_000 }, app.callback());
    const terminals = new TerminalServer({
      baseUrl: settings.baseUrl,
      sessions: auth.sessions,
      directory: auth.directory,
      minter: auth.minter,
      serverClient: client,
      log: say,
      ready: () => synced && listening,
      events: events.record,
      trustedProxies: settings.trustedProxies,
      activity: new ActivityRecorder({
        client,
        fieldManager: FIELD_MANAGERS.server,
        onError: (err, where) => say('cannot record activity', { ...where, error: err.message }),
      }),
    });
    routeUpgrades(server, { terminals, previews, trustedProxies: new TrustedProxies(settings.trustedProxies ?? []) });
    server.on('clientError', (err, socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      else socket.destroy(err);
    });
    server.listen(settings.listen.port, settings.listen.host);
    await once(server, 'listening');
    server.on('error', (err) => say('server error', { error: err.message }));
    listening = true;
    const address = server.address() as AddressInfo;
    say('listening', {
      address: address.address,
      port: address.port,
      localAuth: settings.localAuth,
      baseUrl: settings.baseUrl,
      appsDomain: settings.appsDomain || undefined,
      identityProviders: providerConfigs.map((p) => p.name),
    });

    const sweeper = setInterval(() => {
      auth.sessions.sweep(Date.now()).then(
        (removed) => removed && say('expired sessions removed', { removed }),
        (err: Error) => say('session sweep failed', { error: err.message }),
      );
      auth.challenges.sweep(Date.now()).then(
        (removed) => removed && say('abandoned login challenges removed', { removed }),
        (err: Error) => say('login challenge sweep failed', { error: err.message }),
      );
      auth.appPasses.sweep(Date.now()).then(
        (removed) => removed && say('expired app tickets and cookies removed', { removed }),
        (err: Error) => say('app ticket sweep failed', { error: err.message }),
      );
    }, SESSION_SWEEP_INTERVAL_MS);
    sweeper.unref();

    // Listening (so /healthz answers) but not ready until the API server answers and the caches load.
    const reachable = await apiServerReachable(client, { log: say, signal });
    const caches = reachable ? auth.run(signal) : Promise.resolve();
    await untilAborted(signal);
    say('shutting down');
    listening = false;
    clearInterval(sweeper);
    const closed = closeServer(server);
    const graceOver = new AbortController();
    // Upgraded sockets are no longer the HTTP server's: the terminals are told themselves.
    previews.close();
    await Promise.race([Promise.all([closed, terminals.close()]), sleep(SHUTDOWN_GRACE_MS, graceOver.signal)]);
    graceOver.abort();
    server.closeAllConnections();
    await closed;
    await health.close();
    await caches;
    say('stopped');
  },
};
