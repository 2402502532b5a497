// An in-process kube-apiserver on loopback for tests and benchmarks. It keeps objects in
// memory and answers with the shapes recorded from a real API server (fixtures/kube):
// CRUD, list/watch with resourceVersions, 410 and bookmarks (events after the write's response),
// field selectors limited as the real ones, namespaces that terminate, server-side apply with
// managedFields and conflicts, LimitRange and ResourceQuota admission, status subresource,
// finalizers, ownerReference garbage collection, token authentication, TokenRequest,
// RBAC with the real 403 messages, (Self)SubjectAccessReview, admission webhooks and
// CRD structural defaults/validation; optionally a real API server's latencies and seats
// (latency.ts: the cluster of issue 23 as a profile).
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import YAML from 'yaml';
import { KubeClient, type KubeObject } from '../../../kube/client.js';
import { staticConnection } from '../../../kube/connection.js';
import type { KubeStatus } from '../../../kube/errors.js';
import { groupOf, RESOURCES, type ResourceType } from '../../../kube/resources.js';
import { fixture } from '../fixtures.js';
import { callWebhooks, type AdmissionOutcome } from './admission.js';
import { authorize, clusterRoleRules, escalationMessage, forbiddenMessage, ruleNotHeld, type Attributes, type PolicyRule, type UserInfo } from './rbac.js';
import { FieldSelectorError, fieldSelectorName, parseFieldSelector, parseLabelSelector } from './selectors.js';
import { dns1035LabelProblems, metadataProblems } from '../../../kube/names.js';
import { clone, jsonPatch, JsonPatchError, mergePatch } from './patch.js';
import { strategicMergePatch, StrategicMergeError } from './strategic-merge.js';
import { apply, BUILT_IN_LIST_KEYS, conflictMessage, fieldSet, printManager, printPath, recordUpdate, toFieldsV1, type ListKeys } from './managed-fields.js';
import { CrdSchemas } from './schema.js';
import { ApiError, status } from './api-error.js';
import { WatchHub, type WatchEntry } from './watch.js';
import { AdmissionRefusal, applyLimitDefaults, checkLimitRanges, checkQuotas, defaultPodRequests, quotaStatus, quotaTracks, type Quota } from './quota.js';
import { API_AUDIENCE, bindingOf, tokenAccepted, type TokenEntry } from './tokens.js';
import { INSTANT_PROFILE, LatencyModel, TooManyRequests, type LatencyProfile, type RequestClass } from './latency.js';

export { ApiError } from './api-error.js';

export type { UserInfo } from './rbac.js';
export { CLUSTER_PROFILE, CLUSTER_CPU_PROFILE, INSTANT_PROFILE, type LatencyProfile } from './latency.js';

interface Route {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

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

/** Who writes: the authenticated user and the field manager (fieldManager, else the User-Agent's product). */
interface Writer {
  user: UserInfo;
  manager: string;
  /** The bearer token the request came with (per-client watch lag). */
  token?: string;
}

/** What write() answers when the object changed while admission ran: the caller starts over on the new version. */
const STALE = Symbol('stale');

interface InjectedFailure {
  method: string;
  path: RegExp;
  status: number;
  body: KubeStatus;
  times: number;
}

/** Resources with a status subresource: writes to the main resource leave status alone. */
const STATUS_SUBRESOURCE = new Set(['workspaces', 'workspaceimages', 'userspaces', 'imageregistries', 'statefulsets', 'pods', 'namespaces', 'persistentvolumeclaims', 'resourcequotas']);
/** Resources whose generation follows spec changes. */
const GENERATION_TRACKED = new Set(['workspaces', 'workspaceimages', 'userspaces', 'imageregistries', 'statefulsets', 'networkpolicies', 'customresourcedefinitions']);

const EXTRA_TYPES: ResourceType[] = [
  { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', plural: 'selfsubjectaccessreviews', namespaced: false },
  { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', plural: 'subjectaccessreviews', namespaced: false },
  // The install chart's Deployments (test/support/platform.ts stores them as kubectl apply would).
  { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', namespaced: true },
];

function typeKey(t: Pick<ResourceType, 'apiVersion' | 'plural'>): string {
  return `${t.plural}.${groupOf(t.apiVersion)}`;
}

/**
 * One page of a list, as kube-apiserver answers `limit` and `continue`: at most `limit` items,
 * and while more remain a `continue` token naming the list's resourceVersion and the last key
 * given. Later pages keep the first page's resourceVersion; they read the current objects
 * after that key (the fake keeps no snapshot), which a watch from that resourceVersion repairs.
 */
function pageOf(list: { kind: string; apiVersion: string; metadata: { resourceVersion: string }; items: KubeObject[] }, q: URLSearchParams) {
  const limit = Number(q.get('limit') ?? 0);
  const token = q.get('continue');
  let { items } = list;
  let resourceVersion = list.metadata.resourceVersion;
  if (token) {
    let after: string;
    try {
      ({ rv: resourceVersion, after } = JSON.parse(Buffer.from(token, 'base64url').toString()) as { rv: string; after: string });
    } catch {
      throw new ApiError(400, status(400, 'BadRequest', 'continue key is not valid'));
    }
    items = items.filter((o) => keyOf(o.metadata?.namespace, o.metadata!.name!).localeCompare(after) > 0);
  }
  if (!(limit > 0) || items.length <= limit) return { ...list, metadata: { resourceVersion }, items };
  const page = items.slice(0, limit);
  const last = page.at(-1)!.metadata!;
  const next = Buffer.from(JSON.stringify({ rv: resourceVersion, after: keyOf(last.namespace, last.name!) })).toString('base64url');
  // kube-apiserver counts what remains only when no selector filters the list.
  const selected = Boolean(q.get('labelSelector') || q.get('fieldSelector'));
  return { ...list, metadata: { resourceVersion, continue: next, ...(selected ? {} : { remainingItemCount: items.length - limit }) }, items: page };
}

function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}


export interface FakeApiServerOptions {
  /** Seed `default`, `kube-system` and `svc-system`, and the recorded `kubernetes` Service and EndpointSlice. */
  seedCluster?: boolean;
  /** Events kept for watches; older resourceVersions answer 410 Gone. */
  historyLimit?: number;
  /** Milliseconds between a write's response and its watch events (default 0: right after the response). */
  watchLagMs?: number;
  /** Milliseconds between BOOKMARK events on watches that allow them (default 60000, as kube-apiserver). */
  bookmarkIntervalMs?: number;
  /** Audiences a ServiceAccount token must carry one of (kube-apiserver --api-audiences). */
  apiAudiences?: string[];
  /** How long answers take and how many are served at once (default: instant, no limit). */
  latency?: LatencyProfile;
  /**
   * The quota controller (kube-controller-manager's): 'immediate' recounts a namespace's
   * ResourceQuotas right after a write (asynchronously, as the real one), 'stopped' never does.
   */
  quotaController?: QuotaControllerMode;
  /** Milliseconds the fake kubelet takes to finish a bound pod's graceful deletion (default 20). */
  podTerminationMs?: number;
}

export type QuotaControllerMode = 'immediate' | 'stopped';

export class FakeApiServer {
  readonly adminToken = 'fake-admin-token';
  readonly requests: RequestRecord[] = [];
  /** Every token a TokenRequest answered, in order (a test looks for them where no secret may be). */
  readonly mintedTokens: string[] = [];
  private server?: http.Server;
  private sockets = new Set<Socket>();
  private types = new Map<string, ResourceType>();
  private data = new Map<string, Map<string, KubeObject>>();
  private tokens = new Map<string, TokenEntry>();
  private readonly hub: WatchHub;
  private rv = 1000;
  private upgrades: { pattern: RegExp; handler: UpgradeHandler }[] = [];
  private failures: InjectedFailure[] = [];
  private delays: { method: string; path: RegExp; ms: number }[] = [];
  private podLogs = new Map<string, string>();
  /** Terminating namespaces whose next controller pass is scheduled. */
  private cleanups = new Set<string>();
  /** Namespaces whose quotas the quota controller recounts on its next pass. */
  private quotaRecounts = new Set<string>();
  private quotaMode: QuotaControllerMode;
  /** Extra watch lag per bearer token (one replica trailing another). */
  private tokenLags = new Map<string, number>();
  readonly schemas = new CrdSchemas();
  /** The latency model every request goes through, and its figures of requests in flight. */
  readonly latency: LatencyModel;
  url = '';

  constructor(private readonly opts: FakeApiServerOptions = {}) {
    this.hub = new WatchHub({ historyLimit: opts.historyLimit ?? 50_000, lagMs: opts.watchLagMs ?? 0, bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000 });
    this.latency = new LatencyModel(opts.latency ?? INSTANT_PROFILE);
    this.quotaMode = opts.quotaController ?? 'immediate';
    for (const t of [...Object.values(RESOURCES), ...EXTRA_TYPES]) this.types.set(typeKey(t), t);
    this.addUser(this.adminToken, { username: 'admin', groups: ['system:masters', 'system:authenticated'] });
    if (opts.seedCluster !== false) this.seedCluster();
  }

  // ---- test-facing API -------------------------------------------------------------

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
  revokeToken(token: string): void {
    this.tokens.delete(token);
  }

  connection(token: string = this.adminToken) {
    return staticConnection(this.url, token);
  }

  client(token: string = this.adminToken): KubeClient {
    return new KubeClient(this.connection(token));
  }

  /** Stores objects as they are (no authentication, admission or validation), emitting watch events. */
  seed(...objects: KubeObject[]): KubeObject[] {
    return objects.map((o) => {
      const t = this.typeOfObject(o);
      const existing = this.find(t, o.metadata?.namespace, o.metadata!.name!);
      const obj = this.stamp(clone(o), t, existing);
      this.put(t, obj, existing ? 'MODIFIED' : 'ADDED');
      return clone(obj);
    });
  }

  /**
   * An object as kube-apiserver's built-in admission would store it on create (namespace
   * lifecycle, LimitRange defaults and checks, ResourceQuota), for harness controllers that
   * then seed() it; throws the ApiError a real create would answer. Webhooks are not called.
   */
  admitBuiltIn(o: KubeObject): KubeObject {
    const t = this.typeOfObject(o);
    const obj = clone(o);
    this.checkNamespace(t, obj.metadata?.namespace, obj.metadata!.name!);
    const limitRanges = t.namespaced ? this.objects(RESOURCES.limitRange, obj.metadata!.namespace) : [];
    if (isCore(t, 'pods')) {
      defaultPodRequests(obj);
      applyLimitDefaults(obj, limitRanges);
    }
    this.builtInValidation(t, obj, limitRanges)();
    return obj;
  }

  /** Removes an object directly (no finalizers), as if it vanished. */
  remove(t: ResourceType, name: string, namespace?: string): void {
    const obj = this.find(t, namespace, name);
    if (obj) this.drop(t, obj);
  }

  object<T = KubeObject>(t: ResourceType, name: string, namespace?: string): T | undefined {
    const o = this.find(t, namespace, name);
    return o ? (clone(o) as T) : undefined;
  }

  objects<T = KubeObject>(t: ResourceType, namespace?: string): T[] {
    const all = [...(this.data.get(typeKey(t))?.values() ?? [])];
    return clone(all.filter((o) => namespace === undefined || o.metadata?.namespace === namespace)) as T[];
  }

  /** How many stored objects of a type pass `filter` (read in place: no copies, for polling many objects). */
  count(t: ResourceType, filter: (o: Readonly<KubeObject>) => boolean): number {
    let n = 0;
    for (const o of this.data.get(typeKey(t))?.values() ?? []) if (filter(o)) n++;
    return n;
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

  /** Registers CRDs (as `infra` renders them): their schemas default and validate den.dev objects. */
  installCrds(crds: KubeObject[]): void {
    for (const crd of crds) {
      this.schemas.register(crd);
      this.seed(crd);
    }
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

  /** Starts or stops the quota controller; started, it recounts every namespace's quotas at once. */
  setQuotaController(mode: QuotaControllerMode): void {
    this.quotaMode = mode;
    if (mode === 'stopped') return;
    for (const q of this.data.get(typeKey(RESOURCES.resourceQuota))?.values() ?? []) this.scheduleQuotaRecount(q.metadata!.namespace!);
  }

  get resourceVersion(): number {
    return this.rv;
  }

  // ---- storage ---------------------------------------------------------------------

  private seedCluster(): void {
    for (const name of ['default', 'kube-system', 'svc-system']) this.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const svc = fixture('service-kubernetes.json').body;
    this.seed(this.strip(svc));
    for (const slice of fixture('endpointslices-kubernetes.json').body.items) this.seed({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', ...this.strip(slice) });
  }

  private strip(o: any): KubeObject {
    const copy = clone(o);
    delete copy.metadata.managedFields;
    delete copy.metadata.resourceVersion;
    return copy;
  }

  private typeOfObject(o: KubeObject): ResourceType {
    for (const t of this.types.values()) if (t.apiVersion === o.apiVersion && t.kind === o.kind) return t;
    throw new Error(`fake apiserver: unknown kind ${o.kind} ${o.apiVersion}`);
  }

  private find(t: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.data.get(typeKey(t))?.get(keyOf(t.namespaced ? namespace : undefined, name));
  }

  private stamp(obj: KubeObject, t: ResourceType, existing?: KubeObject): KubeObject {
    obj.apiVersion = t.apiVersion;
    obj.kind = t.kind;
    const md = (obj.metadata ??= {});
    md.uid = existing?.metadata?.uid ?? md.uid ?? randomUUID();
    md.creationTimestamp = existing?.metadata?.creationTimestamp ?? md.creationTimestamp ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    if (GENERATION_TRACKED.has(t.plural)) {
      const prev = existing?.metadata?.generation ?? 0;
      const changed = !existing || JSON.stringify(specOf(existing)) !== JSON.stringify(specOf(obj));
      md.generation = changed ? prev + 1 : prev;
    }
    if (isNamespace(t)) {
      md.labels = { ...md.labels, 'kubernetes.io/metadata.name': md.name! };
      if (!existing) {
        const ns = obj as KubeObject & { spec?: { finalizers?: string[] }; status?: { phase?: string } };
        ns.spec = { finalizers: ['kubernetes'], ...ns.spec };
        ns.status = { phase: 'Active', ...ns.status };
      }
    }
    md.resourceVersion = String(++this.rv);
    return obj;
  }

  private put(t: ResourceType, obj: KubeObject, type: 'ADDED' | 'MODIFIED'): void {
    const key = typeKey(t);
    let bucket = this.data.get(key);
    if (!bucket) this.data.set(key, (bucket = new Map()));
    const objectKey = keyOf(t.namespaced ? obj.metadata?.namespace : undefined, obj.metadata!.name!);
    const previous = bucket.get(objectKey);
    bucket.set(objectKey, obj);
    this.publish({ rv: this.rv, type, typeKey: key, object: obj, ...(type === 'MODIFIED' && previous ? { previous } : {}) });
    // The quota controller looks at a quota again only when its spec.hard changes (not its status).
    const hardUnchanged = isCore(t, 'resourcequotas') && previous !== undefined && JSON.stringify((previous as Quota).spec?.hard) === JSON.stringify((obj as Quota).spec?.hard);
    if (t.namespaced && !hardUnchanged) this.refreshQuotas(obj.metadata!.namespace!, key);
  }

  private drop(t: ResourceType, obj: KubeObject): void {
    const key = typeKey(t);
    this.data.get(key)?.delete(keyOf(t.namespaced ? obj.metadata?.namespace : undefined, obj.metadata!.name!));
    const gone = clone(obj);
    gone.metadata!.resourceVersion = String(++this.rv);
    this.publish({ rv: this.rv, type: 'DELETED', typeKey: key, object: gone });
    this.collectDependents(obj);
    const ns = t.namespaced ? obj.metadata?.namespace : undefined;
    if (ns) this.refreshQuotas(ns, key);
    if (ns && this.find(RESOURCES.namespace, undefined, ns)?.metadata?.deletionTimestamp) this.scheduleNamespaceCleanup(ns);
  }

  /**
   * Background cascading deletion: dependents whose owners are all gone are deleted as a
   * DELETE would (finalizers honoured). The contents of a namespace that vanished without
   * terminating (remove()) vanish with it.
   */
  private collectDependents(owner: KubeObject): void {
    const uid = owner.metadata!.uid;
    const isNamespace = owner.kind === 'Namespace' && owner.apiVersion === 'v1';
    for (const [key, bucket] of this.data) {
      const t = this.types.get(key)!;
      for (const o of [...bucket.values()]) {
        const refs = o.metadata?.ownerReferences ?? [];
        const owned = refs.some((r) => r.uid === uid);
        const inNamespace = isNamespace && t.namespaced && o.metadata?.namespace === owner.metadata!.name;
        if (inNamespace) this.drop(t, o);
        else if (owned && !refs.some((r) => r.uid !== uid && this.uidExists(r.uid))) this.deleteObject(t, o);
      }
    }
  }

  private uidExists(uid: string): boolean {
    for (const bucket of this.data.values()) for (const o of bucket.values()) if (o.metadata?.uid === uid) return true;
    return false;
  }

  private publish(entry: WatchEntry): void {
    this.hub.publish(entry);
  }

  // ---- HTTP ------------------------------------------------------------------------

  private authenticate(req: http.IncomingMessage): UserInfo | undefined {
    const header = req.headers.authorization ?? '';
    const m = /^Bearer (.+)$/.exec(header);
    if (!m) return undefined;
    const entry = this.tokens.get(m[1]!);
    if (!entry) return undefined;
    const lookup = (t: ResourceType, namespace: string, name: string) => this.find(t, namespace, name);
    return tokenAccepted(entry, lookup, this.opts.apiAudiences ?? [API_AUDIENCE], Date.now()) ? entry.user : undefined;
  }

  private rbacObjects() {
    return {
      clusterRoles: (name: string) => this.find(RESOURCES.clusterRole, undefined, name) as any,
      roles: (ns: string, name: string) => this.find(RESOURCES.role, ns, name) as any,
      clusterRoleBindings: () => [...(this.data.get(typeKey(RESOURCES.clusterRoleBinding))?.values() ?? [])] as any,
      roleBindings: (ns: string) => [...(this.data.get(typeKey(RESOURCES.roleBinding))?.values() ?? [])].filter((b) => b.metadata?.namespace === ns) as any,
    };
  }

  private authorize(user: UserInfo, a: Attributes): void {
    if (!authorize(this.rbacObjects(), user, a)) throw new ApiError(403, status(403, 'Forbidden', forbiddenMessage(user, a), { ...(a.name ? { name: a.name } : {}), ...(a.group ? { group: a.group } : {}), kind: a.resource }));
  }

  /**
   * RBAC's escalation check on writes of Roles and bindings (kube-apiserver's policybased
   * storage): system:masters pass; a Role needs `escalate` on it, a binding `bind` on its
   * roleRef, or else the author must hold every rule granted. A binding's roleRef must
   * then exist: `roles.rbac.authorization.k8s.io "x" not found` (404).
   */
  private checkGrant(t: ResourceType, obj: KubeObject, user: UserInfo): void {
    if (user.groups.includes('system:masters') || groupOf(t.apiVersion) !== 'rbac.authorization.k8s.io') return;
    const objects = this.rbacObjects();
    const namespace = t.namespaced ? obj.metadata?.namespace : undefined;
    const name = obj.metadata?.name ?? '';
    const label = `${t.plural}.rbac.authorization.k8s.io`;
    let rules: PolicyRule[];
    if (t.plural === 'roles' || t.plural === 'clusterroles') {
      if (authorize(objects, user, { verb: 'escalate', group: 'rbac.authorization.k8s.io', resource: t.plural, namespace, name })) return;
      rules = (obj as { rules?: PolicyRule[] }).rules ?? [];
    } else if (t.plural === 'rolebindings' || t.plural === 'clusterrolebindings') {
      const ref = (obj as { roleRef?: { kind?: string; name?: string } }).roleRef ?? {};
      const refType = ref.kind === 'Role' ? RESOURCES.role : RESOURCES.clusterRole;
      const refName = ref.name ?? '';
      if (authorize(objects, user, { verb: 'bind', group: 'rbac.authorization.k8s.io', resource: refType.plural, namespace, name: refName })) return;
      const role = ref.kind === 'Role' && namespace ? (this.find(RESOURCES.role, namespace, refName) as { rules?: PolicyRule[] } | undefined) : undefined;
      const found = ref.kind === 'Role' ? role && (role.rules ?? []) : clusterRoleRules(objects, refName);
      if (!found) throw this.notFound(refType, refName);
      rules = found;
    } else return;
    const missing = ruleNotHeld(objects, user, rules, namespace);
    if (missing) throw new ApiError(403, status(403, 'Forbidden', escalationMessage(label, name, user, missing), { name, group: 'rbac.authorization.k8s.io', kind: t.plural }));
  }

  /** Evaluates an access review without throwing. */
  allowed(user: UserInfo, a: Attributes): boolean {
    try {
      this.authorize(user, a);
      return true;
    } catch {
      return false;
    }
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

  private notFound(t: ResourceType, name: string): ApiError {
    const group = groupOf(t.apiVersion);
    const label = group ? `${t.plural}.${group}` : t.plural;
    return new ApiError(404, status(404, 'NotFound', `${label} "${name}" not found`, { name, ...(group ? { group } : {}), kind: t.plural }));
  }

  private mustFind(t: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const o = this.find(t, namespace, name);
    if (!o) throw this.notFound(t, name);
    return o;
  }

  private list(t: ResourceType, namespace: string | undefined, q: URLSearchParams) {
    const labels = parseLabelSelector(q.get('labelSelector') ?? undefined);
    const fields = this.fieldFilter(t, q);
    const items = [...(this.data.get(typeKey(t))?.values() ?? [])]
      .filter((o) => namespace === undefined || o.metadata?.namespace === namespace)
      .filter((o) => labels(o.metadata?.labels) && fields(o))
      .sort((a, b) => keyOf(a.metadata?.namespace, a.metadata!.name!).localeCompare(keyOf(b.metadata?.namespace, b.metadata!.name!)));
    return { kind: `${t.kind}List`, apiVersion: t.apiVersion, metadata: { resourceVersion: String(this.rv) }, items };
  }

  /** The request's field selector, limited to the fields kube-apiserver supports for the resource (400 otherwise). */
  private fieldFilter(t: ResourceType, q: URLSearchParams): (o: KubeObject) => boolean {
    const group = groupOf(t.apiVersion);
    const crd = [...(this.data.get(typeKey(RESOURCES.customResourceDefinition))?.values() ?? [])].find((c: any) => c.spec?.group === group && c.spec?.names?.plural === t.plural) as any;
    const version = crd?.spec?.versions?.find((v: any) => `${group}/${v.name}` === t.apiVersion);
    const selectable = ((version?.selectableFields ?? []) as { jsonPath: string }[]).map((f) => f.jsonPath.replace(/^\./, ''));
    try {
      return parseFieldSelector(q.get('fieldSelector') ?? undefined, `${t.plural}.${group}`, selectable);
    } catch (err) {
      if (err instanceof FieldSelectorError) throw new ApiError(400, status(400, 'BadRequest', err.message));
      throw err;
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

  /** The NamespaceLifecycle admission plugin: no new content in a missing or terminating namespace. */
  private checkNamespace(t: ResourceType, namespace: string | undefined, name: string): void {
    if (!t.namespaced) return;
    if (!namespace) throw new ApiError(400, status(400, 'BadRequest', 'the namespace of the object does not match the namespace on the request'));
    const ns = this.find(RESOURCES.namespace, undefined, namespace);
    if (!ns) throw this.notFound(RESOURCES.namespace, namespace);
    if (ns.metadata?.deletionTimestamp) {
      const group = groupOf(t.apiVersion);
      const label = group ? `${t.plural}.${group}` : t.plural;
      const message = `${label} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`;
      throw new ApiError(403, status(403, 'Forbidden', message, { name, ...(group ? { group } : {}), kind: t.plural, causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }] }));
    }
  }

  private validateName(t: ResourceType, name: string | undefined): void {
    if (!name) throw new ApiError(422, status(422, 'Invalid', `${t.kind} "" is invalid: metadata.name: Required value: name or generateName is required`, { kind: t.kind, causes: [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }] }));
    const re = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
    if (!re.test(name) || name.length > 253) {
      const msg = `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
      throw new ApiError(422, status(422, 'Invalid', `${t.kind} "${name}" is invalid: metadata.name: ${msg}`, { name, kind: t.kind, causes: [{ reason: 'FieldValueInvalid', message: msg, field: 'metadata.name' }] }));
    }
  }

  /** kube-apiserver's checks of labels, annotation keys, and a Service's name (a DNS-1035 label). */
  private validateMetadata(t: ResourceType, obj: KubeObject): void {
    const name = obj.metadata?.name ?? '';
    const problems = metadataProblems(obj.metadata);
    if (t.plural === 'services' && t.apiVersion === 'v1') problems.unshift(...dns1035LabelProblems(name).map((m) => `metadata.name: Invalid value: ${JSON.stringify(name)}: ${m}`));
    if (problems.length === 0) return;
    const message = `${t.kind} "${name}" is invalid: ${problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`}`;
    throw new ApiError(422, status(422, 'Invalid', message, { name, kind: t.kind, causes: problems.map((p) => ({ reason: 'FieldValueInvalid', message: p.replace(/^[^:]+: /, ''), field: p.split(':')[0]! })) }));
  }

  private async admit(t: ResourceType, operation: 'CREATE' | 'UPDATE', obj: KubeObject, old: KubeObject | undefined, user: UserInfo): Promise<KubeObject> {
    let current = this.schemas.default(obj);
    const configs = (kind: ResourceType) => [...(this.data.get(typeKey(kind))?.values() ?? [])];
    const namespaceOf = (ns: string) => this.find(RESOURCES.namespace, undefined, ns);
    const outcome: AdmissionOutcome = await callWebhooks({ configs: configs(RESOURCES.mutatingWebhookConfiguration), mutating: true, type: t, operation, object: current, oldObject: old, user, namespaceOf });
    current = this.schemas.default(outcome.object);
    this.schemas.validate(current, old);
    await callWebhooks({ configs: configs(RESOURCES.validatingWebhookConfiguration), mutating: false, type: t, operation, object: current, oldObject: old, user, namespaceOf });
    return current;
  }

  private async create(t: ResourceType, pathNamespace: string | undefined, body: any, writer: Writer, dryRun: boolean, applied?: KubeObject): Promise<KubeObject> {
    const { user } = writer;
    if (!body || typeof body !== 'object') throw new ApiError(400, status(400, 'BadRequest', 'the request body is not a valid object'));
    const obj = clone(body) as KubeObject;
    obj.metadata ??= {};
    if (!obj.metadata.name && typeof obj.metadata.generateName === 'string') obj.metadata.name = `${obj.metadata.generateName}${randomBytes(3).toString('hex').slice(0, 5)}`;
    if (t.namespaced) {
      if (obj.metadata.namespace && pathNamespace && obj.metadata.namespace !== pathNamespace) throw new ApiError(400, status(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request'));
      obj.metadata.namespace = pathNamespace ?? obj.metadata.namespace;
    }
    this.validateName(t, obj.metadata.name);
    this.validateMetadata(t, obj);
    this.checkNamespace(t, obj.metadata.namespace, obj.metadata.name!);
    if (STATUS_SUBRESOURCE.has(t.plural) && t.plural !== 'pods') delete obj.status;
    for (const k of ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'managedFields']) delete obj.metadata[k];
    // Like kube-apiserver: admission (webhooks included) runs before storage, which answers AlreadyExists.
    const limitRanges = t.namespaced ? this.objects(RESOURCES.limitRange, obj.metadata.namespace) : [];
    if (isCore(t, 'pods')) {
      defaultPodRequests(obj);
      applyLimitDefaults(obj, limitRanges);
    }
    const admitted = await this.admit(t, 'CREATE', obj, undefined, user);
    this.checkGrant(t, admitted, user);
    const countInQuotas = this.builtInValidation(t, admitted, limitRanges);
    if (this.find(t, obj.metadata.namespace, obj.metadata.name!)) throw this.alreadyExists(t, obj.metadata.name!);
    const time = timestamp();
    const listKeys = this.listKeysOf(t);
    admitted.metadata!.managedFields = applied
      ? [{ manager: writer.manager, operation: 'Apply', apiVersion: t.apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(fieldSet(applied, listKeys, undefined, 'Apply')) }]
      : recordUpdate({ next: admitted, manager: writer.manager, listKeys, time });
    if (dryRun) return admitted;
    countInQuotas();
    const stored = this.stamp(admitted, t);
    this.put(t, stored, 'ADDED');
    return stored;
  }

  /**
   * LimitRanger's and ResourceQuota's validation of a new object, which run after the webhooks;
   * answers how to count it in the quotas' status.used (as the quota admission plugin writes it).
   */
  private builtInValidation(t: ResourceType, obj: KubeObject, limitRanges: KubeObject[]): () => void {
    if (!t.namespaced) return () => {};
    try {
      if (isCore(t, 'pods')) checkLimitRanges('Pod', obj, limitRanges);
      if (isCore(t, 'persistentvolumeclaims')) checkLimitRanges('PersistentVolumeClaim', obj, limitRanges);
      const counted = checkQuotas(typeKey(t), obj, this.quotasIn(obj.metadata!.namespace!));
      return () => {
        for (const { quota, used } of counted) {
          const live = this.find(RESOURCES.resourceQuota, quota.metadata!.namespace, quota.metadata!.name!);
          if (live) this.put(RESOURCES.resourceQuota, this.stamp({ ...clone(live), status: { ...(live as Quota).status, used } } as KubeObject, RESOURCES.resourceQuota, live), 'MODIFIED');
        }
      };
    } catch (err) {
      if (!(err instanceof AdmissionRefusal)) throw err;
      const group = groupOf(t.apiVersion);
      const name = obj.metadata!.name!;
      throw new ApiError(403, status(403, 'Forbidden', `${group ? `${t.plural}.${group}` : t.plural} "${name}" is forbidden: ${err.message}`, { name, ...(group ? { group } : {}), kind: t.plural }));
    }
  }

  /** The namespace's ResourceQuotas. */
  private quotasIn(namespace: string): Quota[] {
    const quotas = this.data.get(typeKey(RESOURCES.resourceQuota));
    return [...(quotas?.values() ?? [])].filter((o) => o.metadata?.namespace === namespace) as Quota[];
  }

  /** After a write of `changed` (a `<plural>.<group>`): the quota controller recounts the namespace if a quota there counts it. */
  private refreshQuotas(namespace: string, changed: string): void {
    const hardKeys = this.quotasIn(namespace).flatMap((o) => Object.keys(o.spec?.hard ?? {}));
    if (changed !== typeKey(RESOURCES.resourceQuota) && !quotaTracks(changed, hardKeys)) return;
    this.scheduleQuotaRecount(namespace);
  }

  /** As kube-controller-manager's quota controller: a pass soon after the change, never while stopped. */
  private scheduleQuotaRecount(namespace: string): void {
    if (this.quotaMode === 'stopped' || this.quotaRecounts.has(namespace)) return;
    this.quotaRecounts.add(namespace);
    setImmediate(() => {
      this.quotaRecounts.delete(namespace);
      if (this.quotaMode !== 'stopped') this.recountQuotas(namespace);
    });
  }

  /** One pass of the quota controller: status.hard and status.used of the namespace's ResourceQuotas, written when they change. */
  private recountQuotas(namespace: string): void {
    const inNamespace = this.quotasIn(namespace);
    const hardKeys = inNamespace.flatMap((o) => Object.keys(o.spec?.hard ?? {}));
    const objects = [...this.data].filter(([key]) => quotaTracks(key, hardKeys)).flatMap(([key, bucket]) => [...bucket.values()].filter((o) => o.metadata?.namespace === namespace).map((object) => ({ resource: key, object })));
    for (const quota of inNamespace) {
      const next = quotaStatus(quota, objects);
      if (JSON.stringify(next) === JSON.stringify({ hard: quota.status?.hard, used: quota.status?.used })) continue;
      this.put(RESOURCES.resourceQuota, this.stamp({ ...clone(quota), status: next } as KubeObject, RESOURCES.resourceQuota, quota), 'MODIFIED');
    }
  }

  private alreadyExists(t: ResourceType, name: string): ApiError {
    const group = groupOf(t.apiVersion);
    const label = group ? `${t.plural}.${group}` : t.plural;
    return new ApiError(409, status(409, 'AlreadyExists', `${label} "${name}" already exists`, { name, ...(group ? { group } : {}), kind: t.plural }));
  }

  private conflict(t: ResourceType, name: string): ApiError {
    const group = groupOf(t.apiVersion);
    const label = group ? `${t.plural}.${group}` : t.plural;
    return new ApiError(409, status(409, 'Conflict', `Operation cannot be fulfilled on ${label} "${name}": the object has been modified; please apply your changes to the latest version and try again`, { name, ...(group ? { group } : {}), kind: t.plural }));
  }

  /**
   * Writes a new version of an existing object, honouring the status subresource, finalizers and
   * admission (`managedFields` given by an apply, else recorded as an Update by the writer).
   * Answers STALE when another write replaced `existing` while the webhooks ran: as etcd's
   * compare-and-swap, the caller checks its precondition again or recomputes on the new version.
   */
  private async write(t: ResourceType, route: Route, existing: KubeObject, next: KubeObject, writer: Writer, managedFields?: unknown[]): Promise<KubeObject | typeof STALE> {
    const { user } = writer;
    const statusOnly = route.subresource === 'status';
    let obj: KubeObject;
    if (statusOnly) {
      obj = clone(existing);
      if (next.status === undefined) delete obj.status;
      else obj.status = clone(next.status);
    } else {
      obj = clone(next);
      obj.metadata = { ...obj.metadata, name: existing.metadata!.name, namespace: existing.metadata!.namespace, uid: existing.metadata!.uid, creationTimestamp: existing.metadata!.creationTimestamp };
      if (existing.metadata?.deletionTimestamp) obj.metadata.deletionTimestamp = existing.metadata.deletionTimestamp;
      if (STATUS_SUBRESOURCE.has(t.plural)) {
        if (existing.status === undefined) delete obj.status;
        else obj.status = clone(existing.status);
      }
      obj = await this.admit(t, 'UPDATE', obj, existing, user);
      if (this.find(t, existing.metadata!.namespace, existing.metadata!.name!) !== existing) return STALE;
      this.checkGrant(t, obj, user);
      this.validateMetadata(t, obj);
    }
    obj.metadata!.managedFields = managedFields ?? recordUpdate({ old: existing, next: obj, manager: writer.manager, subresource: route.subresource, listKeys: this.listKeysOf(t), time: timestamp() });
    const owners = (o: KubeObject) => JSON.stringify(((o.metadata?.managedFields as object[] | undefined) ?? []).map((e) => ({ ...e, time: undefined })));
    if (JSON.stringify(stripVolatile(obj)) === JSON.stringify(stripVolatile(existing)) && owners(obj) === owners(existing)) return existing;
    const stored = this.stamp(obj, t, existing);
    const finalized = isNamespace(t) ? namespaceFinalized(stored) : !stored.metadata?.finalizers?.length;
    if (stored.metadata?.deletionTimestamp && finalized) {
      this.drop(t, stored);
      return stored;
    }
    this.put(t, stored, 'MODIFIED');
    return stored;
  }

  private async update(t: ResourceType, route: Route, body: any, writer: Writer): Promise<KubeObject> {
    const rv = body?.metadata?.resourceVersion;
    for (;;) {
      const existing = this.mustFind(t, route.namespace, route.name!);
      if (rv && rv !== existing.metadata?.resourceVersion) throw this.conflict(t, route.name!);
      const stored = await this.write(t, route, existing, body, writer);
      if (stored !== STALE) return stored;
    }
  }

  /** How server-side apply merges this kind's lists: its CRD schema's list-map keys, else the built-in ones. */
  private listKeysOf(t: ResourceType): ListKeys {
    const crd = this.schemas.listKeysOf(t.apiVersion, t.kind);
    return crd ? (path) => (path[0] === 'metadata' ? BUILT_IN_LIST_KEYS(path) : crd(path)) : BUILT_IN_LIST_KEYS;
  }

  /** A PATCH, computed again on the new version whenever another write lands while its webhooks run. */
  private async patch(t: ResourceType, route: Route, body: any, contentType: string, writer: Writer, opts: { fieldManager?: string; force: boolean }) {
    for (;;) {
      const answer = await this.patchOnce(t, route, body, contentType, writer, opts);
      if (answer.body !== STALE) return answer as { code: number; body: KubeObject };
    }
  }

  private async patchOnce(t: ResourceType, route: Route, body: any, contentType: string, writer: Writer, opts: { fieldManager?: string; force: boolean }): Promise<{ code: number; body: KubeObject | typeof STALE }> {
    const existing = this.find(t, route.namespace, route.name!);
    const type = contentType.split(';')[0]!.trim();
    if (type === 'application/apply-patch+yaml') {
      if (!opts.fieldManager) {
        const problem = 'Required value: is required for apply patch';
        throw new ApiError(422, status(422, 'Invalid', `PatchOptions.meta.k8s.io "" is invalid: fieldManager: ${problem}`, { group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueRequired', message: problem, field: 'fieldManager' }] }));
      }
      if (!existing) {
        if (route.subresource) throw this.notFound(t, route.name!);
        const applied = { ...body, metadata: { ...body?.metadata, name: route.name } };
        try {
          return { code: 201, body: await this.create(t, route.namespace, applied, writer, false, applied) };
        } catch (err) {
          // Another apply created it meanwhile: apply onto what it stored, as the real server retries.
          if (err instanceof ApiError && err.body.reason === 'AlreadyExists') return { code: 200, body: STALE };
          throw err;
        }
      }
      const outcome = apply({ live: existing, applied: body, manager: opts.fieldManager, subresource: route.subresource, force: opts.force, listKeys: this.listKeysOf(t), time: timestamp() });
      if ('conflicts' in outcome) {
        const causes = outcome.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.entry)}`, field: printPath(c.path) }));
        throw new ApiError(409, status(409, 'Conflict', conflictMessage(outcome.conflicts), { causes }));
      }
      return { code: 200, body: await this.write(t, route, existing, outcome.object, writer, outcome.managedFields) };
    }
    const known = ['application/json-patch+json', 'application/merge-patch+json', ...(this.isCustom(t) ? [] : ['application/strategic-merge-patch+json'])];
    if (!known.includes(type)) throw new ApiError(415, status(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${[...known, 'application/apply-patch+yaml'].join(', ')}`));
    if (!existing) throw this.notFound(t, route.name!);
    let next: KubeObject;
    try {
      if (type === 'application/json-patch+json') next = jsonPatch(existing, body);
      else if (type === 'application/merge-patch+json') next = mergePatch(existing, body);
      else if (type === 'application/strategic-merge-patch+json' && !this.isCustom(t)) next = strategicMergePatch(existing, body);
      else throw new ApiError(415, status(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`));
    } catch (err) {
      if (err instanceof JsonPatchError) throw new ApiError(422, status(422, 'Invalid', err.message));
      if (err instanceof StrategicMergeError) throw new ApiError(500, status(500, 'InternalError', `Internal error occurred: ${err.message}`));
      throw err;
    }
    const rv = (body as any)?.metadata?.resourceVersion;
    if (rv && rv !== existing.metadata?.resourceVersion) throw this.conflict(t, route.name!);
    return { code: 200, body: await this.write(t, route, existing, next, writer) };
  }

  /** Kinds a CRD serves: no strategic merge patch for them. */
  private isCustom(t: ResourceType): boolean {
    return groupOf(t.apiVersion).endsWith('den.dev') || this.schemas.listKeysOf(t.apiVersion, t.kind) !== undefined;
  }

  /**
   * A DELETE with its options: preconditions (uid, resourceVersion) answer 409 when they do not
   * hold; a pod bound to a node is given its grace period. Answers the object while it remains
   * (finalizers, grace), else a Status naming what went, as kube-apiserver does but for pods.
   */
  private delete(t: ResourceType, namespace: string | undefined, name: string, raw: string): { code: number; body: unknown } {
    const existing = this.mustFind(t, namespace, name);
    const options = (raw ? jsonOrUndefined(raw) : undefined) as { preconditions?: { uid?: string; resourceVersion?: string }; gracePeriodSeconds?: number } | undefined;
    const pre = options?.preconditions ?? {};
    const group = groupOf(t.apiVersion);
    const conflict = (what: string) => new ApiError(409, status(409, 'Conflict', `Operation cannot be fulfilled on ${group ? `${t.kind}.${group}` : t.kind} "${name}": ${what}`, { name, ...(group ? { group } : {}), kind: t.kind }));
    if (pre.uid && pre.uid !== existing.metadata!.uid) throw conflict(`the UID in the precondition (${pre.uid}) does not match the UID in record (${existing.metadata!.uid}). The object might have been deleted and then recreated`);
    if (pre.resourceVersion && pre.resourceVersion !== existing.metadata!.resourceVersion) throw conflict(`the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${existing.metadata!.resourceVersion}). The object might have been modified`);
    const after = isCore(t, 'pods') ? this.deletePod(existing, options?.gracePeriodSeconds) : this.deleteObject(t, existing);
    if (isCore(t, 'pods') || isNamespace(t) || this.find(t, namespace, name)) return { code: 200, body: after };
    return { code: 200, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, ...(group ? { group } : {}), kind: t.plural, uid: existing.metadata!.uid } } };
  }

  /**
   * A pod bound to a node is marked with its grace period (the request's, else the spec's
   * terminationGracePeriodSeconds, else 30) and stays until the fake kubelet has stopped it
   * (podTerminationMs later); a pod on no node, or a grace of 0, goes at once.
   */
  private deletePod(pod: KubeObject, gracePeriodSeconds: number | undefined): KubeObject {
    const spec = (pod as { spec?: { nodeName?: string; terminationGracePeriodSeconds?: number } }).spec ?? {};
    const grace = gracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 30;
    if (pod.metadata?.deletionTimestamp && grace > 0) return pod;
    if (!spec.nodeName || grace <= 0) {
      const gone = this.deleteObject(RESOURCES.pod, pod);
      if (gone !== pod) return gone;
      return { ...pod, metadata: { ...pod.metadata, deletionTimestamp: pod.metadata?.deletionTimestamp ?? timestamp(), deletionGracePeriodSeconds: 0 } };
    }
    const marked = this.markDeleted(RESOURCES.pod, pod, grace);
    const uid = pod.metadata!.uid;
    const { namespace, name } = pod.metadata as { namespace: string; name: string };
    setTimeout(() => {
      const current = this.find(RESOURCES.pod, namespace, name);
      if (current && current.metadata?.uid === uid) this.deleteObject(RESOURCES.pod, current);
    }, this.opts.podTerminationMs ?? 20).unref();
    return marked;
  }

  private markDeleted(t: ResourceType, obj: KubeObject, graceSeconds: number): KubeObject {
    const marked = clone(obj);
    marked.metadata!.deletionTimestamp = new Date(Date.now() + graceSeconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    marked.metadata!.deletionGracePeriodSeconds = graceSeconds;
    const stored = this.stamp(marked, t, obj);
    this.put(t, stored, 'MODIFIED');
    return stored;
  }

  /** A DELETE: an object with finalizers (or a namespace) is marked and stays until they are done. */
  private deleteObject(t: ResourceType, existing: KubeObject): KubeObject {
    if (isNamespace(t)) return this.terminateNamespace(existing);
    if (existing.metadata?.finalizers?.length) {
      if (existing.metadata.deletionTimestamp) return existing;
      const marked = clone(existing);
      marked.metadata!.deletionTimestamp = timestamp();
      const stored = this.stamp(marked, t, existing);
      this.put(t, stored, 'MODIFIED');
      return stored;
    }
    this.drop(t, existing);
    return existing;
  }

  /**
   * As kube-apiserver and the namespace controller do it: the namespace turns Terminating
   * at once; its contents are deleted afterwards (those with finalizers wait for them), and
   * the namespace goes only once it is empty and its `kubernetes` finalizer is removed.
   */
  private terminateNamespace(ns: KubeObject): KubeObject {
    if (ns.metadata?.deletionTimestamp) return ns;
    const marked = clone(ns) as KubeObject & { status?: Record<string, unknown> };
    marked.metadata!.deletionTimestamp = timestamp();
    marked.status = { ...marked.status, phase: 'Terminating' };
    const stored = this.stamp(marked, RESOURCES.namespace, ns);
    this.put(RESOURCES.namespace, stored, 'MODIFIED');
    this.scheduleNamespaceCleanup(ns.metadata!.name!);
    return stored;
  }

  private scheduleNamespaceCleanup(name: string): void {
    if (this.cleanups.has(name)) return;
    this.cleanups.add(name);
    setImmediate(() => {
      this.cleanups.delete(name);
      this.cleanNamespace(name);
    });
  }

  /** One pass of the namespace controller over a terminating namespace. */
  private cleanNamespace(name: string): void {
    const ns = this.find(RESOURCES.namespace, undefined, name) as (KubeObject & { spec?: { finalizers?: string[] } }) | undefined;
    if (!ns?.metadata?.deletionTimestamp) return;
    const contents = () => [...this.data].flatMap(([key, bucket]) => [...bucket.values()].filter((o) => this.types.get(key)!.namespaced && o.metadata?.namespace === name).map((o) => [this.types.get(key)!, o] as const));
    for (const [t, o] of contents()) if (this.find(t, name, o.metadata!.name!) === o) this.deleteObject(t, o);
    if (contents().length > 0) return; // finalizers pending: a later drop in the namespace runs this again
    if (ns.spec?.finalizers?.includes('kubernetes')) {
      const finalized = clone(ns) as typeof ns;
      finalized.spec!.finalizers = ns.spec.finalizers.filter((f) => f !== 'kubernetes');
      const stored = this.stamp(finalized, RESOURCES.namespace, ns);
      this.put(RESOURCES.namespace, stored, 'MODIFIED');
      if (namespaceFinalized(stored)) this.drop(RESOURCES.namespace, stored);
    } else if (namespaceFinalized(ns)) this.drop(RESOURCES.namespace, ns);
  }

  private tokenRequest(route: Route, raw: string) {
    this.checkNamespace(RESOURCES.serviceAccount, route.namespace, route.name!);
    const sa = this.find(RESOURCES.serviceAccount, route.namespace, route.name!);
    if (!sa) throw this.notFound(RESOURCES.serviceAccount, route.name!);
    const req = raw ? JSON.parse(raw) : {};
    const seconds = Number(req?.spec?.expirationSeconds ?? 3600);
    if (!(seconds >= 600)) {
      const problem = `Invalid value: ${req.spec.expirationSeconds}: may not specify a duration less than 10 minutes`;
      throw new ApiError(422, status(422, 'Invalid', `TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: ${problem}`, { group: 'authentication.k8s.io', kind: 'TokenRequest', causes: [{ reason: 'FieldValueInvalid', message: problem, field: 'spec.expirationSeconds' }] }));
    }
    const binding = bindingOf(sa, req?.spec ?? {}, (t, namespace, name) => this.find(t, namespace, name));
    const token = `fake.${randomBytes(24).toString('base64url')}`;
    this.mintedTokens.push(token);
    const expires = Date.now() + seconds * 1000;
    const ns = route.namespace!;
    this.tokens.set(token, { user: { username: `system:serviceaccount:${ns}:${route.name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'], uid: sa.metadata!.uid }, expires, binding });
    const answer = fixture('tokenrequest-session.json').body;
    answer.metadata = { name: route.name, namespace: ns, creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
    const bound = binding.boundObject;
    const boundObjectRef = bound ? { kind: bound.type.kind, apiVersion: bound.type.apiVersion, name: bound.name, uid: bound.uid } : null;
    answer.spec = { audiences: binding.audiences, expirationSeconds: seconds, boundObjectRef };
    answer.status = { token, expirationTimestamp: new Date(expires).toISOString().replace(/\.\d+Z$/, 'Z') };
    return { code: 201, body: answer };
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

/**
 * What the latency model sees of a request; undefined for long-running ones (watches, logs),
 * which take no seat on kube-apiserver either.
 */
function requestClass(method: string, route: Route, q: URLSearchParams, contentType: string): RequestClass | undefined {
  const resource = route.subresource ? `${route.type.plural}/${route.subresource}` : route.type.plural;
  if (method === 'GET') {
    if (q.get('watch') === 'true' || q.get('watch') === '1' || route.subresource === 'log') return undefined;
    return { verb: 'GET', resource };
  }
  if (method === 'PATCH' && contentType.startsWith('application/apply-patch')) return { verb: 'APPLY', resource };
  if (method === 'PATCH' || method === 'PUT' || method === 'POST' || method === 'DELETE') return { verb: method, resource };
  return undefined;
}

/** kube-apiserver's answer to list options that contradict each other. */
function invalidWatch(field: string, reason: 'FieldValueForbidden' | 'FieldValueRequired', detail: string): ApiError {
  const problem = `${reason === 'FieldValueForbidden' ? 'Forbidden' : 'Required value'}: ${detail}`;
  return new ApiError(422, status(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${field}: ${problem}`, { kind: 'ListOptions', group: 'meta.k8s.io', causes: [{ reason, message: problem, field }] }));
}

function isCore(t: ResourceType, plural: string): boolean {
  return t.plural === plural && t.apiVersion === 'v1';
}

function isNamespace(t: ResourceType): boolean {
  return t.plural === 'namespaces' && t.apiVersion === 'v1';
}

/** A namespace with no finalizer left, in metadata or spec. */
function namespaceFinalized(ns: KubeObject): boolean {
  return !ns.metadata?.finalizers?.length && !(ns as { spec?: { finalizers?: string[] } }).spec?.finalizers?.length;
}

function timestamp(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

function specOf(o: KubeObject): unknown {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o as Record<string, unknown>;
  return rest;
}

function stripVolatile(o: KubeObject): unknown {
  const copy = clone(o) as any;
  delete copy.metadata?.resourceVersion;
  delete copy.metadata?.managedFields;
  delete copy.metadata?.generation;
  return copy;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function jsonOrUndefined(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined; // not JSON: the caller parses it as YAML
  }
}

function parseBody(raw: string, contentType: string): unknown {
  try {
    // JSON is YAML; clients send apply bodies as JSON, and JSON.parse is far cheaper (loop bench).
    if (contentType.includes('yaml')) return jsonOrUndefined(raw) ?? YAML.parse(raw);
    return JSON.parse(raw);
  } catch (err) {
    throw new ApiError(400, status(400, 'BadRequest', `the request body could not be decoded: ${(err as Error).message}`));
  }
}
