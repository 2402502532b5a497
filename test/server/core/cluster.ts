// A Den cluster for the REST core's tests: the fake API server with the CRDs, the install
// chart's RBAC (so the server runs with exactly its least-privilege rights), UserSpaces
// provisioned by the real UserSpace hook, and `den server`'s app on a loopback port.
import { DenEventRecorder, DEN_REPORTING_COMPONENTS } from '../../../kube/den-events.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { denCrds } from '../../../contract/index.js';
import { renderInstall } from '../../../infra/install/synth.js';
import { DEFAULT_SETTINGS } from '../../../infra/install/settings.js';
import type { KubeClient } from '../../../kube/client.js';
import { DEFAULT_GPU_RESOURCE, FIELD_MANAGERS, SYSTEM_NAMESPACE } from '../../../kube/group.js';
import { createApp } from '../../../server/app.js';
import { renderLocalUserSecret } from '../../../server/auth/local-users.js';
import { hashPassword } from '../../../server/auth/passwords.js';
import type { IdentityProviders } from '../../../server/auth/providers/registry.js';
import { createAuthServices, type AuthServiceOptions, type AuthServices } from '../../../server/auth/services.js';
import { FakeApiServer, type FakeApiServerOptions } from '../../support/fake-apiserver.js';
import { provision } from '../../support/userspaces.js';

export { provision };
import { expectDocumented } from '../api/openapi-check.js';
import { fixture } from '../../support/fixtures.js';
import { SHARED_ASSETS } from '../../support/web.js';
import { TerminalServer } from '../../../server/terminal/upgrade.js';
import { ActivityRecorder } from '../../../shell/activity.js';
import { PreviewProxy } from '../../../server/preview/proxy.js';
import { PREVIEW_LIMITS } from '../../../server/preview/types.js';
import { routeUpgrades } from '../../../server/upgrades.js';
import { TrustedProxies } from '../../../server/http/client-address.js';

export const SERVER_TOKEN = 'den-server-token';
export const SERVER_USER = `system:serviceaccount:${SYSTEM_NAMESPACE}:den-server`;
/** Cheap scrypt for seeded users; the hash carries its parameters, so verification follows. */
const FAST_SCRYPT = { N: 1024, r: 8, p: 1 };

const RBAC_KINDS = new Set<unknown>(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

export async function startCluster(opts: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const api = new FakeApiServer(opts);
  await api.start();
  api.installCrds(denCrds().map((crd) => ({ ...crd })));
  api.seed(...renderInstall(DEFAULT_SETTINGS).filter((o) => RBAC_KINDS.has(o.kind)));
  api.addUser(SERVER_TOKEN, { username: SERVER_USER, groups: ['system:serviceaccounts', `system:serviceaccounts:${SYSTEM_NAMESPACE}`] });
  return api;
}

type PersonOptions = { admin?: boolean; disabled?: boolean; password?: string };

/** A person as `den users add` and the manager leave them: UserSpace `<name>` of `<name>@example.com` with its children, and local user `<name>`. */
export async function addPerson(api: FakeApiServer, name: string, opts: PersonOptions = {}): Promise<void> {
  provision(api, name, `${name}@example.com`, opts);
  await seedLocalUser(api, name, `${name}@example.com`, opts.password ?? `${name}-password`);
}

/** Stores a local user directly, as `den users add` would. */
export async function seedLocalUser(api: FakeApiServer, username: string, owner: string, password: string): Promise<void> {
  const passwordHash = await hashPassword(password, FAST_SCRYPT);
  api.seed(renderLocalUserSecret(SYSTEM_NAMESPACE, { username, owner, passwordHash }, Date.now()));
}

export interface DenOptions extends Partial<AuthServiceOptions> {
  localAuth?: boolean;
  baseUrl?: string;
  now?: () => number;
  bodyLimitBytes?: number;
  catalogConcurrency?: number;
  /** `--trusted-proxies`, parsed; none by default. */
  trustedProxies?: string[];
  /** The server's own client; by default the den-server identity straight to the fake. */
  serverClient?: KubeClient;
  /** The process log (errors of requests, things left behind); dropped by default. */
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  /** `/readyz` and the API answer 503 while this is false; always ready by default. */
  ready?: () => boolean;
  /** Identity providers offered on the sign-in page and at /login/{provider}; none by default. */
  providers?: IdentityProviders;
  /** The loopback port to listen on (when the base URL must be known first); any free one by default. */
  port?: number;
  /** Limits of the port preview proxy; its defaults otherwise. */
  previewLimits?: Partial<typeof PREVIEW_LIMITS>;
  /** `--apps-domain`: host-based previews under it; none by default. */
  appsDomain?: string;
  /** `--apps-allow-public-ports`: ports may be shared publicly; off by default. */
  allowPublicPorts?: boolean;
  /** The version the server says it is (/api/v1/version); package.json's by default. */
  version?: string;
}

export interface Den {
  url: string;
  api: string;
  auth: AuthServices;
  /** The browser terminal's websocket upgrades (GET /w/{name}/terminal/ws). */
  terminals: TerminalServer;
  /** The port preview proxy (`/w/{name}/ports/{port}/…`, HTTP and websockets). */
  previews: PreviewProxy;
  close(): Promise<void>;
}

/** `den server`'s app with its own caches, on a loopback port, acting as the den-server ServiceAccount. */
export async function startDen(api: FakeApiServer, opts: DenOptions = {}): Promise<Den> {
  const serverClient = opts.serverClient ?? api.client(SERVER_TOKEN);
  const auth = createAuthServices(serverClient, { namespace: SYSTEM_NAMESPACE, tokenTtlSeconds: 600, ...opts });
  const stop = new AbortController();
  const caches = auth.run(stop.signal);
  await auth.synced;
  const events = new DenEventRecorder({ reportingComponent: DEN_REPORTING_COMPONENTS.server, now: opts.now ? () => new Date(opts.now!()) : undefined });
  const config = { baseUrl: opts.baseUrl ?? 'http://den.test', localAuth: opts.localAuth ?? true, bodyLimitBytes: opts.bodyLimitBytes, trustedProxies: opts.trustedProxies, appsDomain: opts.appsDomain, allowPublicPorts: opts.allowPublicPorts };
  const previews = new PreviewProxy({ ...auth, serverClient, baseUrl: config.baseUrl, appsDomain: opts.appsDomain, allowPublicPorts: opts.allowPublicPorts, assets: SHARED_ASSETS, log: opts.log ?? (() => undefined), ready: opts.ready ?? (() => true), now: opts.now ?? Date.now, limits: opts.previewLimits });
  const app = createApp({
    previews,
    config,
    serverClient,
    auth,
    resources: { gpuResource: DEFAULT_GPU_RESOURCE, log: opts.log ?? (() => undefined), catalogConcurrency: opts.catalogConcurrency, events: events.record },
    log: opts.log ?? (() => undefined),
    ready: opts.ready ?? (() => true),
    now: opts.now,
    providers: opts.providers,
    // One esbuild run for every test of the process.
    assets: SHARED_ASSETS,
    version: opts.version,
  });
  const server = http.createServer(app.callback());
  const terminals = new TerminalServer({
    baseUrl: opts.baseUrl ?? 'http://den.test',
    sessions: auth.sessions,
    directory: auth.directory,
    minter: auth.minter,
    serverClient,
    log: opts.log ?? (() => undefined),
    ready: opts.ready ?? (() => true),
    events: events.record,
    trustedProxies: opts.trustedProxies,
    activity: new ActivityRecorder({ client: serverClient, fieldManager: FIELD_MANAGERS.server, onError: (err) => (opts.log ?? (() => undefined))('cannot record activity', { error: err.message }) }),
  });
  routeUpgrades(server, { terminals, previews, trustedProxies: new TrustedProxies(opts.trustedProxies ?? []) });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    api: `${url}/api/v1`,
    auth,
    terminals,
    previews,
    async close() {
      previews.close();
      await terminals.close();
      stop.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await caches;
    },
  };
}

/**
 * The usual world of a REST test: a cluster with `people` added (in that order), then `before`
 * (more UserSpaces, say), then Den on it.
 */
export async function startWith(people: Record<string, PersonOptions>, before?: (api: FakeApiServer) => void): Promise<{ api: FakeApiServer; den: Den }> {
  const api = await startCluster();
  for (const [name, opts] of Object.entries(people)) await addPerson(api, name, opts);
  before?.(api);
  return { api, den: await startDen(api) };
}

/** `startWith`, and then each of `people` signed in with their password. */
export async function startSignedIn<Name extends string>(
  people: Record<Name, PersonOptions>,
  before?: (api: FakeApiServer) => void,
): Promise<{ api: FakeApiServer; den: Den; signed: Record<Name, Signed> }> {
  const { api, den } = await startWith(people, before);
  const signed = {} as Record<Name, Signed>;
  for (const [name, opts] of Object.entries<PersonOptions>(people)) signed[name as Name] = await login(den, name, opts.password ?? `${name}-password`);
  return { api, den, signed };
}

/** Closes Den, then the cluster under it. */
export async function stopAll(den: Den, api: FakeApiServer): Promise<void> {
  await den.close();
  await api.close();
}

/** Waits until `check` holds (a watch event reaching a cache, say). */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits until den server's share cache holds `count` share RoleBindings naming `guest`: its watch follows a write by a moment. */
export function untilSharesCached(den: Den, guest: string, count: number): Promise<void> {
  return until(() => den.auth.sharesNaming(guest).length === count, `${count} share RoleBinding(s) naming ${guest} in den server's cache`);
}

export interface Signed {
  cookie: string;
  csrf: string;
}

/** Signs in with a password and returns the cookie pair and the CSRF token. */
export async function login(den: Den, username: string, password: string): Promise<Signed> {
  const res = await fetch(`${den.api}/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username, password }) });
  if (res.status !== 204) throw new Error(`login as ${username}: ${res.status} ${await res.text()}`);
  const setCookie = res.headers.getSetCookie()[0] ?? '';
  return { cookie: setCookie.split(';')[0]!, csrf: res.headers.get('x-csrf-token') ?? '' };
}

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/**
 * One JSON call; `as` is a cookie session (with its CSRF token unless `csrf: false`) or a bearer
 * token. Every answer must be one the OpenAPI description documents for that operation.
 */
export async function call(den: Den, method: string, path: string, opts: { as?: Signed | string; body?: unknown; csrf?: string | false; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (typeof opts.as === 'string') headers.Authorization = `Bearer ${opts.as}`;
  else if (opts.as) {
    headers.Cookie = opts.as.cookie;
    if (opts.csrf !== false) headers['X-CSRF-Token'] = opts.csrf ?? opts.as.csrf;
  }
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${den.api}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  const answer = { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  expectDocumented(method, path, answer);
  return answer;
}
