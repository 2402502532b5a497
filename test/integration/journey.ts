// The person's journey through the whole platform, written once and run in two places:
// on this machine against the real `den` processes and a fake API server
// (platform.test.ts) and against a real cluster (test/e2e/platform.e2e.ts). Every step
// asserts what a person notices: an exit code and a line from `den users add`, a REST
// status and message, an object in the cluster, bytes and an exit code over SSH.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { KubeObject } from '../../kube/client.js';
import { isNotFound } from '../../kube/errors.js';
import { ANNOTATIONS, LABELS, SYSTEM_NAMESPACE, homeClaimName, userNamespace } from '../../kube/group.js';
import { RESOURCES, type ResourceType } from '../../kube/resources.js';
import { eventually, gone, runCommand, runDen, UNPULLABLE_REGISTRY, type CommandResult, type PlatformEnvironment } from '../support/platform.js';

const execFileAsync = promisify(execFile);

type Json = Record<string, any>;

/** The names one run uses; the suffix keeps runs on a shared cluster apart. */
export interface JourneyNames {
  admin: string;
  alice: string;
  bob: string;
  image: string;
  workspace: string;
  password: string;
}

export function journeyNames(suffix: string): JourneyNames {
  return {
    admin: `admin-${suffix}`,
    alice: `alice-${suffix}`,
    bob: `bob-${suffix}`,
    image: `ubuntu-${suffix}`,
    workspace: `dev-${suffix}`,
    password: `correct horse ${suffix} battery`,
  };
}

export interface RestAnswer {
  status: number;
  body: Json;
  headers: Headers;
}

/** A signed-in browser-like caller: the session cookie and the CSRF token from the login answer. */
export interface Session {
  cookie: string;
  csrf: string;
}

export type Credential = { session: Session; csrf?: boolean } | { token: string } | undefined;

/** REST as a script with curl would use it. */
export class Rest {
  constructor(private readonly baseUrl: string) {}

  async call(method: string, path: string, opts: { body?: unknown; as?: Credential } = {}): Promise<RestAnswer> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    const as = opts.as;
    if (as && 'session' in as) {
      headers.Cookie = as.session.cookie;
      if (as.csrf !== false) headers['X-CSRF-Token'] = as.session.csrf;
    } else if (as && 'token' in as) {
      headers.Authorization = `Bearer ${as.token}`;
    }
    const res = await fetch(`${this.baseUrl}/api/v1${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    let body: Json = {};
    if (text) {
      try {
        body = JSON.parse(text) as Json;
      } catch {
        body = { text };
      }
    }
    return { status: res.status, body, headers: res.headers };
  }

  async login(username: string, password: string): Promise<Session> {
    const answer = await this.call('POST', '/login', { body: { username, password } });
    expect(answer.status, `login of ${username}: ${JSON.stringify(answer.body)}`).to.equal(204);
    const cookies = answer.headers.getSetCookie().map((c) => c.split(';')[0]!);
    expect(cookies.some((c) => c.startsWith('svc_session=')), `cookies set: ${cookies.join(', ')}`).to.equal(true);
    const csrf = answer.headers.get('x-csrf-token');
    expect(csrf, 'X-CSRF-Token header of the login answer').to.be.a('string').and.not.equal('');
    return { cookie: cookies.join('; '), csrf: csrf! };
  }
}

/** `ssh` as a person runs it: their key only, no agent, no prompts, the gateway's host key accepted on first use. */
export function sshOptions(env: Pick<PlatformEnvironment, 'ssh'>, keyFile: string): string[] {
  return [
    '-F', '/dev/null',
    '-i', keyFile,
    '-p', String(env.ssh.port),
    '-o', 'IdentitiesOnly=yes',
    '-o', 'IdentityAgent=none',
    '-o', 'BatchMode=yes',
    '-o', 'StrictHostKeyChecking=no',
    '-o', 'UserKnownHostsFile=/dev/null',
    '-o', 'ConnectTimeout=10',
  ];
}

export function ssh(env: PlatformEnvironment, keyFile: string, user: string, command: string): Promise<CommandResult> {
  return runCommand('ssh', [...sshOptions(env, keyFile), `${user}@${env.ssh.host}`, command], { timeoutMs: 30_000 });
}

/**
 * Defines the journey's steps (mocha `it`s, in order, each relying on the ones before) in
 * the caller's `describe`. `getEnv` is called once the caller's `before` has run.
 */
export function platformJourney(getEnv: () => PlatformEnvironment): void {
  let env: PlatformEnvironment;
  let names: JourneyNames;
  let rest: Rest;
  let keys = '';
  let aliceKey = { file: '', publicKey: '' };
  let otherKey = { file: '', publicKey: '' };
  let admin: Session;
  let alice: Session;
  let bob: Session;

  const cluster = <T = Json>(t: ResourceType, name: string, namespace?: string) => env.admin.get<T>(t, name, namespace);
  const aliceNs = () => userNamespace(names.alice);
  /** Adds the processes' recent output to a failing assertion's message. */
  const diagnose = async (step: () => Promise<void>) => {
    try {
      await step();
    } catch (err) {
      const said = await env.diagnostics().catch((e: Error) => `(could not collect: ${e.message})`);
      if (said && err instanceof Error) err.message += `\n--- what the platform said ---\n${said}`;
      throw err;
    }
  };

  before(async () => {
    env = getEnv();
    names = journeyNames(env.suffix);
    rest = new Rest(env.baseUrl);
    keys = await mkdtemp(join(tmpdir(), 'den-journey-keys-'));
    const keygen = async (name: string) => {
      const file = join(keys, name);
      await execFileAsync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${name}@journey`, '-f', file]);
      return { file, publicKey: (await readFile(`${file}.pub`, 'utf8')).trim() };
    };
    aliceKey = await keygen('alice');
    otherKey = await keygen('other');
  });

  after(async () => {
    if (keys) await rm(keys, { recursive: true, force: true });
  });

  // Each step stands on the ones before: after the first failure the rest would only repeat
  // it (each after a full wait), so they are skipped and the first failure stays readable.
  let failedStep: string | undefined;
  let toldWhy = false;
  beforeEach(function () {
    if (!failedStep) return;
    if (!toldWhy) console.log(`    (the steps below are skipped: "${failedStep}" failed)`);
    toldWhy = true;
    this.skip();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failedStep ??= this.currentTest.title;
  });

  it('den users add creates an administrator and two people from a password on stdin', () =>
    diagnose(async () => {
      for (const [name, admin] of [[names.admin, true], [names.alice, false], [names.bob, false]] as const) {
        const args = ['users', 'add', name, '--owner', `${name}@example.com`, '--password-stdin', '--kubeconfig', env.kubeconfig, ...(admin ? ['--admin'] : [])];
        const result = await runDen(args, { stdin: `${names.password}\n` });
        expect(result.stderr, `den ${args.join(' ')}`).to.equal('');
        expect(result.code).to.equal(0);
        expect(result.stdout).to.include(`created UserSpace ${name}`).and.include(`role ${admin ? 'admin' : 'user'}`).and.include(`namespace ${userNamespace(name)}`);
      }
      const again = await runDen(['users', 'add', names.alice, '--owner', `${names.alice}@example.com`, '--password-stdin', '--kubeconfig', env.kubeconfig], { stdin: `${names.password}\n` });
      expect(again.code, 'adding the same person twice').to.equal(1);
      expect(again.stderr).to.include(`UserSpace ${names.alice} already exists; nothing was changed`);
    }));

  it("the manager provisions each person's namespace, quota and RBAC", () =>
    diagnose(async () => {
      for (const name of [names.admin, names.alice, names.bob]) {
        const space = await eventually(async () => {
          const us = await cluster(RESOURCES.userSpace, name);
          return us.status?.phase === 'Ready' && us;
        }, `UserSpace ${name} Ready`, env.convergeMs);
        expect(space.status.namespace).to.equal(userNamespace(name));
        expect(space.metadata.labels?.[LABELS.role]).to.equal(name === names.admin ? 'admin' : 'user');
      }
      const ns = aliceNs();
      await cluster(RESOURCES.namespace, ns);
      const quota = await cluster(RESOURCES.resourceQuota, 'svc-quota', ns);
      expect(quota.spec.hard).to.include({ 'requests.cpu': '4', 'requests.memory': '8Gi', 'requests.storage': '50Gi' });
      const owner = await cluster(RESOURCES.roleBinding, 'svc-owner', ns);
      expect(owner.subjects).to.deep.include({ kind: 'ServiceAccount', name: 'session', namespace: ns });
      expect(owner.roleRef.name).to.equal('svc-workspace-user');
      const reader = await cluster(RESOURCES.roleBinding, 'svc-reader', ns);
      expect(reader.subjects).to.deep.include({ kind: 'ServiceAccount', name: 'session-readonly', namespace: ns });
      const clusterRole = await cluster(RESOURCES.clusterRole, `svc-userspace-${names.alice}`);
      expect(clusterRole.rules).to.deep.include({ apiGroups: ['den.dev'], resources: ['userspaces'], resourceNames: [names.alice], verbs: ['get', 'watch', 'patch'] });
    }));

  it('refuses a wrong password with 401 and no cookie', () =>
    diagnose(async () => {
      const answer = await rest.call('POST', '/login', { body: { username: names.alice, password: 'not the password' } });
      expect(answer.status).to.equal(401);
      expect(answer.body.error).to.be.a('string').and.not.equal('');
      expect(answer.headers.getSetCookie().filter((c) => c.startsWith('svc_session=') && !/svc_session=;/.test(c))).to.deep.equal([]);
    }));

  it('the administrator signs in and adds a catalog entry', () =>
    diagnose(async () => {
      admin = await rest.login(names.admin, names.password);
      const session = await rest.call('GET', '/session', { as: { session: admin } });
      expect(session.status).to.equal(200);
      expect(session.body).to.include({ userspace: names.admin, namespace: userNamespace(names.admin), role: 'admin' });
      const entry = { name: names.image, image: env.workspaceImage, display_name: `Ubuntu (${env.suffix})`, tags: ['journey'] };
      const withoutCsrf = await rest.call('POST', '/workspace-images', { body: entry, as: { session: admin, csrf: false } });
      expect(withoutCsrf.status, 'a cookie request without X-CSRF-Token').to.equal(403);
      expect(withoutCsrf.body.error).to.include('X-CSRF-Token');
      const created = await rest.call('POST', '/workspace-images', { body: entry, as: { session: admin } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.spec).to.include({ image: env.workspaceImage, displayName: entry.display_name });
      const stored = await cluster(RESOURCES.workspaceImage, names.image);
      expect(stored.spec.image).to.equal(env.workspaceImage);
    }));

  it('a person signs in, sees the entry in the catalog and cannot change the catalog', () =>
    diagnose(async () => {
      alice = await rest.login(names.alice, names.password);
      const catalog = await rest.call('GET', '/workspace-images', { as: { session: alice } });
      expect(catalog.status).to.equal(200);
      expect(catalog.body.items.map((i: KubeObject) => i.metadata?.name)).to.include(names.image);
      const refused = await rest.call('POST', '/workspace-images', { body: { name: `${names.image}-x`, image: env.workspaceImage }, as: { session: alice } });
      expect(refused.status).to.equal(403);
      expect(refused.body.error).to.include(`User "system:serviceaccount:${aliceNs()}:session" cannot create resource "workspaceimages" in API group "den.dev"`);
    }));

  it('creating a workspace with a real SSH key answers 201, stamped with who asked', () =>
    diagnose(async () => {
      const created = await rest.call('POST', '/workspaces', {
        body: { name: names.workspace, image: names.image, cpu: '500m', memory: '512Mi', storage: '1Gi', ssh_public_key: aliceKey.publicKey },
        as: { session: alice },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.metadata).to.include({ name: names.workspace, namespace: aliceNs() });
      expect(created.body.metadata.annotations?.[ANNOTATIONS.requester]).to.equal(`system:serviceaccount:${aliceNs()}:session`);
      expect(created.body.spec.sshAuthorizedKeys).to.deep.equal([aliceKey.publicKey]);
      expect(created.body.spec.running, 'the CRD default of spec.running').to.equal(true);
      const again = await rest.call('POST', '/workspaces', {
        body: { name: names.workspace, image: names.image, storage: '1Gi', ssh_public_key: aliceKey.publicKey },
        as: { session: alice },
      });
      // The validating webhook refuses it (400); only if its cache has not seen the first one yet
      // does the API server's storage answer AlreadyExists (409).
      expect(again.status, `the same name twice: ${JSON.stringify(again.body)}`).to.be.oneOf([400, 409]);
      expect(again.body.error).to.include(names.workspace).and.include('already exists');
    }));

  it("refuses a workspace that would exceed the person's quota, naming the quota", () =>
    diagnose(async () => {
      const name = `${names.workspace}-big`;
      const refused = await rest.call('POST', '/workspaces', {
        body: { name, image: names.image, cpu: '5', memory: '512Mi', storage: '1Gi', ssh_public_key: aliceKey.publicKey },
        as: { session: alice },
      });
      // A quota refusal is a 403, as the API server's own ResourceQuota admission answers (DESIGN.md).
      expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
      expect(refused.body.error).to.include(`exceeded quota of UserSpace "${names.alice}" (spec.quota.cpu)`);
      expect(await gone(cluster(RESOURCES.workspace, name, aliceNs()))).to.equal(true);
    }));

  it('the manager creates the Service and the StatefulSet, and the workspace becomes Running', () =>
    diagnose(async () => {
      const ns = aliceNs();
      const sts = await eventually(() => cluster(RESOURCES.statefulSet, names.workspace, ns), `StatefulSet ${names.workspace}`, env.convergeMs);
      expect(sts.spec.replicas).to.equal(1);
      expect(sts.spec.template.metadata.labels[LABELS.workspace]).to.equal(names.workspace);
      expect(sts.metadata.ownerReferences?.[0]).to.include({ kind: 'Workspace', name: names.workspace, controller: true });
      const svc = await eventually(() => cluster(RESOURCES.service, names.workspace, ns), `Service ${names.workspace}`, env.convergeMs);
      expect(svc.spec.clusterIP).to.equal('None');
      const ws = await eventually(async () => {
        const answer = await rest.call('GET', `/workspaces/${names.workspace}`, { as: { session: alice } });
        return answer.status === 200 && answer.body.status?.phase === 'Running' && answer.body;
      }, `workspace ${names.workspace} Running`, env.convergeMs);
      expect(ws.status.podName).to.equal(`${names.workspace}-0`);
      expect(ws.status.endpoint).to.match(new RegExp(`^${names.workspace}@\\S+$`));
      const pod = await cluster(RESOURCES.pod, `${names.workspace}-0`, ns);
      expect(pod.metadata.labels[LABELS.workspace]).to.equal(names.workspace);
      await cluster(RESOURCES.persistentVolumeClaim, homeClaimName(names.workspace), ns);
    }));

  it("refuses a workspace with a corrupt SSH key with 400 and the webhook's message", () =>
    diagnose(async () => {
      const name = `${names.workspace}-bad`;
      const corrupt = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIThisIsNotAKeyBlob journey@corrupt';
      const refused = await rest.call('POST', '/workspaces', { body: { name, image: names.image, storage: '1Gi', ssh_public_key: corrupt }, as: { session: alice } });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
      expect(refused.body.error).to.include('admission webhook "vworkspace.den.dev" denied the request').and.include('sshAuthorizedKeys');
      expect(await gone(cluster(RESOURCES.workspace, name, aliceNs()))).to.equal(true);
    }));

  it('ssh runs a command in the workspace and passes its output and exit code through', () =>
    diagnose(async () => {
      const result = await ssh(env, aliceKey.file, names.workspace, 'echo hello; exit 3');
      expect(result.stdout, result.stderr).to.equal('hello\n');
      expect(result.code).to.equal(3);
      const ws = await eventually(async () => {
        const w = await cluster(RESOURCES.workspace, names.workspace, aliceNs());
        return typeof w.status?.lastActivityTime === 'string' && w;
      }, 'status.lastActivityTime from the gateway', env.convergeMs);
      expect(Date.parse(ws.status.lastActivityTime)).to.be.a('number').and.not.NaN;
    }));

  it('ssh -tt gives an interactive login shell on a terminal', () =>
    diagnose(async () => {
      const result = await runCommand(
        'ssh',
        ['-tt', ...sshOptions(env, aliceKey.file), `${names.workspace}@${env.ssh.host}`],
        { stdin: 'echo "answer=$((6*7)) tty=$(test -t 0 && echo yes)"\nexit 4\n', timeoutMs: 30_000 },
      );
      expect(result.stdout, result.stderr).to.include('answer=42 tty=yes');
      expect(result.code).to.equal(4);
    }));

  it("the workspace's logs are read with the person's own token", () =>
    diagnose(async () => {
      const logs = await rest.call('GET', `/workspaces/${names.workspace}/logs?tail=5`, { as: { session: alice } });
      expect(logs.status, JSON.stringify(logs.body)).to.equal(200);
      expect(logs.body).to.include({ namespace: aliceNs(), pod: `${names.workspace}-0` });
      const written = env.podLog?.(`${names.workspace}-0`);
      if (written) expect(logs.body.lines).to.equal(`${written.trimEnd().split('\n').slice(-5).join('\n')}\n`);
      else expect((logs.body.lines as string).trimEnd().split('\n').length, 'lines of ?tail=5').to.be.at.most(5);
      const bad = await rest.call('GET', `/workspaces/${names.workspace}/logs?tail=0`, { as: { session: alice } });
      expect(bad.status).to.equal(400);
      expect(bad.body.error).to.include('tail');
    }));

  it('ssh with a key the workspace does not list is refused', () =>
    diagnose(async () => {
      const result = await ssh(env, otherKey.file, names.workspace, 'echo hello');
      expect(result.code).to.equal(255);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.include('Permission denied');
    }));

  it('the gateway refuses a pod relabelled by hand, and connects again once the label is back', () =>
    diagnose(async () => {
      const pod = `${names.workspace}-0`;
      const relabel = (value: string) => env.admin.patch(RESOURCES.pod, pod, { metadata: { labels: { [LABELS.workspace]: value } } }, { namespace: aliceNs(), type: 'merge' });
      await relabel(`${names.workspace}-elsewhere`);
      try {
        const refused = await ssh(env, aliceKey.file, names.workspace, 'echo hello');
        expect(refused.code).to.equal(255);
        expect(refused.stdout).to.equal('');
        // Which check notices first depends on whether the manager has re-read the pod yet.
        expect(refused.stderr).to.satisfy(
          (text: string) => text.includes(`pod ${pod} does not carry the label ${LABELS.workspace}=${names.workspace}; refusing to connect`) || text.includes(`workspace ${names.workspace} is Starting`),
          refused.stderr,
        );
      } finally {
        await relabel(names.workspace);
      }
      const back = await eventually(async () => {
        const result = await ssh(env, aliceKey.file, names.workspace, 'echo hello');
        return result.code === 0 && result;
      }, 'SSH to work again', env.convergeMs, 500);
      expect(back.stdout).to.equal('hello\n');
    }));

  it("another person can neither see nor delete the first person's workspace", () =>
    diagnose(async () => {
      bob = await rest.login(names.bob, names.password);
      const list = await rest.call('GET', '/workspaces', { as: { session: bob } });
      expect(list.status).to.equal(200);
      expect(list.body.items.map((w: KubeObject) => w.metadata?.name)).to.not.include(names.workspace);
      const own = await rest.call('GET', `/workspaces/${names.workspace}`, { as: { session: bob } });
      expect(own.status, 'looked up in their own namespace').to.equal(404);
      const other = await rest.call('GET', `/workspaces/${names.workspace}?namespace=${aliceNs()}`, { as: { session: bob } });
      expect(other.status).to.equal(403);
      const bobUser = `system:serviceaccount:${userNamespace(names.bob)}:session`;
      expect(other.body.error).to.equal(`workspaces.den.dev "${names.workspace}" is forbidden: User "${bobUser}" cannot get resource "workspaces" in API group "den.dev" in the namespace "${aliceNs()}"`);
      const del = await rest.call('DELETE', `/workspaces/${names.workspace}?namespace=${aliceNs()}`, { as: { session: bob } });
      expect(del.status).to.equal(403);
      expect(del.body.error).to.include(`User "${bobUser}" cannot delete resource "workspaces"`);
      await cluster(RESOURCES.workspace, names.workspace, aliceNs());
    }));

  it('a person who is not an administrator is refused the administration endpoints with the cluster\'s message', () =>
    diagnose(async () => {
      const list = await rest.call('GET', '/admin/userspaces', { as: { session: alice } });
      expect(list.status).to.equal(403);
      expect(list.body.error).to.include(`User "system:serviceaccount:${aliceNs()}:session" cannot list resource "userspaces" in API group "den.dev" at the cluster scope`);
      const del = await rest.call('DELETE', `/admin/userspaces/${names.bob}`, { as: { session: alice } });
      expect(del.status).to.equal(403);
      await cluster(RESOURCES.userSpace, names.bob);
    }));

  it("the administrator sees everyone's workspaces", () =>
    diagnose(async () => {
      const list = await rest.call('GET', '/workspaces', { as: { session: admin } });
      expect(list.status, JSON.stringify(list.body)).to.equal(200);
      const found = list.body.items.find((w: KubeObject) => w.metadata?.name === names.workspace);
      expect(found?.metadata?.namespace).to.equal(aliceNs());
      const one = await rest.call('GET', `/workspaces/${names.workspace}?namespace=${aliceNs()}`, { as: { session: admin } });
      expect(one.status).to.equal(200);
      expect(one.body.status.phase).to.equal('Running');
    }));

  it('a read-scoped API token lists workspaces but cannot create one', () =>
    diagnose(async () => {
      const issued = await rest.call('POST', '/tokens?scope=read', { as: { session: alice } });
      expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
      expect(issued.body.token).to.match(/^svc_/);
      const token = issued.body.token as string;
      const list = await rest.call('GET', '/workspaces', { as: { token } });
      expect(list.status).to.equal(200);
      expect(list.body.items.map((w: KubeObject) => w.metadata?.name)).to.include(names.workspace);
      const create = await rest.call('POST', '/workspaces', {
        body: { name: `${names.workspace}-ro`, image: names.image, storage: '1Gi', ssh_public_key: aliceKey.publicKey },
        as: { token },
      });
      expect(create.status).to.equal(403);
      expect(create.body.error).to.include(`User "system:serviceaccount:${aliceNs()}:session-readonly" cannot create resource "workspaces"`);
      const listed = await rest.call('GET', '/tokens', { as: { session: alice } });
      expect(listed.status).to.equal(200);
      const record = listed.body.items.find((t: Json) => t.name === issued.body.name);
      expect(record, 'the token in GET /tokens').to.not.equal(undefined);
      expect(record).to.not.have.property('token');
      const revoked = await rest.call('DELETE', `/tokens/${encodeURIComponent(issued.body.name)}`, { as: { session: alice } });
      expect(revoked.status).to.equal(204);
      const after = await rest.call('GET', '/workspaces', { as: { token } });
      expect(after.status, 'the revoked token at once').to.equal(401);
    }));

  it('a workspace whose image cannot be pulled is Failed with a message naming the image, and Pending once its entry is gone', () =>
    diagnose(async () => {
      const entry = `${names.image}-broken`;
      const image = `${UNPULLABLE_REGISTRY}/den-journey/missing:${env.suffix}`;
      const name = `${names.workspace}-broken`;
      const added = await rest.call('POST', '/workspace-images', { body: { name: entry, image, display_name: 'Cannot be pulled' }, as: { session: admin } });
      expect(added.status, JSON.stringify(added.body)).to.equal(201);
      const created = await rest.call('POST', '/workspaces', { body: { name, image: entry, storage: '1Gi', ssh_public_key: aliceKey.publicKey }, as: { session: alice } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const failed = await eventually(async () => {
        const answer = await rest.call('GET', `/workspaces/${name}`, { as: { session: alice } });
        return answer.body.status?.phase === 'Failed' && answer.body;
      }, `workspace ${name} Failed`, env.convergeMs);
      const readyCondition = failed.status.conditions.find((c: Json) => c.type === 'Ready');
      expect(readyCondition.status).to.equal('False');
      expect(readyCondition.message).to.include(image);
      const removed = await rest.call('DELETE', `/workspace-images/${entry}`, { as: { session: admin } });
      expect(removed.status).to.equal(204);
      const pending = await eventually(async () => {
        const answer = await rest.call('GET', `/workspaces/${name}`, { as: { session: alice } });
        return answer.body.status?.phase === 'Pending' && answer.body;
      }, `workspace ${name} Pending`, env.convergeMs);
      expect(pending.status.conditions.find((c: Json) => c.type === 'ImageResolved')).to.include({ status: 'False' });
      const kept = await rest.call('DELETE', `/workspaces/${name}?delete_volume=false`, { as: { session: alice } });
      expect(kept.status, 'delete keeping the volume').to.equal(204);
      await eventually(() => gone(cluster(RESOURCES.workspace, name, aliceNs())), `workspace ${name} to go`, env.convergeMs);
      await cluster(RESOURCES.persistentVolumeClaim, homeClaimName(name), aliceNs());
    }));

  it('stopping suspends the workspace, keeps its home volume, and SSH is refused with a clear message', () =>
    diagnose(async () => {
      const stopped = await rest.call('POST', `/workspaces/${names.workspace}/stop`, { as: { session: alice } });
      expect(stopped.status, JSON.stringify(stopped.body)).to.equal(200);
      expect(stopped.body.spec.running).to.equal(false);
      await eventually(async () => {
        const answer = await rest.call('GET', `/workspaces/${names.workspace}`, { as: { session: alice } });
        return answer.body.status?.phase === 'Suspended';
      }, `workspace ${names.workspace} Suspended`, env.convergeMs);
      const sts = await cluster(RESOURCES.statefulSet, names.workspace, aliceNs());
      expect(sts.spec.replicas).to.equal(0);
      await eventually(() => gone(cluster(RESOURCES.pod, `${names.workspace}-0`, aliceNs())), 'the pod to go', env.convergeMs);
      await cluster(RESOURCES.persistentVolumeClaim, homeClaimName(names.workspace), aliceNs());
      const result = await ssh(env, aliceKey.file, names.workspace, 'echo hello');
      expect(result.code).to.equal(255);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.include(`workspace ${names.workspace} is Suspended; start it first`);
      const logs = await rest.call('GET', `/workspaces/${names.workspace}/logs`, { as: { session: alice } });
      expect(logs.status).to.equal(409);
      expect(logs.body.error).to.include('start it first');
    }));

  it('starting again brings the workspace back to Running and SSH works again', () =>
    diagnose(async () => {
      const started = await rest.call('POST', `/workspaces/${names.workspace}/start`, { as: { session: alice } });
      expect(started.status, JSON.stringify(started.body)).to.equal(200);
      expect(started.body.spec.running).to.equal(true);
      await eventually(async () => {
        const answer = await rest.call('GET', `/workspaces/${names.workspace}`, { as: { session: alice } });
        return answer.body.status?.phase === 'Running';
      }, `workspace ${names.workspace} Running again`, env.convergeMs);
      const result = await ssh(env, aliceKey.file, names.workspace, 'echo back');
      expect(result.stdout, result.stderr).to.equal('back\n');
      expect(result.code).to.equal(0);
    }));

  it("the workspace's activity names alice for the stop and the start, an administrator reads it across namespaces, and alice may not", () =>
    diagnose(async () => {
      const mine = await rest.call('GET', `/workspaces/${names.workspace}/events?kind=lifecycle`, { as: { session: alice } });
      expect(mine.status, JSON.stringify(mine.body)).to.equal(200);
      expect(mine.body.items.map((e: Json) => `${e.reason} ${e.person}`)).to.include.members(['Started ' + names.alice, 'Stopped ' + names.alice]);
      expect(mine.body.items.find((e: Json) => e.reason === 'Stopped').message).to.equal(`Stopped by ${names.alice}; the home volume is kept.`);
      const all = await rest.call('GET', `/admin/activity?person=${names.alice}&workspace=${names.workspace}`, { as: { session: admin } });
      expect(all.status, JSON.stringify(all.body)).to.equal(200);
      expect(all.body.items.map((e: Json) => `${e.namespace} ${e.reason}`)).to.include.members([`${aliceNs()} Started`, `${aliceNs()} Stopped`]);
      const refused = await rest.call('GET', '/admin/activity', { as: { session: alice } });
      expect(refused.status).to.equal(403);
      expect(refused.body.error).to.include('cannot list resource "events"');
    }));

  it('deleting the workspace (delete_volume by default) removes it and its home volume', () =>
    diagnose(async () => {
      const deleted = await rest.call('DELETE', `/workspaces/${names.workspace}`, { as: { session: alice } });
      expect(deleted.status, JSON.stringify(deleted.body)).to.equal(204);
      await eventually(async () => (await rest.call('GET', `/workspaces/${names.workspace}`, { as: { session: alice } })).status === 404, 'GET to answer 404', env.convergeMs);
      await eventually(() => gone(cluster(RESOURCES.persistentVolumeClaim, homeClaimName(names.workspace), aliceNs())), 'the home PVC to go', env.convergeMs);
      await eventually(() => gone(cluster(RESOURCES.statefulSet, names.workspace, aliceNs())), 'the StatefulSet to go', env.convergeMs);
    }));

  it("the administrator changes a person's quota and the manager applies it to the namespace", () =>
    diagnose(async () => {
      const patched = await rest.call('PATCH', `/admin/quota/${names.alice}`, { body: { cpu: '2', workspaces: 2 }, as: { session: admin } });
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      expect(patched.body).to.include({ cpu: '2', memory: '8Gi', storage: '50Gi', workspaces: 2 });
      await eventually(async () => {
        const quota = await cluster(RESOURCES.resourceQuota, 'svc-quota', aliceNs());
        return quota.spec.hard['requests.cpu'] === '2' && quota.spec.hard['count/workspaces.den.dev'] === '2';
      }, 'svc-quota to follow the new quota', env.convergeMs);
      // RBAC lets a person patch their own UserSpace (for their SSH keys); the validating webhook refuses the rest.
      const refused = await rest.call('PATCH', `/admin/quota/${names.alice}`, { body: { cpu: '64' }, as: { session: alice } });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
      expect(refused.body.error).to.include('admission webhook "vuserspace.den.dev" denied the request').and.include('only an administrator may change');
      expect((await cluster(RESOURCES.userSpace, names.alice)).spec.quota.cpu).to.equal('2');
      const other = await rest.call('PATCH', `/admin/quota/${names.admin}`, { body: { cpu: '64' }, as: { session: alice } });
      expect(other.status).to.equal(403);
      expect(other.body.error).to.include(`cannot patch resource "userspaces" in API group "den.dev"`);
    }));

  it('a person changes their password: the old one stops working, the new one signs in', () =>
    diagnose(async () => {
      const fresh = `${names.password} renewed`;
      const wrong = await rest.call('POST', '/profile/password', { body: { current_password: 'not it', new_password: fresh }, as: { session: alice } });
      expect(wrong.status).to.equal(400);
      const changed = await rest.call('POST', '/profile/password', { body: { current_password: names.password, new_password: fresh }, as: { session: alice } });
      expect(changed.status, JSON.stringify(changed.body)).to.equal(204);
      const old = await rest.call('POST', '/login', { body: { username: names.alice, password: names.password } });
      expect(old.status).to.equal(401);
      await rest.login(names.alice, fresh);
    }));

  it("the administrator deletes a person's UserSpace: the object at once, the namespace afterwards", () =>
    diagnose(async () => {
      const deleted = await rest.call('DELETE', `/admin/userspaces/${names.bob}`, { as: { session: admin } });
      expect(deleted.status, JSON.stringify(deleted.body)).to.equal(204);
      await eventually(() => gone(cluster(RESOURCES.userSpace, names.bob)), `UserSpace ${names.bob} to go`, env.convergeMs);
      await eventually(() => gone(cluster(RESOURCES.namespace, userNamespace(names.bob))), `namespace ${userNamespace(names.bob)} to go`, env.convergeMs);
      const list = await rest.call('GET', '/admin/userspaces', { as: { session: admin } });
      expect(list.status).to.equal(200);
      const listed = list.body.items.map((u: KubeObject) => u.metadata?.name);
      expect(listed).to.include(names.alice).and.not.include(names.bob);
    }));
}

/** Removes what a journey created (for real clusters; best effort, each failure reported). */
export async function cleanUpJourney(env: PlatformEnvironment, names: JourneyNames): Promise<string[]> {
  const problems: string[] = [];
  const attempt = async (what: string, op: () => Promise<unknown>) => {
    try {
      await op();
    } catch (err) {
      if (!isNotFound(err)) problems.push(`${what}: ${(err as Error).message}`);
    }
  };
  const ns = userNamespace(names.alice);
  for (const ws of [names.workspace, `${names.workspace}-bad`, `${names.workspace}-big`, `${names.workspace}-ro`, `${names.workspace}-broken`]) {
    await attempt(`Workspace ${ws}`, () => env.admin.delete(RESOURCES.workspace, ws, ns));
    await attempt(`PVC ${homeClaimName(ws)}`, () => env.admin.delete(RESOURCES.persistentVolumeClaim, homeClaimName(ws), ns));
  }
  for (const entry of [names.image, `${names.image}-broken`]) {
    await attempt(`WorkspaceImage ${entry}`, () => env.admin.delete(RESOURCES.workspaceImage, entry));
  }
  for (const person of [names.admin, names.alice, names.bob]) {
    await attempt(`UserSpace ${person}`, () => env.admin.delete(RESOURCES.userSpace, person));
    await attempt(`local user ${person}`, () => env.admin.delete(RESOURCES.secret, `local-user-${person}`, SYSTEM_NAMESPACE));
  }
  return problems;
}
