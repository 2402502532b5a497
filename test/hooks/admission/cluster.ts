// A fake cluster with Den installed (the real install chart's CRDs, RBAC and webhook
// configurations) and one person, alice, with her UserSpace, namespace and rights.
import https from 'node:https';
import { renderInstall } from '../../../infra/install/synth.js';
import { DEFAULT_SETTINGS } from '../../../infra/install/settings.js';
import type { KubeObject } from '../../../kube/client.js';
import { FakeApiServer } from '../../support/fake-apiserver.js';
import { IMAGES, userSpace } from './world.js';

export const MANAGER_TOKEN = 'manager-token';
export const ALICE_TOKEN = 'alice-token';
export const BOB_TOKEN = 'bob-token';
export const MANAGER_USER = 'system:serviceaccount:svc-system:den-manager';

function rbac(kind: string, name: string, body: object, namespace?: string): KubeObject {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name, ...(namespace ? { namespace } : {}) }, ...body } as KubeObject;
}

/** Starts a fake API server holding the install chart, the catalog and alice's UserSpace. */
export async function installedCluster(aliceKeys: string[]): Promise<FakeApiServer> {
  const api = new FakeApiServer();
  await api.start();
  const install = renderInstall(DEFAULT_SETTINGS) as KubeObject[];
  api.installCrds(install.filter((o) => o.kind === 'CustomResourceDefinition'));
  // The processes themselves (Deployments) are what the tests run in-process instead.
  const seeded = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'ServiceAccount', 'Service', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);
  api.seed(...install.filter((o) => seeded.has(o.kind!)));
  api.addUser(MANAGER_TOKEN, { username: MANAGER_USER, groups: ['system:serviceaccounts', 'system:serviceaccounts:svc-system'] });
  api.addUser(ALICE_TOKEN, { username: 'alice@example.com', uid: 'alice-uid' });
  api.addUser(BOB_TOKEN, { username: 'bob@example.com', groups: ['den-admins'] });
  api.seed(
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-alice' } },
    ...IMAGES,
    userSpace('alice', aliceKeys, { cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 0, workspaces: 3 }),
    rbac('Role', 'svc-workspace-user', { rules: [{ apiGroups: ['den.dev'], resources: ['workspaces'], verbs: ['*'] }] }, 'svc-alice'),
    rbac('RoleBinding', 'svc-owner', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'svc-workspace-user' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice@example.com' }] }, 'svc-alice'),
    rbac('ClusterRole', 'svc-userspace-alice', { rules: [{ apiGroups: ['den.dev'], resources: ['userspaces'], resourceNames: ['alice'], verbs: ['get', 'watch', 'patch'] }] }),
    rbac('ClusterRoleBinding', 'svc-userspace-alice', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'svc-userspace-alice' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice@example.com' }] }),
    rbac('ClusterRoleBinding', 'den-admins', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'den-admin' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'den-admins' }] }),
  );
  return api;
}

export interface RawAnswer {
  status: number;
  body: string;
  json: any;
}

/** One HTTPS request to the webhook server, trusting only `ca`. */
export function post(url: string, ca: string, body: string | Buffer, opts: { method?: string; contentType?: string; agent?: https.Agent } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: opts.method ?? 'POST', ca, agent: opts.agent, headers: { 'Content-Type': opts.contentType ?? 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const isJson = String(res.headers['content-type'] ?? '').includes('json');
        resolve({ status: res.statusCode ?? 0, body: text, json: isJson ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
