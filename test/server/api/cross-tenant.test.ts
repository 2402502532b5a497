// Who may do what, through the real app (REST-core's authentication, minted tokens, CSRF) against
// RBAC rendered by the UserSpace hook: every endpoint of SPEC 4.1-4.6 with five callers. A denial
// must leave every Den object, home volume and state Secret (sessions, tokens, local users)
// exactly as it was.
import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, call, login, startCluster, startDen, type Den, type Signed } from '../core/cluster.js';
import { doc, documentedPath } from './openapi-check.js';
import { KEY, serveUserSpaceValidator } from './support.js';
import { FakeExec } from '../../support/fake-exec.js';
import { tmpdir } from 'node:os';
import { shareObjectName, shareObjects } from '../../../contract/share.js';
import { generateHostKey } from '../../../ssh/host-key.js';

/** A key alice's UserSpace does not hold yet when her read token tries to save it. */
const SECOND_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx+HcgO3kajo8CmXfZxgfXd5bhRpU0aU/5aQdcqiIW7 alice@desktop';
/** An SSH key and a git host's key, for the SSH key routes. */
const SSH_KEY = generateHostKey('alice');
const HOST_KEY = generateHostKey('git-host').publicKey.split(' ').slice(0, 2).join(' ');

type Who = 'anonymous' | 'owner' | 'other' | 'readonly' | 'admin';
const ORDER: Who[] = ['anonymous', 'owner', 'other', 'readonly', 'admin'];

interface Case {
  method: string;
  path: string;
  body?: unknown;
  /** A body that depends on the caller (their own password, say). */
  bodyFor?: (who: Who) => unknown;
  expect: Record<Who, number>;
  /** Extra check of a successful answer. */
  check?: (who: Who, body: any) => void;
}

const names = (body: any) => (body.items as KubeObject[]).map((o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name}`).sort();

const PERSON: Record<Exclude<Who, 'anonymous'>, string> = { owner: 'alice', other: 'bob', readonly: 'alice', admin: 'carol' };

// alice owns the targets; bob is another user; readonly is alice's read-scoped API token; carol is an administrator.
const CASES: Case[] = [
  // Sessions, tokens and the profile (SPEC 4.1, 4.4, 4.5): the server's own bookkeeping, always the caller's own.
  { method: 'GET', path: '/session', expect: { anonymous: 401, owner: 200, other: 200, readonly: 200, admin: 200 },
    check: (who, body) => expect(body.email).to.equal(`${PERSON[who as 'owner']}@example.com`) },
  { method: 'GET', path: '/tokens', expect: { anonymous: 401, owner: 200, other: 200, readonly: 200, admin: 200 },
    check: (who, body) => expect(body.items.map((t: { name: string }) => t.name)).to.deep.equal(who === 'owner' || who === 'readonly' ? ['ci', 'reader'] : []) },
  { method: 'POST', path: '/tokens?name=fresh', expect: { anonymous: 401, owner: 201, other: 201, readonly: 403, admin: 201 },
    check: (who, body) => expect(body.namespace).to.equal(`svc-${PERSON[who as 'owner']}`) },
  // The owner revokes alice's token; nobody else has one by that name.
  { method: 'DELETE', path: '/tokens/ci', expect: { anonymous: 401, owner: 204, other: 404, readonly: 403, admin: 404 } },
  { method: 'POST', path: '/profile/password', bodyFor: (who) => ({ current_password: `${who === 'anonymous' ? 'alice' : PERSON[who]}-password`, new_password: 'changed-password' }),
    expect: { anonymous: 401, owner: 204, other: 204, readonly: 409, admin: 204 } },
  // Each caller reads and saves keys in their own UserSpace; a read token may read only (the UserSpace webhook refuses its change: 400).
  { method: 'GET', path: '/profile/ssh-keys', expect: { anonymous: 401, owner: 200, other: 200, readonly: 200, admin: 200 } },
  { method: 'POST', path: '/profile/ssh-keys', bodyFor: (who) => ({ key: who === 'readonly' ? SECOND_KEY : KEY }), expect: { anonymous: 401, owner: 200, other: 200, readonly: 400, admin: 200 } },
  // Variables and git tokens: each caller's own Secrets; another's only as far as the cluster lets them (not at all, administrators included).
  { method: 'GET', path: '/profile/env?namespace=svc-alice', expect: { anonymous: 401, owner: 200, other: 403, readonly: 200, admin: 403 },
    check: (_, body) => expect(body.items).to.deep.equal([{ name: 'EDITOR', secret: false, value: 'vim' }, { name: 'NPM_TOKEN', secret: true }]) },
  { method: 'PUT', path: '/profile/env/NPM_TOKEN', body: { value: 'new' }, expect: { anonymous: 401, owner: 200, other: 200, readonly: 403, admin: 200 } },
  { method: 'DELETE', path: '/profile/env/EDITOR', expect: { anonymous: 401, owner: 204, other: 204, readonly: 403, admin: 204 } },
  { method: 'GET', path: '/profile/git-credentials?namespace=svc-alice', expect: { anonymous: 401, owner: 200, other: 403, readonly: 200, admin: 403 },
    check: (_, body) => expect(body.items).to.deep.equal([{ host: 'github.com', protocol: 'https', username: 'x-access-token' }]) },
  { method: 'PUT', path: '/profile/git-credentials/gitlab.com', body: { token: 'glpat-x' }, expect: { anonymous: 401, owner: 200, other: 200, readonly: 403, admin: 200 } },
  { method: 'DELETE', path: '/profile/git-credentials/github.com', expect: { anonymous: 401, owner: 204, other: 204, readonly: 403, admin: 204 } },
  { method: 'GET', path: '/profile/dotfiles?namespace=svc-alice', expect: { anonymous: 401, owner: 200, other: 403, readonly: 200, admin: 403 },
    check: (_, body) => expect(body).to.deep.equal({ url: 'https://github.com/alice/dotfiles.git' }) },
  { method: 'PUT', path: '/profile/dotfiles', body: { url: 'https://gitlab.com/me/dotfiles.git' }, expect: { anonymous: 401, owner: 200, other: 200, readonly: 403, admin: 200 } },
  { method: 'DELETE', path: '/profile/dotfiles', expect: { anonymous: 401, owner: 204, other: 204, readonly: 403, admin: 204 } },
  { method: 'PUT', path: '/profile/git-credentials/gitlab.com/ssh-key', body: { ssh_private_key: SSH_KEY.privateKey, ssh_known_host: `gitlab.com ${HOST_KEY}` }, expect: { anonymous: 401, owner: 200, other: 200, readonly: 403, admin: 200 } },
  { method: 'DELETE', path: '/profile/git-credentials/github.com/ssh-key', expect: { anonymous: 401, owner: 204, other: 204, readonly: 403, admin: 204 } },
  { method: 'POST', path: '/logout', expect: { anonymous: 401, owner: 204, other: 204, readonly: 400, admin: 204 } },
  { method: 'GET', path: '/admin/local-users', expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 200 },
    check: (_, body) => expect(body.items.map((u: { username: string }) => u.username)).to.deep.equal(['alice', 'bob', 'carol']) },
  { method: 'POST', path: '/admin/local-users', body: { username: 'dave', password: 'dave-password', owner: 'dave@example.com' }, expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 201 } },
  { method: 'DELETE', path: '/admin/local-users/bob', expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 204 } },
  // Resources (SPEC 4.2, 4.3, 4.6): the cluster's RBAC decides.
  { method: 'GET', path: '/workspaces', expect: { anonymous: 401, owner: 200, other: 200, readonly: 200, admin: 200 },
    check: (who, body) => expect(names(body)).to.deep.equal(who === 'admin' ? ['svc-alice/dev', 'svc-bob/bobs'] : who === 'other' ? ['svc-bob/bobs'] : ['svc-alice/dev']) },
  { method: 'GET', path: '/workspaces?namespace=svc-alice', expect: { anonymous: 401, owner: 200, other: 200, readonly: 200, admin: 200 },
    check: (who, body) => expect(names(body)).to.deep.equal(who === 'other' ? [] : ['svc-alice/dev']) },
  { method: 'POST', path: '/workspaces', body: { name: 'fresh', image: 'python', storage: '1Gi', ssh_public_key: KEY }, expect: { anonymous: 401, owner: 201, other: 201, readonly: 403, admin: 201 },
    check: (who, body) => expect(body.metadata.namespace).to.equal({ owner: 'svc-alice', other: 'svc-bob', admin: 'svc-carol' }[who as 'owner']) },
  { method: 'GET', path: '/workspaces/dev?namespace=svc-alice', expect: { anonymous: 401, owner: 200, other: 403, readonly: 200, admin: 200 } },
  { method: 'POST', path: '/workspaces/dev/stop?namespace=svc-alice', expect: { anonymous: 401, owner: 200, other: 403, readonly: 403, admin: 200 } },
  { method: 'POST', path: '/workspaces/dev/start?namespace=svc-alice', expect: { anonymous: 401, owner: 200, other: 403, readonly: 403, admin: 200 } },
  { method: 'PATCH', path: '/workspaces/dev/schedule?namespace=svc-alice', body: { max_running: '8h' }, expect: { anonymous: 401, owner: 200, other: 403, readonly: 403, admin: 200 } },
  { method: 'GET', path: '/workspaces/dev/logs?namespace=svc-alice&tail=1', expect: { anonymous: 401, owner: 200, other: 403, readonly: 200, admin: 200 },
    check: (_, body) => expect(body.lines).to.equal('ready\n') },
  { method: 'GET', path: '/workspaces/dev/events?namespace=svc-alice', expect: { anonymous: 401, owner: 200, other: 403, readonly: 200, admin: 200 } },
  // One exec in the pod as the caller: read-scoped tokens have no pods/exec, nor has den-admin in another's namespace.
  { method: 'GET', path: '/workspaces/dev/apps?namespace=svc-alice', expect: { anonymous: 401, owner: 200, other: 403, readonly: 403, admin: 403 },
    check: (_, body) => expect(body.listening.map((p: { port: number; preview_path: string }) => p.preview_path)).to.deep.equal(body.listening.map((p: { port: number }) => `/w/dev/ports/${p.port}/`)) },
  // Written with the caller's token: the cluster decides who may share alice's port (an administrator may change her workspace).
  { method: 'PUT', path: '/workspaces/dev/ports/3000/share?namespace=svc-alice', body: { level: 'owner' }, expect: { anonymous: 401, owner: 200, other: 403, readonly: 403, admin: 200 } },
  // Sharing (docs/sharing.md): only in the caller's own namespace. alice's dev is shared with erin (who has no UserSpace,
  // so nobody here holds more than the matrix says) at the start of each caller; test/server/api/shares.test.ts has a guest.
  { method: 'GET', path: '/workspaces/dev/shares', expect: { anonymous: 401, owner: 200, other: 404, readonly: 403, admin: 404 },
    check: (_, body) => expect(body.items.map((s: { person: string }) => s.person)).to.deep.equal(['erin']) },
  // carol is the caller herself when she is the administrator.
  { method: 'PUT', path: '/workspaces/dev/shares/carol', expect: { anonymous: 401, owner: 201, other: 404, readonly: 403, admin: 400 } },
  { method: 'DELETE', path: '/workspaces/dev/shares/erin', expect: { anonymous: 401, owner: 204, other: 404, readonly: 403, admin: 404 } },
  { method: 'GET', path: '/shared-workspaces', expect: { anonymous: 401, owner: 200, other: 200, readonly: 200, admin: 200 },
    check: (_, body) => expect(body.items).to.deep.equal([]) },
  { method: 'DELETE', path: '/workspaces/dev?namespace=svc-alice', expect: { anonymous: 401, owner: 204, other: 403, readonly: 403, admin: 204 } },
  { method: 'DELETE', path: '/workspaces/dev?namespace=svc-alice&delete_volume=false', expect: { anonymous: 401, owner: 204, other: 403, readonly: 403, admin: 204 } },
  { method: 'GET', path: '/workspace-images', expect: { anonymous: 401, owner: 200, other: 200, readonly: 200, admin: 200 },
    check: (_, body) => expect(names(body)).to.deep.equal(['/python']) },
  { method: 'GET', path: '/workspace-images/python', expect: { anonymous: 401, owner: 200, other: 200, readonly: 200, admin: 200 } },
  { method: 'POST', path: '/workspace-images', body: { name: 'go', image: 'golang:1' }, expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 201 } },
  { method: 'PATCH', path: '/workspace-images/python', body: { deprecated: true }, expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 200 } },
  { method: 'DELETE', path: '/workspace-images/python', expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 204 } },
  // The per-user ClusterRole grants nothing on ImageRegistries, so only administrators read them.
  { method: 'GET', path: '/image-registries', expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 200 } },
  { method: 'GET', path: '/image-registries/ecr', expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 200 } },
  { method: 'POST', path: '/image-registries', body: { name: 'ecr2', region: 'us-east-1' }, expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 201 } },
  { method: 'PATCH', path: '/image-registries/ecr', body: { prune: true }, expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 200 } },
  { method: 'DELETE', path: '/image-registries/ecr', expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 204 } },
  { method: 'POST', path: '/image-registries/ecr/force-sync', expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 202 } },
  { method: 'GET', path: '/admin/userspaces', expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 200 } },
  { method: 'POST', path: '/admin/userspaces', body: { name: 'dave', owner: 'dave@example.com' }, expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 201 } },
  // RBAC lets a person (and their read-only token) patch their own UserSpace, for SSH keys; the
  // UserSpace validator refuses every other change, which REST answers as 400 with its message.
  { method: 'PATCH', path: '/admin/userspaces/alice', body: { role: 'admin' }, expect: { anonymous: 401, owner: 400, other: 403, readonly: 400, admin: 200 } },
  { method: 'DELETE', path: '/admin/userspaces/alice', expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 204 } },
  { method: 'GET', path: '/admin/activity', expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 200 } },
  { method: 'GET', path: '/admin/quota', expect: { anonymous: 401, owner: 403, other: 403, readonly: 403, admin: 200 } },
  { method: 'PATCH', path: '/admin/quota/alice', body: { cpu: '64' }, expect: { anonymous: 401, owner: 400, other: 403, readonly: 400, admin: 200 } },
  { method: 'PATCH', path: '/admin/schedules/alice', body: { max_running_limit: '100h' }, expect: { anonymous: 401, owner: 400, other: 403, readonly: 400, admin: 200 } },
];

const WATCHED = [RESOURCES.workspace, RESOURCES.workspaceImage, RESOURCES.imageRegistry, RESOURCES.userSpace, RESOURCES.persistentVolumeClaim];

/** Every Den object, PVC and state Secret, without the fields a read may not change anyway. */
function snapshot(api: FakeApiServer): string {
  const objects = [...WATCHED.map((t) => api.objects(t)), api.objects(RESOURCES.secret, 'svc-system')];
  return JSON.stringify(objects.map((list) => list.map((o) => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } }))));
}

describe('cross-tenant matrix over every endpoint', () => {
  let api: FakeApiServer;
  let den: Den;
  let stopValidator: () => Promise<void>;
  let exec: FakeExec;
  const as: Partial<Record<Who, Signed | string>> = {};

  /** The world each caller meets: put back whatever an earlier caller changed or created. */
  function baseline(): void {
    for (const [ns, name] of [['svc-alice', 'fresh'], ['svc-bob', 'fresh'], ['svc-carol', 'fresh']] as const) api.remove(RESOURCES.workspace, name, ns);
    api.remove(RESOURCES.workspaceImage, 'go');
    api.remove(RESOURCES.imageRegistry, 'ecr2');
    api.remove(RESOURCES.userSpace, 'dave');
    api.remove(RESOURCES.secret, 'local-user-dave', 'svc-system');
    const ws = (name: string, namespace: string) => ({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name, namespace }, spec: { imageRef: { name: 'python' }, storage: '1Gi', sshAuthorizedKeys: [KEY], running: true }, status: { phase: 'Running' } });
    api.seed(
      ws('dev', 'svc-alice'),
      ws('bobs', 'svc-bob'),
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'home-dev-0', namespace: 'svc-alice' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'dev-0', namespace: 'svc-alice', labels: { 'den.dev/workspace': 'dev' } }, spec: { containers: [{ name: 'w', image: 'python:3.12' }] }, status: { phase: 'Running' } },
      { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'python' }, spec: { displayName: 'Python', image: 'python:3.12' } },
      { apiVersion: 'den.dev/v1alpha1', kind: 'ImageRegistry', metadata: { name: 'ecr' }, spec: { provider: 'cloud-registry', cloud: { region: 'eu-west-1' } } },
    );
    api.setPodLog('svc-alice', 'dev-0', 'booting\nready\n');
    for (const resource of [RESOURCES.role, RESOURCES.roleBinding]) api.remove(resource, shareObjectName('dev', 'carol'), 'svc-alice');
    const shared = shareObjects('alice', 'dev', 'erin');
    api.seed(shared.role as KubeObject, shared.binding as KubeObject);
    for (const ns of ['svc-alice', 'svc-bob', 'svc-carol']) {
      const b64 = (text: string) => Buffer.from(text).toString('base64');
      api.seed(
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'den-personal-env', namespace: ns, annotations: { 'den.dev/plain-names': 'EDITOR' } }, type: 'Opaque', data: { EDITOR: b64('vim'), NPM_TOKEN: b64('npm_secret') } } as KubeObject,
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'den-git-credentials', namespace: ns }, type: 'Opaque', data: { credentials: b64('https://x-access-token:ghp_x@github.com\n'), dotfiles: b64(`https://github.com/${ns.slice(4)}/dotfiles.git`), 'ssh-key.github.com': b64(SSH_KEY.privateKey), 'ssh-known-host.github.com': b64(`${HOST_KEY}\n`) } } as KubeObject,
      );
    }
  }

  beforeEach(async () => {
    api = await startCluster();
    stopValidator = await serveUserSpaceValidator(api);
    exec = new FakeExec({ cwd: tmpdir() });
    exec.attachTo(api);
    await addPerson(api, 'alice');
    await addPerson(api, 'bob');
    await addPerson(api, 'carol', { admin: true });
    den = await startDen(api);
    as.owner = await login(den, 'alice', 'alice-password');
    as.other = await login(den, 'bob', 'bob-password');
    as.admin = await login(den, 'carol', 'carol-password');
    const issued = await call(den, 'POST', '/tokens?scope=read&name=reader', { as: as.owner });
    expect(issued.status).to.equal(201);
    as.readonly = issued.body.token as string;
    expect((await call(den, 'POST', '/tokens?name=ci', { as: as.owner })).status).to.equal(201);
    delete as.anonymous;
  });
  afterEach(async () => {
    await den.close();
    await exec.close();
    await stopValidator();
    await api.close();
  });

  it('covers every operation of the OpenAPI description that needs authentication', () => {
    const covered = new Set(CASES.map((c) => `${c.method} ${documentedPath(c.path)}`));
    const authenticated = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).filter(([, op]) => !(Array.isArray(op.security) && op.security.length === 0)).map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect([...covered].sort()).to.deep.equal(authenticated.sort());
  });

  for (const c of CASES) {
    it(`${c.method} ${c.path}: ${ORDER.map((w) => `${w} ${c.expect[w]}`).join(', ')}`, async () => {
      for (const who of ORDER) {
        baseline();
        const before = snapshot(api);
        const res = await call(den, c.method, c.path, { as: as[who], body: c.bodyFor ? c.bodyFor(who) : c.body });
        expect(res.status, `${who}: ${JSON.stringify(res.body)}`).to.equal(c.expect[who]);
        if (res.status >= 400) {
          expect(res.body.error, who).to.be.a('string').and.not.equal('');
          expect(snapshot(api), `${who} was denied but something changed`).to.equal(before);
        } else {
          c.check?.(who, res.body);
          if (c.method === 'DELETE' && c.path.startsWith('/workspaces/') && !c.path.includes('/shares/')) {
            const kept = api.object(RESOURCES.persistentVolumeClaim, 'home-dev-0', 'svc-alice') !== undefined;
            expect(kept, `${who}: home volume kept`).to.equal(c.path.includes('delete_volume=false'));
          }
        }
        // A refusal names the caller's identity as the cluster sees it; only the server's own token records refuse a read-scoped token themselves.
        if (res.status === 403) expect(res.body.error, who).to.match(/User "system:serviceaccount:svc-(alice|bob|carol):session(-readonly)?" cannot |^a read-scoped API token cannot /);
      }
    });
  }
});
