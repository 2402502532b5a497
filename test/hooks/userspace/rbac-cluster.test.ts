// The rendered RBAC evaluated by the fake API server's RBAC (the same rules kube-apiserver
// applies): what SPEC 1.2's "how it will be checked" asks of a real cluster.
import { expect } from 'chai';
import { denCrds } from '../../../contract/index.js';
import { syncUserSpace } from '../../../hooks/userspace/sync.js';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { FakeApiServer } from '../../support/fake-apiserver.js';
import { input, userSpace } from './inputs.js';

const workspace = (name: string): KubeObject => ({
  apiVersion: 'den.dev/v1alpha1',
  kind: 'Workspace',
  metadata: { name },
  spec: { imageRef: { name: 'python' }, storage: '1Gi', sshAuthorizedKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl'] },
});

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    return (err as { status?: number }).status ?? -1;
  }
}

describe('the rendered RBAC on an API server', () => {
  let api: FakeApiServer;

  function provision(name: string, owner: string, labels: Record<string, string> = {}): void {
    const parent = userSpace({ name, labels, spec: { owner } });
    api.seed(parent, ...syncUserSpace(input(parent)).children);
  }

  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.installCrds(denCrds().map((crd) => ({ ...crd })));
    provision('alice', 'alice@example.com');
    provision('bob', 'bob@example.com');
    api.addUser('alice', { username: 'alice@example.com' });
    api.addUser('alice-session', { username: 'system:serviceaccount:svc-alice:session' });
    api.addUser('alice-readonly', { username: 'system:serviceaccount:svc-alice:session-readonly' });
    api.addUser('alice-workspace', { username: 'system:serviceaccount:svc-alice:workspace' });
  });
  afterEach(() => api.close());

  it('lets the owner and the session identity create a Workspace in their namespace and not in another', async () => {
    for (const token of ['alice', 'alice-session']) {
      const client = api.client(token);
      expect(await status(client.create(RESOURCES.workspace, workspace(`w-${token}`), 'svc-alice')), token).to.equal(200);
      expect(await status(client.create(RESOURCES.workspace, workspace(`w-${token}`), 'svc-bob')), token).to.equal(403);
    }
  });

  it('lets session-readonly read Workspaces and refuses it every write and exec', async () => {
    const client = api.client('alice-readonly');
    api.seed({ ...workspace('main'), metadata: { name: 'main', namespace: 'svc-alice' } });
    expect(await status(client.list(RESOURCES.workspace, { namespace: 'svc-alice' }))).to.equal(200);
    expect(await status(client.create(RESOURCES.workspace, workspace('w2'), 'svc-alice'))).to.equal(403);
    expect(await status(client.delete(RESOURCES.workspace, 'main', 'svc-alice'))).to.equal(403);
    const review = await client.request<{ status: { allowed: boolean } }>({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'create', resource: 'pods', subresource: 'exec', namespace: 'svc-alice', name: 'main-0' } } },
    });
    expect(review.status.allowed).to.equal(false);
  });

  type Attributes = { verb: string; resource: string; subresource?: string; namespace: string };
  async function allowed(token: string, attributes: Attributes): Promise<boolean> {
    const review = await api.client(token).request<{ status: { allowed: boolean } }>({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attributes } },
    });
    return review.status.allowed;
  }

  // SPEC 1.2 rule 2 (pod/log/event reads, pods/exec), Den's Events, and SPEC 4.2 (the REST DELETE removes the
  // home PVC with the caller's own token); rule 3: the reader keeps the reads only.
  const ownerRights: [string, Omit<Attributes, 'namespace'>][] = [
    ['read pods', { verb: 'list', resource: 'pods' }],
    ['read pod logs', { verb: 'get', resource: 'pods', subresource: 'log' }],
    ['read events', { verb: 'list', resource: 'events' }],
    ['exec into a pod', { verb: 'create', resource: 'pods', subresource: 'exec' }],
    ['forward a port of a pod', { verb: 'create', resource: 'pods', subresource: 'portforward' }],
    ['delete the home PVC', { verb: 'delete', resource: 'persistentvolumeclaims' }],
    // Den's Events about what the person does are written with their own token (kube/den-events.ts).
    ['record an Event', { verb: 'create', resource: 'events' }],
    ['count a repeated Event', { verb: 'patch', resource: 'events' }],
  ];
  for (const [what, attributes] of ownerRights) {
    it(`lets the owner and the session identity ${what} in their namespace and not in another`, async () => {
      for (const token of ['alice', 'alice-session']) {
        expect(await allowed(token, { ...attributes, namespace: 'svc-alice' }), `${token} in svc-alice`).to.equal(true);
        expect(await allowed(token, { ...attributes, namespace: 'svc-bob' }), `${token} in svc-bob`).to.equal(false);
      }
      const reads = attributes.verb === 'list' || attributes.verb === 'get';
      expect(await allowed('alice-readonly', { ...attributes, namespace: 'svc-alice' }), 'session-readonly').to.equal(reads);
    });
  }

  it('lets the owner patch their own UserSpace and no other', async () => {
    const client = api.client('alice');
    const keys = { spec: { sshAuthorizedKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl'] } };
    expect(await status(client.patch(RESOURCES.userSpace, 'alice', keys, { type: 'merge' }))).to.equal(200);
    expect(await status(client.patch(RESOURCES.userSpace, 'bob', keys, { type: 'merge' }))).to.equal(403);
    expect(await status(client.get(RESOURCES.userSpace, 'bob'))).to.equal(403);
    expect(await status(client.list(RESOURCES.userSpace))).to.equal(403);
  });

  it('gives the workspace identity edit in its own namespace only', async () => {
    const client = api.client('alice-workspace');
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    expect(await status(client.create(RESOURCES.configMap, cm, 'svc-alice'))).to.equal(200);
    expect(await status(client.create(RESOURCES.configMap, cm, 'svc-bob'))).to.equal(403);
  });

  it('lets the workspace identity mint a token for session, as the built-in edit allows (docs/userspace.md, Security)', async () => {
    api.seed({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'den-admin' }, rules: [{ apiGroups: ['den.dev'], resources: ['userspaces'], verbs: ['list'] }] } as KubeObject);
    provision('alice', 'alice@example.com', { 'den.dev/role': 'admin' });
    const minted = await api.client('alice-workspace').request<{ status: { token: string } }>({
      method: 'POST',
      path: '/api/v1/namespaces/svc-alice/serviceaccounts/session/token',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
    });
    expect(await status(api.client(minted.status.token).list(RESOURCES.userSpace))).to.equal(200);
    expect(await status(api.client('alice-workspace').request({ method: 'POST', path: '/api/v1/namespaces/svc-bob/serviceaccounts/session/token', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } }))).to.equal(403);
  });

  it('takes every right away from a disabled UserSpace', async () => {
    provision('alice', 'alice@example.com', { 'den.dev/disabled': 'true' });
    expect(await status(api.client('alice').create(RESOURCES.workspace, workspace('w'), 'svc-alice'))).to.equal(403);
    expect(await status(api.client('alice-session').get(RESOURCES.userSpace, 'alice'))).to.equal(403);
    expect(await status(api.client('alice-workspace').list(RESOURCES.configMap, { namespace: 'svc-alice' }))).to.equal(403);
  });

  it('gives an administrator and their session, not their read-only token, the den-admin ClusterRole', async () => {
    api.seed({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'den-admin' },
      rules: [{ apiGroups: ['den.dev'], resources: ['userspaces'], verbs: ['get', 'list', 'watch'] }],
    } as KubeObject);
    expect(await status(api.client('alice-session').list(RESOURCES.userSpace))).to.equal(403);
    provision('alice', 'alice@example.com', { 'den.dev/role': 'admin' });
    expect(await status(api.client('alice').list(RESOURCES.userSpace))).to.equal(200);
    expect(await status(api.client('alice-session').list(RESOURCES.userSpace))).to.equal(200);
    expect(await status(api.client('alice-readonly').list(RESOURCES.userSpace))).to.equal(403);
  });
});
