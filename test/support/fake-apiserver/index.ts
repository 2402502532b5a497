// An in-process kube-apiserver on loopback for tests and benchmarks. It keeps objects in
// memory and answers with the shapes recorded from a real API server (fixtures/kube):
// CRUD, list/watch with resourceVersions, 410 and bookmarks (events after the write's response),
// field selectors limited as the real ones, namespaces that terminate, server-side apply with
// managedFields and conflicts, LimitRange and ResourceQuota admission, status subresource,
// finalizers, ownerReference garbage collection, token authentication, TokenRequest,
// RBAC with the real 403 messages, (Self)SubjectAccessReview, admission webhooks and
// CRD structural defaults/validation; optionally a real API server's latencies and seats
// (latency.ts: the cluster of issue 23 as a profile). Its parts, each class extending the one
// before: store.ts (objects, watches, controllers), admission-chain.ts, writes.ts, and here the
// HTTP front and the test-facing API. test/support/fake-conformance.test.ts checks it against
// a real kube-apiserver.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KubeClient } from '../../../kube/client.js';
import { staticConnection } from '../../../kube/connection.js';
import type { KubeStatus } from '../../../kube/errors.js';
import { groupOf, RESOURCES, type ResourceType } from '../../../kube/resources.js';
import { fixture } from '../fixtures.js';
import { ApiError, status } from './api-error.js';
import { invalidWatch, pageOf, parseBody, readBody, requestClass, typeKey, type Route, type Writer } from './helpers.js';
import { INSTANT_PROFILE, LatencyModel, TooManyRequests } from './latency.js';
import { clone } from './patch.js';
import { forbiddenMessage, type Attributes, type UserInfo } from './rbac.js';
import { fieldSelectorName, parseLabelSelector } from './selectors.js';
import type { FakeApiServerOptions } from './store.js';
import { API_AUDIENCE, tokenAccepted } from './tokens.js';
import { Writes } from './writes.js';

export { ApiError } from './api-error.js';
export type { UserInfo } from './rbac.js';
export type { FakeApiServerOptions, QuotaControllerMode } from './store.js';
export { CLUSTER_PROFILE, CLUSTER_CPU_PROFILE, INSTANT_PROFILE, type LatencyProfile } from './latency.js';

export interface RequestRecord {
  method: string;
  path: string;
  query: string;
  user: string;
  verb?: string;
  /** performance.now() when the request arrived. */
  at?: number;
}

export type UpgradeHandler = (req: http.IncomingMessage, socket: Socket, head: Buffer, ctx: { user: UserInfo; match: RegExpMatchArray; url: URL }) => void;

interface InjectedFailure {
  method: string;
  path: RegExp;
  status: number;
  body: KubeStatus;
  times: number;
}

export class FakeApiServer extends Writes {
  readonly adminToken = 'fake-admin-token';
  readonly requests: RequestRecord[] = [];
  private server?: http.Server;

  private sockets = new Set<Socket>();

  private upgrades: { pattern: RegExp; handler: UpgradeHandler }[] = [];
  private failures: InjectedFailure[] = [];
  private delays: { method: string; path: RegExp; ms: number }[] = [];

  private podLogs = new Map<string, string>();

  /** Extra watch lag per bearer token (one replica trailing another). */
  private tokenLags = new Map<string, number>();
  /** Tokens accepted lately, until when they are accepted without a look (the API server's token cache). */
  private acceptedUntil = new Map<string, number>();

  /** The latency model every request goes through, and its figures of requests in flight. */
  readonly latency: LatencyModel;

  url = '';

  constructor(opts: FakeApiServerOptions = {}) {
    super(opts);
    this.latency = new LatencyModel(opts.latency ?? INSTANT_PROFILE);
    this.addUser(this.adminToken, { username: 'admin', groups: ['system:masters', 'system:authenticated'] });
    if (opts.seedCluster !== false) this.seedCluster();
  }

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.hub.inRequest(res, () => this.handle(req, res)));
    this.server.on('upgrade', (req, socket, head) => this.handleUpgrade(req, socket as Socket, head));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    this.hub.closeAll();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  addUser(token: string, user: { username: string; groups?: string[]; uid?: string }): void {
    const groups = [...new Set([...(user.groups ?? []), 'system:authenticated'])];
    this.tokens.set(token, { user: { username: user.username, groups, uid: user.uid } });
  }

  /** Ends a token's validity now (as a revoked or expired token). */
  /** As if the token cache's 10 s had passed: every token is looked at again on its next use. */
  expireTokenCache(): void {
    this.acceptedUntil.clear();
  }

  revokeToken(token: string): void {
    this.tokens.delete(token);
    this.acceptedUntil.delete(token);
  }

  connection(token: string = this.adminToken) {
    return staticConnection(this.url, token);
  }

  client(token: string = this.adminToken): KubeClient {
    return new KubeClient(this.connection(token));
  }

  /** The next `times` requests matching method and path answer `status` with `body` (a Status). */
  failNext(method: string, path: RegExp, code: number, body?: Partial<KubeStatus>, times = 1): void {
    const reason = body?.reason ?? (code === 409 ? 'Conflict' : code >= 500 ? 'InternalError' : 'BadRequest');
    this.failures.push({ method: method.toUpperCase(), path, status: code, times, body: { ...status(code, reason, body?.message ?? `injected failure ${code}`), ...body } });
  }

  /**
   * Requests matching method and path wait `ms` before they are served, from now on: a slow
   * write, as on a loaded API server, so that requests sent together may be served out of order.
   */
  slowDown(method: string, path: RegExp, ms: number): void {
    this.delays.push({ method: method.toUpperCase(), path, ms });
  }

  /** Handles websocket upgrades on matching paths (pods/exec, pods/portforward) after authentication and authorization. */
  onUpgrade(pattern: RegExp, handler: UpgradeHandler): void {
    this.upgrades.push({ pattern, handler });
  }

  setPodLog(namespace: string, pod: string, text: string): void {
    this.podLogs.set(`${namespace}/${pod}`, text);
  }

  /** Makes every resourceVersion up to now too old: watches from them answer 410 Gone. */
  compact(): void {
    this.hub.compact(this.rv);
  }

  /** Ends every open watch stream, as an API server restart or a load balancer would. */
  dropWatches(): void {
    this.hub.closeAll();
  }

  /**
   * Milliseconds between a write's response and its watch events, from the next write on; with
   * a token, only for that client's watches (on top of the lag every watcher has).
   */
  setWatchLag(ms: number, token?: string): void {
    if (token === undefined) this.hub.setLag(ms);
    else this.tokenLags.set(token, ms);
  }

  /**
   * The user a bearer token names. As kube-apiserver's token cache (--token-success-cache-ttl
   * style, 10 s), a token accepted once stays accepted for tokenCacheTtlMs, though its
   * ServiceAccount or bound object goes meanwhile; a token refused is looked at again next time.
   */
  private authenticate(req: http.IncomingMessage): UserInfo | undefined {
    const header = req.headers.authorization ?? '';
    const m = /^Bearer (.+)$/.exec(header);
    if (!m) return undefined;
    const token = m[1]!;
    const entry = this.tokens.get(token);
    if (!entry) return undefined;
    const now = Date.now();
    if ((this.acceptedUntil.get(token) ?? 0) > now) return entry.user;
    const lookup = (t: ResourceType, namespace: string, name: string) => this.find(t, namespace, name);
    if (!tokenAccepted(entry, lookup, this.opts.apiAudiences ?? [API_AUDIENCE], now)) return undefined;
    const ttl = this.opts.tokenCacheTtlMs ?? 10_000;
    if (ttl > 0) this.acceptedUntil.set(token, Math.min(now + ttl, entry.expires ?? Infinity));
    return entry.user;
  }

  private parse(path: string): Route | undefined {
    const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))(\/.*)?$/.exec(path);
    if (!m) return undefined;
    const apiVersion = m[1] ?? `${m[2]}/${m[3]}`;
    const segs = (m[4] ?? '').split('/').filter(Boolean).map(decodeURIComponent);
    let namespace: string | undefined;
    if (segs[0] === 'namespaces' && segs.length >= 3) {
      namespace = segs[1];
      segs.splice(0, 2);
    }
    const [plural, name, subresource] = segs;
    if (!plural) return undefined;
    const t = this.types.get(`${plural}.${groupOf(apiVersion)}`);
    if (!t || t.apiVersion !== apiVersion) return undefined;
    return { type: t, namespace, name, subresource };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = (req.method ?? 'GET').toUpperCase();
    const record: RequestRecord = { method, path: url.pathname, query: url.search, user: '', at: performance.now() };
    this.requests.push(record);
    try {
      const user = this.authenticate(req);
      if (!user) throw new ApiError(401, fixture('unauthorized-bad-token.json').body);
      record.user = user.username;
      const failure = this.failures.find((f) => f.method === method && f.path.test(url.pathname + url.search));
      if (failure) {
        if (--failure.times <= 0) this.failures.splice(this.failures.indexOf(failure), 1);
        throw new ApiError(failure.status, clone(failure.body));
      }
      const delay = this.delays.find((d) => d.method === method && d.path.test(url.pathname + url.search));
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay.ms));
      const route = this.parse(url.pathname);
      if (!route) throw new ApiError(404, status(404, 'NotFound', 'the server could not find the requested resource', {}));
      const contentType = req.headers['content-type'] ?? '';
      const answer = async () => {
        const body = await readBody(req);
        const manager = url.searchParams.get('fieldManager') ?? (req.headers['user-agent'] ?? 'unknown').split('/')[0]!.slice(0, 128);
        const result = await this.dispatch(method, route, url, body, contentType, { user, manager, token: /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] }, record, res);
        if (result === undefined) return; // a watch or log stream answered already
        res.writeHead(result.code, { 'Content-Type': result.contentType ?? 'application/json' });
        res.end(typeof result.body === 'string' ? result.body : JSON.stringify(result.body));
      };
      const modelled = requestClass(method, route, url.searchParams, contentType);
      await (modelled ? this.latency.serve(modelled, answer) : answer());
    } catch (err) {
      if (err instanceof TooManyRequests && !res.headersSent) {
        // kube-apiserver's max-in-flight and priority-and-fairness filters answer so.
        res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '1' });
        res.end(JSON.stringify(status(429, 'TooManyRequests', err.message, { retryAfterSeconds: 1 })));
        return;
      }
      const e = err instanceof ApiError ? err : new ApiError(500, status(500, 'InternalError', `Internal error occurred: ${(err as Error).message}`));
      if (!res.headersSent) {
        res.writeHead(e.code, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(e.body));
      } else res.end();
    }
  }

  private handleUpgrade(req: http.IncomingMessage, socket: Socket, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://fake');
    const reject = (code: number, body: KubeStatus) => {
      socket.end(`HTTP/1.1 ${code} ${http.STATUS_CODES[code]}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${JSON.stringify(body)}\n`);
    };
    this.requests.push({ method: 'GET', path: url.pathname, query: url.search, user: '', at: performance.now() });
    const user = this.authenticate(req);
    if (!user) return reject(401, fixture('unauthorized-bad-token.json').body);
    this.requests[this.requests.length - 1]!.user = user.username;
    const route = this.parse(url.pathname);
    if (!route || !route.name || !route.subresource) return reject(404, status(404, 'NotFound', 'the server could not find the requested resource'));
    const a: Attributes = { verb: 'create', group: groupOf(route.type.apiVersion), resource: route.type.plural, subresource: route.subresource, namespace: route.namespace, name: route.name };
    if (!this.allowed(user, a) && !this.allowed(user, { ...a, verb: 'get' })) return reject(403, status(403, 'Forbidden', forbiddenMessage(user, a), { name: route.name, kind: route.type.plural }));
    if (!this.find(route.type, route.namespace, route.name)) return reject(404, status(404, 'NotFound', `${route.type.plural} "${route.name}" not found`, { name: route.name, kind: route.type.plural }));
    for (const u of this.upgrades) {
      const match = url.pathname.match(u.pattern);
      if (match) return u.handler(req, socket, head, { user, match, url });
    }
    reject(400, status(400, 'BadRequest', `no handler for ${route.subresource}`));
  }

  private async dispatch(method: string, route: Route, url: URL, raw: string, contentType: string, writer: Writer, record: RequestRecord, res: http.ServerResponse): Promise<{ code: number; body: unknown; contentType?: string } | undefined> {
    const t = route.type;
    const { user } = writer;
    const group = groupOf(t.apiVersion);
    const q = url.searchParams;
    const watch = q.get('watch') === 'true' || q.get('watch') === '1';
    let verb: string;
    if (method === 'GET') verb = route.name ? 'get' : watch ? 'watch' : 'list';
    else if (method === 'POST') verb = 'create';
    else if (method === 'PUT') verb = 'update';
    else if (method === 'PATCH') verb = 'patch';
    else if (method === 'DELETE') verb = route.name ? 'delete' : 'deletecollection';
    else throw new ApiError(405, status(405, 'MethodNotAllowed', `method ${method} not allowed`));
    record.verb = verb;

    if (t.plural === 'selfsubjectaccessreviews' || t.plural === 'subjectaccessreviews') return this.accessReview(t, raw, user, method);

    const name = route.name ?? (verb === 'list' || verb === 'watch' ? fieldSelectorName(q.get('fieldSelector') ?? undefined) : undefined);
    const attrs: Attributes = { verb, group, resource: t.plural, subresource: route.subresource, namespace: t.namespaced ? route.namespace : undefined, name };
    if (t.plural === 'namespaces' && route.name) attrs.namespace = undefined;
    this.authorize(user, attrs);

    if (route.subresource === 'token' && t.plural === 'serviceaccounts' && method === 'POST') return this.tokenRequest(route, raw);
    if (route.subresource === 'log' && t.plural === 'pods' && method === 'GET') return this.podLog(route, q);
    if (route.subresource && route.subresource !== 'status') throw new ApiError(404, status(404, 'NotFound', 'the server could not find the requested resource'));

    const body = raw ? parseBody(raw, contentType) : undefined;
    switch (verb) {
      case 'get':
        return { code: 200, body: this.mustFind(t, route.namespace, route.name!) };
      case 'list':
        return { code: 200, body: pageOf(this.list(t, route.namespace, q), q) };
      case 'watch':
        this.watch(t, route.namespace, q, res, writer.token);
        return undefined;
      case 'create':
        return { code: 201, body: await this.create(t, route.namespace, body, writer, q.get('dryRun') === 'All') };
      case 'update':
        return { code: 200, body: await this.update(t, route, body, writer) };
      case 'patch':
        return this.patch(t, route, body, contentType, writer, { fieldManager: q.get('fieldManager') ?? undefined, force: q.get('force') === 'true' });
      case 'delete':
        return this.delete(t, route.namespace, route.name!, raw);
      default:
        throw new ApiError(405, status(405, 'MethodNotAllowed', `${verb} is not supported by the fake`));
    }
  }

  private watch(t: ResourceType, namespace: string | undefined, q: URLSearchParams, res: http.ServerResponse, token?: string): void {
    const fromRv = Number(q.get('resourceVersion') ?? '0');
    const bookmarks = q.get('allowWatchBookmarks') === 'true';
    const sendInitialEvents = q.get('sendInitialEvents') === 'true';
    if (sendInitialEvents && q.get('resourceVersionMatch') !== 'NotOlderThan') throw invalidWatch('resourceVersionMatch', 'FieldValueForbidden', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    if (sendInitialEvents && !bookmarks) throw invalidWatch('allowWatchBookmarks', 'FieldValueRequired', 'sendInitialEvents requires setting allowWatchBookmarks to true');
    const initial = fromRv === 0 || sendInitialEvents ? this.list(t, namespace, q).items : undefined;
    const watcher = { typeKey: typeKey(t), kind: t.kind, apiVersion: t.apiVersion, namespace, labels: parseLabelSelector(q.get('labelSelector') ?? undefined), fields: this.fieldFilter(t, q), res, lagMs: () => (token === undefined ? 0 : (this.tokenLags.get(token) ?? 0)) };
    this.hub.open(watcher, fromRv, initial, { bookmarks, initialEventsEnd: sendInitialEvents, currentRv: this.rv });
  }

  private podLog(route: Route, q: URLSearchParams) {
    this.mustFind(RESOURCES.pod, route.namespace, route.name!);
    const text = this.podLogs.get(`${route.namespace}/${route.name}`) ?? '';
    const tail = q.get('tailLines');
    let lines = text;
    if (tail !== null) {
      const all = text.split('\n');
      if (all[all.length - 1] === '') all.pop();
      lines = all.slice(-Number(tail)).join('\n') + (all.length ? '\n' : '');
    }
    return { code: 200, body: lines, contentType: 'text/plain' };
  }

  private accessReview(t: ResourceType, raw: string, user: UserInfo, method: string) {
    if (method !== 'POST') throw new ApiError(405, status(405, 'MethodNotAllowed', `${method} not allowed on ${t.plural}`));
    const review = raw ? JSON.parse(raw) : {};
    const ra = review?.spec?.resourceAttributes ?? {};
    let subject = user;
    if (t.plural === 'subjectaccessreviews') {
      this.authorize(user, { verb: 'create', group: 'authorization.k8s.io', resource: 'subjectaccessreviews' });
      subject = { username: review?.spec?.user ?? '', groups: review?.spec?.groups ?? [], uid: review?.spec?.uid };
    }
    const allowed = this.allowed(subject, { verb: ra.verb ?? '', group: ra.group ?? '', resource: ra.resource ?? '', subresource: ra.subresource || undefined, namespace: ra.namespace || undefined, name: ra.name || undefined });
    const answer = { kind: t.kind, apiVersion: t.apiVersion, metadata: { creationTimestamp: null }, spec: review?.spec ?? {}, status: allowed ? { allowed: true, reason: 'RBAC: allowed' } : { allowed: false } };
    return { code: 201, body: answer };
  }
}
