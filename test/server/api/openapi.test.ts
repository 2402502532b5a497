// The OpenAPI description against the real app: every route it registers is described, every
// described operation is registered, and real answers validate against their response schemas.
import { DenEventRecorder, DEN_REPORTING_COMPONENTS } from '../../../kube/den-events.js';
import { expect } from 'chai';
import type Koa from 'koa';
import type Router from '@koa/router';
import { DEFAULT_GPU_RESOURCE, SYSTEM_NAMESPACE } from '../../../kube/group.js';
import { AUTHENTICATED, EVERY_REQUEST } from '../../../server/api/openapi-shapes.js';
import { API_PREFIX, createApp } from '../../../server/app.js';
import { createAuthServices } from '../../../server/auth/services.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, call, login, SERVER_TOKEN, startCluster, startDen, type Den, type Signed } from '../core/cluster.js';
import { doc, documentedPath, expectDescribed, expectDocumented } from './openapi-check.js';
import { KEY } from './support.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** `METHOD /path/{param}` for every route of every router mounted on the app, under /api/v1. */
function registeredRoutes(app: Koa): string[] {
  const routes = new Set<string>();
  for (const mw of app.middleware as (Koa.Middleware & { router?: Router })[]) {
    for (const layer of mw.router?.stack ?? []) {
      if (typeof layer.path !== 'string' || !layer.path.startsWith(API_PREFIX)) continue;
      const path = layer.path.slice(API_PREFIX.length).replace(/:(\w+)/g, '{$1}');
      for (const method of layer.methods) if (method !== 'HEAD') routes.add(`${method} ${path}`);
    }
  }
  return [...routes].sort();
}

function documentedOperations(): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, ops]) => Object.keys(ops).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
}

describe('the OpenAPI description (SPEC 9)', () => {
  it('is OpenAPI 3 with the version v1alpha1, served under /api/v1', () => {
    expect(doc.openapi).to.match(/^3\./);
    expect(doc.info.version).to.equal('v1alpha1');
    expect(doc.servers).to.deep.equal([{ url: '/api/v1' }]);
  });

  it('lists on every operation the statuses any request can meet: 400, 413, 415, 503, and 401, 403, 502 once authenticated', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const isPublic = Array.isArray(op.security) && op.security.length === 0;
        const wanted = [...EVERY_REQUEST, ...(isPublic ? [] : AUTHENTICATED)].map(String);
        expect(Object.keys(op.responses), `${method} ${path}`).to.include.members(wanted);
      }
    }
    expect(Object.keys(doc.paths['/login']!.post!.responses)).to.include.members(['401', '403', '404', '429']);
    expect(Object.keys(doc.paths['/profile/password']!.post!.responses)).to.include.members(['409', '429']);
  });

  it('describes every route the real app registers under /api/v1, and no route it lacks', async () => {
    const api = await startCluster();
    try {
      const serverClient = api.client(SERVER_TOKEN);
      const app = createApp({
        config: { baseUrl: 'http://den.test', localAuth: true },
        serverClient,
        auth: createAuthServices(serverClient, { namespace: SYSTEM_NAMESPACE, tokenTtlSeconds: 600 }),
        resources: { gpuResource: DEFAULT_GPU_RESOURCE, log: () => undefined, events: new DenEventRecorder({ reportingComponent: DEN_REPORTING_COMPONENTS.server }).record },
        log: () => undefined,
        ready: () => true,
      });
      const registered = registeredRoutes(app);
      expect(registered).to.include('GET /workspaces');
      expect(registered).to.deep.equal(documentedOperations());
    } finally {
      await api.close();
    }
  });

  it('refuses answers that do not match their schema (the check can fail)', () => {
    expect(() => expectDescribed('GET', '/workspaces/{name}/logs', { status: 200, body: { namespace: 'svc-a', pod: 'p', lines: 3 } })).to.throw(/lines/);
    expect(() => expectDescribed('GET', '/workspaces', { status: 200, body: { workspaces: [] } })).to.throw(/items/);
    expect(() => expectDescribed('GET', '/workspaces', { status: 418, body: { error: 'teapot' } })).to.throw(/documents status 418/);
    expect(() => expectDescribed('PATCH', '/admin/quota/{name}', { status: 200, body: { cpu: '1', memory: '1Gi', storage: '1Gi', gpu: 0, workspaces: 1, extra: true } })).to.throw();
  });

  it('finds the operation of a request path, query and path parameters included', () => {
    expect(documentedPath('/workspaces/dev/logs?tail=5')).to.equal('/workspaces/{name}/logs');
    expect(documentedPath('/workspaces?namespace=svc-a')).to.equal('/workspaces');
    expect(documentedPath('/admin/quota/alice')).to.equal('/admin/quota/{name}');
    expect(documentedPath('/nothing-here')).to.equal(undefined);
    expect(() => expectDocumented('POST', '/workspaces/dev/start', { status: 418, body: { error: 'x' } })).to.throw(/documents status 418/);
    expect(() => expectDocumented('POST', '/image-registries/ecr/force-sync', { status: 202, body: { error: 'x' } })).to.throw(/has no body/);
  });

  it('declares every path parameter on each operation of its path', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      const wanted = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries(ops)) {
        const declared = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect(declared, `${method} ${path}`).to.deep.equal(wanted);
      }
    }
  });

  describe('against the real app', () => {
    let api: FakeApiServer;
    let den: Den;
    let alice: Signed;
    let carol: Signed;

    before(async () => {
      api = await startCluster();
      await addPerson(api, 'alice');
      await addPerson(api, 'carol', { admin: true });
      den = await startDen(api);
      alice = await login(den, 'alice', 'alice-password');
      carol = await login(den, 'carol', 'carol-password');
      api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'python' }, spec: { displayName: 'Python', image: 'python:3.12' } });
    });
    after(async () => {
      await den.close();
      await api.close();
    });

    it('serves the document at /api/v1/openapi.json without authentication', async () => {
      const res = await fetch(`${den.api}/openapi.json`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.contain('application/json');
      expect(await res.json()).to.deep.equal(JSON.parse(JSON.stringify(doc)));
    });

    it('describes the answers of workspace calls', async () => {
      const created = await call(den, 'POST', '/workspaces', { as: alice, body: { name: 'dev', image: 'python', cpu: '1', memory: '1Gi', storage: '1Gi', ssh_public_key: KEY } });
      expect(created.status).to.equal(201);
      expectDescribed('POST', '/workspaces', created);
      expectDescribed('GET', '/workspaces', await call(den, 'GET', '/workspaces', { as: alice }));
      expectDescribed('GET', '/workspaces/{name}', await call(den, 'GET', '/workspaces/dev', { as: alice }));
      expectDescribed('POST', '/workspaces/{name}/stop', await call(den, 'POST', '/workspaces/dev/stop', { as: alice }));
      expectDescribed('GET', '/workspaces/{name}/logs', await call(den, 'GET', '/workspaces/dev/logs', { as: alice }));
      expectDescribed('POST', '/workspaces/{name}/start', await call(den, 'POST', '/workspaces/dev/start', { as: alice }));
      api.seed({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'dev-0', namespace: 'svc-alice', labels: { 'den.dev/workspace': 'dev' } }, spec: { containers: [{ name: 'w', image: 'python:3.12' }] }, status: { phase: 'Running' } });
      api.setPodLog('svc-alice', 'dev-0', 'hello\n');
      const logs = await call(den, 'GET', '/workspaces/dev/logs?tail=5', { as: alice });
      expect(logs.body).to.deep.equal({ namespace: 'svc-alice', pod: 'dev-0', lines: 'hello\n' });
      expectDescribed('GET', '/workspaces/{name}/logs', logs);
      expectDescribed('GET', '/workspaces/{name}', await call(den, 'GET', '/workspaces/nope', { as: alice }));
      expectDescribed('DELETE', '/workspaces/{name}', await call(den, 'DELETE', '/workspaces/dev', { as: alice }));
    });

    it('describes the answers of catalog and registry calls', async () => {
      expectDescribed('GET', '/workspace-images', await call(den, 'GET', '/workspace-images', { as: alice }));
      expectDescribed('POST', '/workspace-images', await call(den, 'POST', '/workspace-images', { as: alice, body: { name: 'go', image: 'golang:1' } }));
      expectDescribed('POST', '/workspace-images', await call(den, 'POST', '/workspace-images', { as: carol, body: { name: 'go', image: 'golang:1' } }));
      expectDescribed('PATCH', '/workspace-images/{name}', await call(den, 'PATCH', '/workspace-images/go', { as: carol, body: { deprecated: true } }));
      expectDescribed('POST', '/image-registries', await call(den, 'POST', '/image-registries', { as: carol, body: { name: 'ecr', region: 'eu-west-1' } }));
      expectDescribed('GET', '/image-registries', await call(den, 'GET', '/image-registries', { as: carol }));
      expectDescribed('POST', '/image-registries/{name}/force-sync', await call(den, 'POST', '/image-registries/ecr/force-sync', { as: carol }));
    });

    it('describes the answers of administration and token calls', async () => {
      expectDescribed('GET', '/admin/userspaces', await call(den, 'GET', '/admin/userspaces', { as: carol }));
      expectDescribed('GET', '/admin/userspaces', await call(den, 'GET', '/admin/userspaces', { as: alice }));
      expectDescribed('GET', '/admin/quota', await call(den, 'GET', '/admin/quota', { as: carol }));
      expectDescribed('PATCH', '/admin/userspaces/{name}', await call(den, 'PATCH', '/admin/userspaces/alice', { as: carol, body: { role: 'user' } }));
      expectDescribed('PATCH', '/admin/quota/{name}', await call(den, 'PATCH', '/admin/quota/alice', { as: carol, body: { cpu: '6' } }));
      expectDescribed('POST', '/admin/userspaces', await call(den, 'POST', '/admin/userspaces', { as: carol, body: { name: 'bob', owner: 'bob@example.com' } }));
      expectDescribed('GET', '/session', await call(den, 'GET', '/session', { as: alice }));
      expectDescribed('POST', '/tokens', await call(den, 'POST', '/tokens?scope=read', { as: alice }));
      expectDescribed('GET', '/tokens', await call(den, 'GET', '/tokens', { as: alice }));
    });
  });
});
