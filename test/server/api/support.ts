// A small Koa app around the resource routes, against the fake API server: errorMapper, a JSON
// body reader, a test authentication middleware that sets `ctx.state` as server/http/context.ts
// says (with a token minted through TokenRequest for the person's `session` or
// `session-readonly` ServiceAccount), and the routes. UserSpaces are provisioned the way the
// manager would: their children rendered by the UserSpace hook and stored in the fake.
import { DenEventRecorder, DEN_REPORTING_COMPONENTS } from '../../../kube/den-events.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { denCrds } from '../../../contract/index.js';
import { adminClusterRules } from '../../../infra/install/rbac-rules.js';
import { syncUserSpace } from '../../../hooks/userspace/sync.js';
import type { UserSpace } from '../../../hooks/userspace/types.js';
import type { KubeObject, OwnerReference } from '../../../kube/client.js';
import { LABELS, SERVICE_ACCOUNTS, userNamespace } from '../../../kube/group.js';
import { RESOURCES } from '../../../kube/resources.js';
import { mountPublicRoutes, mountResourceRoutes } from '../../../server/api/routes.js';
import type { ResourceDeps } from '../../../server/api/types.js';
import type { AuthenticatedState, Caller, TokenScope } from '../../../server/http/context.js';
import type { MembershipRole } from '../../../contract/user-space.js';
import { errorMapper, HttpError } from '../../../koa/errors.js';
import { parseReview, answer } from '../../../hooks/admission/review.js';
import { reviewUserSpaceUpdate } from '../../../hooks/admission/webhooks.js';
import { FakeApiServer } from '../../support/fake-apiserver.js';
import { expectDocumented } from './openapi-check.js';

export const GPU_RESOURCE = 'example.com/gpu';
export const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop';
const NOW = new Date('2026-11-22T10:00:00Z');

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Raw text sent as the body instead of JSON. */
  raw?: string;
}

/** A JSON body reader for the test app only (the real app has its own, with a size limit). */
async function readJson(ctx: Koa.Context, next: Koa.Next): Promise<void> {
  if (ctx.method !== 'GET' && ctx.method !== 'DELETE') {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trim()) {
      try {
        Object.assign(ctx.request, { body: JSON.parse(text) as unknown });
      } catch {
        throw new HttpError(400, 'the request body is not valid JSON');
      }
    }
  }
  await next();
}

/**
 * The manager's real UserSpace validator (SPEC 1.2 rule 6), served over plain HTTP and registered
 * in the fake: a person who is not an administrator may change nothing on their own UserSpace but
 * SSH keys. "Administrator" is answered the way RBAC would: may this identity update any UserSpace.
 * Resolves with the function that stops it.
 */
export async function serveUserSpaceValidator(api: FakeApiServer): Promise<() => Promise<void>> {
  const isAdmin = async (user: { username: string; groups?: string[] }) => api.allowed({ username: user.username, groups: user.groups ?? [] }, { verb: 'update', group: 'den.dev', resource: 'userspaces' });
  const webhook = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const review = parseReview(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      void reviewUserSpaceUpdate(review.request, isAdmin).then((response) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(answer(response)));
      });
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  const port = (webhook.address() as AddressInfo).port;
  api.seed({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'den-webhooks' },
    webhooks: [{
      name: 'vuserspace.den.dev',
      clientConfig: { url: `http://127.0.0.1:${port}/validate-userspace` },
      rules: [{ apiGroups: ['den.dev'], apiVersions: ['v1alpha1'], resources: ['userspaces'], operations: ['UPDATE'], scope: 'Cluster' }],
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    }],
  });
  return () => new Promise<void>((resolve) => webhook.close(() => resolve()));
}

export class ApiTestEnv {
  readonly api = new FakeApiServer();
  readonly logs: { msg: string; fields?: Record<string, unknown> }[] = [];
  /** Den's Events as den server writes them (kube/den-events.ts). */
  readonly events = new DenEventRecorder({ reportingComponent: DEN_REPORTING_COMPONENTS.server });
  private readonly people = new Map<string, AuthenticatedState>();
  private server?: http.Server;
  private stopValidator?: () => Promise<void>;
  url = '';

  constructor(private readonly deps: Partial<ResourceDeps> = {}) {}

  async start(): Promise<this> {
    await this.api.start();
    this.api.installCrds(denCrds().map((crd) => ({ ...crd })));
    this.api.seed({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'den-admin' }, rules: adminClusterRules() } as KubeObject);
    this.stopValidator = await serveUserSpaceValidator(this.api);
    this.server = http.createServer(this.app().callback());
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    await this.stopValidator?.();
    await this.api.close();
  }

  private app(): Koa {
    const app = new Koa();
    const log = (msg: string, fields?: Record<string, unknown>) => void this.logs.push({ msg, fields });
    app.use(errorMapper(log));
    app.use(readJson);
    const publicRouter = new Router({ prefix: '/api/v1' });
    mountPublicRoutes(publicRouter);
    app.use(publicRouter.routes());
    app.use(async (ctx, next) => {
      const m = /^Bearer (.+)$/.exec(ctx.get('Authorization'));
      const state = m ? this.people.get(m[1]!) : undefined;
      if (!state) throw new HttpError(401, 'authentication required');
      Object.assign(ctx.state, state);
      await next();
    });
    app.use(this.resourceRouter().routes());
    return app;
  }

  /** The router exactly as the resource routes mount on it. */
  resourceRouter(): Router<AuthenticatedState> {
    const router = new Router<AuthenticatedState>({ prefix: '/api/v1' });
    const sharesNaming = () => {
      throw new Error('ApiTestEnv runs no share cache: test the shared list through startDen (test/server/core/cluster.ts)');
    };
    mountResourceRoutes(router, { gpuResource: GPU_RESOURCE, log: (msg, fields) => void this.logs.push({ msg, fields }), events: this.events.record, sharesNaming, ...this.deps });
    return router;
  }

  /** Stores a UserSpace and the children the UserSpace hook renders for it, as the manager would. */
  provision(name: string, owner: string, opts: { role?: MembershipRole; disabled?: boolean; quota?: Record<string, unknown> } = {}): UserSpace {
    const labels: Record<string, string> = { [LABELS.role]: opts.role ?? 'user' };
    if (opts.disabled) labels[LABELS.disabled] = 'true';
    const [parent] = this.api.seed({
      apiVersion: 'den.dev/v1alpha1',
      kind: 'UserSpace',
      metadata: { name, labels },
      spec: { owner, quota: opts.quota ?? { cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 1, workspaces: 3 }, networkPolicy: 'Isolated' },
    }) as [UserSpace];
    const result = syncUserSpace({
      parent,
      children: {},
      related: {
        apiServer: { service: this.api.object(RESOURCES.service, 'kubernetes', 'default') ?? null, endpointSlices: this.api.objects(RESOURCES.endpointSlice, 'default') },
        pullSecrets: [],
      },
      now: NOW,
      config: { gpuResource: GPU_RESOURCE, managerNamespace: 'svc-system' },
    });
    this.api.seed(...result.children);
    const [stored] = this.api.seed({ ...parent, status: result.status });
    return stored as UserSpace;
  }

  /** Provisions `<name>`'s UserSpace, owned by `<name>@example.com`, and signs them in with a full token. */
  async person(name: string, opts: { role?: MembershipRole } = {}): Promise<string> {
    this.provision(name, `${name}@example.com`, opts);
    return this.signIn(name, opts);
  }

  /**
   * Signs a person in: mints a token for their namespace's `session` (or `session-readonly`)
   * ServiceAccount through TokenRequest and answers the bearer token the test app accepts.
   */
  async signIn(userSpace: string, opts: { role?: MembershipRole; scope?: TokenScope; email?: string } = {}): Promise<string> {
    const namespace = userNamespace(userSpace);
    const scope = opts.scope ?? 'full';
    const account = scope === 'read' ? SERVICE_ACCOUNTS.sessionReadonly : SERVICE_ACCOUNTS.session;
    const minted = await this.api.client().request<{ status: { token: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/serviceaccounts/${account}/token`,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
    });
    const caller: Caller = { email: opts.email ?? `${userSpace}@example.com`, userspace: userSpace, namespace, role: opts.role ?? 'user', kind: 'bearer', scope, localLogin: false };
    const token = `test-${userSpace}-${scope}-${this.people.size}`;
    this.people.set(token, { caller, kube: this.api.client(minted.status.token) });
    return token;
  }

  /** One call; every answer must be one the OpenAPI description documents for that operation. */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
    let payload: string | undefined;
    if (opts.raw !== undefined) payload = opts.raw;
    else if (opts.body !== undefined) payload = JSON.stringify(opts.body);
    if (payload !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${this.url}/api/v1${path}`, { method, headers, body: payload });
    const text = await res.text();
    let body: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
    const answer = { status: res.status, body, headers: res.headers };
    expectDocumented(method, path, answer);
    return answer;
  }

  // Objects as a cluster would hold them.

  workspace(name: string, namespace: string, opts: { running?: boolean; podName?: string } = {}): KubeObject {
    const [stored] = this.api.seed({
      apiVersion: 'den.dev/v1alpha1',
      kind: 'Workspace',
      metadata: { name, namespace },
      spec: { imageRef: { name: 'python' }, storage: '1Gi', sshAuthorizedKeys: [KEY], running: opts.running ?? true },
      status: { phase: opts.running === false ? 'Suspended' : 'Running', ...(opts.podName ? { podName: opts.podName } : {}) },
    });
    return stored!;
  }

  homeClaim(workspace: string, namespace: string): KubeObject {
    return this.api.seed({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: `home-${workspace}-0`, namespace, labels: { [LABELS.workspace]: workspace } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    })[0]!;
  }

  pod(name: string, namespace: string, workspace: string, phase = 'Running', log = ''): KubeObject {
    const [stored] = this.api.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace, labels: { [LABELS.workspace]: workspace } },
      spec: { containers: [{ name: 'workspace', image: 'python:3.12' }] },
      status: { phase },
    });
    this.api.setPodLog(namespace, name, log);
    return stored!;
  }

  image(name: string, extra: { labels?: Record<string, string>; ownerReferences?: OwnerReference[] } = {}): KubeObject {
    return this.api.seed({
      apiVersion: 'den.dev/v1alpha1',
      kind: 'WorkspaceImage',
      metadata: { name, ...(extra.labels ? { labels: extra.labels } : {}), ...(extra.ownerReferences ? { ownerReferences: extra.ownerReferences } : {}) },
      spec: { displayName: name, image: `registry.example.com/${name}:1` },
    })[0]!;
  }

  registry(name: string): KubeObject {
    return this.api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'ImageRegistry', metadata: { name }, spec: { provider: 'cloud-registry', cloud: { region: 'eu-west-1' } } })[0]!;
  }
}
