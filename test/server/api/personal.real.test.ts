// The person's variables and git credentials on a real kube-apiserver with Den installed: the
// manager creates the two Secrets, the person writes them with their own token, and the
// cluster's RBAC alone keeps everyone else (an administrator included) from reading them.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { realClient } from '../../support/real-kube/cluster.js';
import { sharedRealKube, type SharedRealKube } from '../../support/real-kube/shared.js';
import { RESOURCES } from '../../../kube/resources.js';
import { eventually, runDen } from '../../support/platform.js';
import { Rest, type Session } from '../../integration/rest.js';
import { KEY } from './support.js';
import { generateHostKey } from '../../../ssh/host-key.js';

const PASSWORD = 'personal env password';
const SECRET_VALUE = `npm_${randomBytes(8).toString('hex')}`;
const TOKEN = `ghp_${randomBytes(8).toString('hex')}`;

describe("a person's variables and git credentials on a real API server", function () {
  this.timeout(180_000);
  const suffix = randomBytes(3).toString('hex');
  const [alice, bob, carol] = ['alice', 'bob', 'carol'].map((n) => `${n}-${suffix}`) as [string, string, string];
  let shared: SharedRealKube;
  let rest: Rest;
  const sessions: Record<string, Session> = {};

  before(async function () {
    this.timeout(240_000);
    shared = await sharedRealKube();
    rest = new Rest(shared.den.baseUrl);
    for (const [name, admin] of [[alice, false], [bob, false], [carol, true]] as const) {
      const added = await runDen(['users', 'add', name, '--owner', `${name}@example.com`, '--password-stdin', '--wait', '90s', '--kubeconfig', shared.den.kubeconfig, ...(admin ? ['--admin'] : [])], { stdin: `${PASSWORD}\n`, timeoutMs: 120_000 });
      expect(added.code, added.stderr).to.equal(0);
      sessions[name] = await rest.login(name, PASSWORD);
    }
  });

  after(async () => {
    const admin = realClient(shared.kube);
    for (const name of [alice, bob, carol]) await admin.delete(RESOURCES.userSpace, name).catch(() => undefined);
  });

  it('the manager has created both Secrets empty in the new namespace, and alice keeps a secret variable and a token in them', async () => {
    const admin = realClient(shared.kube);
    await eventually(async () => Boolean(await admin.getIfExists(RESOURCES.secret, 'den-personal-env', `svc-${alice}`)), 'den-personal-env created', 30_000);
    const put = await rest.call('PUT', '/profile/env/NPM_TOKEN', { body: { value: SECRET_VALUE }, as: { session: sessions[alice]! } });
    expect(put).to.deep.include({ status: 200, body: { name: 'NPM_TOKEN', secret: true } });
    const git = await rest.call('PUT', '/profile/git-credentials/github.com', { body: { token: TOKEN }, as: { session: sessions[alice]! } });
    expect(git).to.deep.include({ status: 200, body: { host: 'github.com', protocol: 'https', username: 'x-access-token' } });
    expect((await rest.call('GET', '/profile/env', { as: { session: sessions[alice]! } })).body).to.deep.equal({ items: [{ name: 'NPM_TOKEN', secret: true }] });
    const secret = await admin.get<{ data: Record<string, string>; metadata: { labels: Record<string, string> } }>(RESOURCES.secret, 'den-personal-env', `svc-${alice}`);
    expect(Buffer.from(secret.data.NPM_TOKEN!, 'base64').toString()).to.equal(SECRET_VALUE);
    expect(secret.metadata.labels).to.include({ 'den.dev/personal': 'env', 'den.dev/userspace': alice });
  });

  it('alice keeps an SSH key for a git host with her own token: two keys of den-git-credentials, listed by their public half only', async () => {
    const admin = realClient(shared.kube);
    const key = generateHostKey('alice');
    const hostKey = generateHostKey('git-host').publicKey.split(' ').slice(0, 2).join(' ');
    const put = await rest.call('PUT', '/profile/git-credentials/git.example.com:2222/ssh-key', { body: { ssh_private_key: key.privateKey, ssh_known_host: `[git.example.com]:2222 ${hostKey}` }, as: { session: sessions[alice]! } });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect(put.body).to.include({ host: 'git.example.com:2222', public_key: key.publicKey.split(' ').slice(0, 2).join(' ') });
    const secret = await admin.get<{ data: Record<string, string> }>(RESOURCES.secret, 'den-git-credentials', `svc-${alice}`);
    expect(Buffer.from(secret.data['ssh-key.git.example.com_2222']!, 'base64').toString()).to.equal(`${key.privateKey.trim()}\n`);
    expect(Buffer.from(secret.data['ssh-known-host.git.example.com_2222']!, 'base64').toString()).to.equal(`[git.example.com]:2222 ${hostKey}\n`);
    const list = await rest.call('GET', '/profile/git-credentials', { as: { session: sessions[alice]! } });
    expect(list.body.ssh_keys.map((k: { host: string }) => k.host)).to.deep.equal(['git.example.com:2222']);
    expect(JSON.stringify(list.body)).to.not.include(key.privateKey.split('\n')[1]);
  });

  for (const [who, what] of [[() => bob, 'another person'], [() => carol, 'an administrator']] as const) {
    it(`answers ${what}'s request for alice's variables and credentials with the cluster's 403, verbatim`, async () => {
      const name = who();
      for (const [path, secret] of [['/profile/env', 'den-personal-env'], ['/profile/git-credentials', 'den-git-credentials']]) {
        const res = await rest.call('GET', `${path}?namespace=svc-${alice}`, { as: { session: sessions[name]! } });
        expect(res.status, JSON.stringify(res.body)).to.equal(403);
        expect(res.body.error).to.equal(`secrets "${secret}" is forbidden: User "system:serviceaccount:svc-${name}:session" cannot get resource "secrets" in API group "" in the namespace "svc-${alice}"`);
      }
    });
  }

  it("gives alice's own token no other Secret of her namespace: a mirrored or hand-made one is the cluster's 403", async () => {
    const admin = realClient(shared.kube);
    await admin.create(RESOURCES.secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'other', namespace: `svc-${alice}` }, stringData: { x: 'y' } } as never, `svc-${alice}`);
    const minted = await admin.request<{ status: { token: string } }>({ method: 'POST', path: `/api/v1/namespaces/svc-${alice}/serviceaccounts/session/token`, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } } });
    const asAlice = realClient(shared.kube, minted.status.token);
    const refused = await asAlice.get(RESOURCES.secret, 'other', `svc-${alice}`).catch((err: Error & { status?: number }) => err);
    expect((refused as { status?: number }).status).to.equal(403);
    const created = await asAlice.create(RESOURCES.secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'mine' } } as never, `svc-${alice}`).catch((err: Error & { status?: number }) => err);
    expect((created as { status?: number }).status).to.equal(403);
  });

  it("has the API server accept her workspace's pod template with her variables and git credentials in it", async () => {
    const admin = realClient(shared.kube);
    const image = `shell-${suffix}`;
    await admin.create(RESOURCES.workspaceImage, { apiVersion: RESOURCES.workspaceImage.apiVersion, kind: 'WorkspaceImage', metadata: { name: image }, spec: { displayName: 'Shell', image: 'docker.io/library/debian:12' } });
    try {
      const created = await rest.call('POST', '/workspaces', { body: { name: 'dev', image, cpu: '100m', memory: '128Mi', storage: '1Gi', ssh_public_key: KEY }, as: { session: sessions[alice]! } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const statefulSet = await eventually(() => admin.getIfExists<any>(RESOURCES.statefulSet, 'dev', `svc-${alice}`), 'StatefulSet dev applied', 30_000);
      const pod = statefulSet.spec.template.spec;
      expect(pod.containers[0].envFrom[0]).to.deep.equal({ secretRef: { name: 'den-personal-env', optional: true } });
      expect(pod.volumes.find((v: any) => v.name === 'den-git-credentials').secret).to.deep.equal({ secretName: 'den-git-credentials', optional: true, defaultMode: 0o400 });
      expect(pod.containers[0].volumeMounts).to.deep.include({ name: 'den-git-credentials', mountPath: '/var/run/secrets/den.dev/git', readOnly: true });
    } finally {
      await admin.delete(RESOURCES.workspaceImage, image).catch(() => undefined);
    }
  });

  it('leaves the value in no Event of her namespace', async () => {
    const events = await realClient(shared.kube).list(RESOURCES.event, { namespace: `svc-${alice}` });
    const text = JSON.stringify(events.items);
    expect(text).to.not.include(SECRET_VALUE);
    expect(text).to.not.include(TOKEN);
  });
});
