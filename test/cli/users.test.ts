// `den users add` against the fake API server, as a cluster administrator would run it.
import { PassThrough, Readable, Writable } from 'node:stream';
import { expect } from 'chai';
import { runUsers, type CommandIo } from '../../cli/users.js';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import type { FakeApiServer } from '../support/fake-apiserver.js';
import { call, provision, startCluster, startDen } from '../server/core/cluster.js';
import { kubeconfigFile } from '../support/loopback.js';

interface Run {
  code: number;
  out: string;
  err: string;
}

function sink(onChunk: (chunk: string) => void = () => undefined): Writable & { text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({ write(chunk, _enc, done) { chunks.push(String(chunk)); onChunk(String(chunk)); done(); } });
  return Object.assign(w, { text: () => chunks.join('') });
}

/** An output that types the next reply into `tty` each time a prompt (`…: `) is written, as a person would. */
function answering(tty: PassThrough, replies: string[]): Writable & { text: () => string } {
  return sink((chunk) => {
    const reply = chunk.endsWith(': ') ? replies.shift() : undefined;
    if (reply !== undefined) setImmediate(() => tty.write(reply));
  });
}

async function den(argv: string[], stdin: Readable & Partial<Pick<CommandIo['stdin'], 'isTTY' | 'setRawMode'>>): Promise<Run> {
  const stdout = sink();
  const stderr = sink();
  const code = await runUsers(argv, { stdin, stdout, stderr, env: {} });
  return { code, out: stdout.text(), err: stderr.text() };
}

type ReadyCondition = { status: 'True' | 'False'; reason: string; message: string };

const watchers: NodeJS.Timeout[] = [];

/** What den manager would write, here at once: once UserSpace `name` exists, its Ready condition. */
function statusOnceCreated(api: FakeApiServer, name: string, ready: ReadyCondition): void {
  const timer = setInterval(() => {
    const created = api.object<KubeObject>(RESOURCES.userSpace, name);
    if (!created) return;
    clearInterval(timer);
    api.seed({ ...created, status: { phase: ready.status === 'True' ? 'Ready' : 'Pending', conditions: [{ type: 'Ready', ...ready }] } });
  }, 10);
  watchers.push(timer);
}

const READY: ReadyCondition = { status: 'True', reason: 'ChildrenReady', message: 'all 14 children exist' };

describe('den users add', () => {
  let api: FakeApiServer;
  let admin: string;

  beforeEach(async () => {
    api = await startCluster();
    admin = kubeconfigFile(api.url, api.adminToken);
  });
  afterEach(() => {
    for (const timer of watchers.splice(0)) clearInterval(timer);
    return api.close();
  });

  it('creates an administrator UserSpace and a local user who can sign in to den server, and waits for it to be Ready', async () => {
    statusOnceCreated(api, 'alice', READY);
    const run = await den(['add', 'alice', '--owner', 'alice@example.com', '--admin', '--password-stdin', '--kubeconfig', admin], Readable.from(['first-admin-pw\n']));
    expect(run).to.deep.equal({
      code: 0,
      out:
        'created UserSpace alice (owner alice@example.com, role admin, namespace svc-alice) and local user alice\n' +
        'waiting up to 2m for UserSpace alice to be Ready (den manager makes its namespace, quota and RBAC, and Kubernetes counts its quota)\n' +
        'UserSpace alice is Ready: alice can sign in and create workspaces\n',
      err: '',
    });
    const userSpace = api.object<{ metadata: { labels: Record<string, string> }; spec: unknown }>(RESOURCES.userSpace, 'alice');
    expect(userSpace?.metadata.labels['den.dev/role']).to.equal('admin');
    expect(userSpace?.spec).to.deep.include({ owner: 'alice@example.com', networkPolicy: 'Isolated', quota: { cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 0, workspaces: 3 } });
    const secret = api.object<{ metadata: { labels: Record<string, string> }; data: Record<string, string> }>(RESOURCES.secret, 'local-user-alice', 'svc-system');
    expect(secret?.metadata.labels['den.dev/kind']).to.equal('local-user');
    expect(Buffer.from(secret!.data.password_hash!, 'base64').toString()).to.match(/^scrypt\$/);

    provision(api, 'alice', 'alice@example.com', { admin: true });
    const server = await startDen(api);
    try {
      const login = await call(server, 'POST', '/login', { body: { username: 'alice', password: 'first-admin-pw' } });
      expect(login.status).to.equal(204);
      const session = await call(server, 'GET', '/session', { headers: { Cookie: login.headers.getSetCookie()[0]!.split(';')[0]! } });
      expect(session.body).to.include({ email: 'alice@example.com', role: 'admin', namespace: 'svc-alice' });
    } finally {
      await server.close();
    }
  });

  it('makes an ordinary user without --admin, with a separate username when asked', async () => {
    const run = await den(['add', 'bob', '--owner', 'bob@example.com', '--username', 'bobby', '--password-stdin', '--wait', '0', '--kubeconfig', admin], Readable.from(['bob-password']));
    expect(run.code).to.equal(0);
    expect(api.object<{ metadata: { labels: Record<string, string> } }>(RESOURCES.userSpace, 'bob')?.metadata.labels['den.dev/role']).to.equal('user');
    expect(api.object(RESOURCES.secret, 'local-user-bobby', 'svc-system')).to.not.equal(undefined);
  });

  it('refuses with exit 1 and changes nothing when the UserSpace or the local user already exists', async () => {
    await den(['add', 'alice', '--owner', 'alice@example.com', '--password-stdin', '--wait', '0', '--kubeconfig', admin], Readable.from(['first-admin-pw']));
    const again = await den(['add', 'alice', '--owner', 'other@example.com', '--password-stdin', '--kubeconfig', admin], Readable.from(['another-password']));
    expect(again).to.deep.equal({ code: 1, out: '', err: 'den users: UserSpace alice already exists; nothing was changed\n' });
    const sameUser = await den(['add', 'carol', '--owner', 'carol@example.com', '--username', 'alice', '--password-stdin', '--kubeconfig', admin], Readable.from(['another-password']));
    expect(sameUser.err).to.equal('den users: local user alice already exists in svc-system; nothing was changed\n');
    expect(api.object(RESOURCES.userSpace, 'carol')).to.equal(undefined);
  });

  it('passes on the cluster refusal with exit 1 and leaves no local user behind', async () => {
    api.addUser('mere-mortal', { username: 'alice@example.com' });
    const run = await den(['add', 'alice', '--owner', 'alice@example.com', '--password-stdin', '--kubeconfig', kubeconfigFile(api.url, 'mere-mortal')], Readable.from(['first-admin-pw']));
    expect(run.code).to.equal(1);
    expect(run.err).to.match(/^den users: userspaces.den.dev "alice" is forbidden: User "alice@example.com" cannot get resource "userspaces"/);
    expect(api.object(RESOURCES.secret, 'local-user-alice', 'svc-system')).to.equal(undefined);
  });

  it('removes the local user again when the UserSpace cannot be created', async () => {
    api.failNext('POST', /\/userspaces$/, 422, { reason: 'Invalid', message: 'UserSpace.den.dev "alice" is invalid: injected' });
    const run = await den(['add', 'alice', '--owner', 'alice@example.com', '--password-stdin', '--kubeconfig', admin], Readable.from(['first-admin-pw']));
    expect(run).to.deep.include({ code: 1, err: 'den users: UserSpace.den.dev "alice" is invalid: injected\n' });
    expect(api.object(RESOURCES.secret, 'local-user-alice', 'svc-system')).to.equal(undefined);
  });

  it('says what it waits for, and gives up after --wait with exit 1, why, and what to do; both stay created', async () => {
    const uncounted = "ResourceQuota/svc-quota has not yet counted count/workspaces.den.dev: Kubernetes' quota controller (in kube-controller-manager) counts them, usually within seconds";
    statusOnceCreated(api, 'alice', { status: 'False', reason: 'QuotaNotCounted', message: uncounted });
    const run = await den(['add', 'alice', '--owner', 'alice@example.com', '--password-stdin', '--wait', '1s', '--kubeconfig', admin], Readable.from(['first-admin-pw']));
    expect(run.code).to.equal(1);
    expect(run.out.split('\n').slice(1)).to.deep.equal([
      'waiting up to 1s for UserSpace alice to be Ready (den manager makes its namespace, quota and RBAC, and Kubernetes counts its quota)',
      `  not Ready yet: QuotaNotCounted: ${uncounted}`,
      '',
    ]);
    expect(run.err).to.equal(
      `den users: UserSpace alice is not Ready after 1s: QuotaNotCounted: ${uncounted}. It and local user alice were created and stay; ` +
        'check that den manager runs (kubectl -n svc-system get pods) and what the UserSpace says (kubectl get userspace alice -o yaml), ' +
        'or wait longer with --wait. alice can sign in meanwhile; creating a workspace may be refused until it is Ready.\n',
    );
    expect(api.object(RESOURCES.userSpace, 'alice')).to.not.equal(undefined);
    expect(api.object(RESOURCES.secret, 'local-user-alice', 'svc-system')).to.not.equal(undefined);
  });

  it('says den manager wrote no status when no manager runs', async () => {
    const run = await den(['add', 'alice', '--owner', 'alice@example.com', '--password-stdin', '--wait', '1s', '--kubeconfig', admin], Readable.from(['first-admin-pw']));
    expect(run.code).to.equal(1);
    expect(run.err).to.match(/^den users: UserSpace alice is not Ready after 1s: den manager has not written its status yet\. It and local user alice were created and stay; check that den manager runs/);
  });

  it('answers bad usage with exit 2 and a line naming the problem', async () => {
    expect((await den(['add', 'alice', '--owner', 'a@x', '--password-stdin', '--wait', 'soon'], Readable.from(['long-enough']))).err).to.match(/^den users: --wait \(DEN_USERS_WAIT\): expected a duration such as 30s/);
    const none = Readable.from(['']);
    expect((await den(['add', 'alice', '--password-stdin', '--kubeconfig', admin], none)).err).to.match(/^den users: --owner \(DEN_USERS_OWNER\) is required/);
    expect((await den(['add', 'Alice', '--owner', 'a@x', '--password-stdin'], Readable.from(['long-enough']))).code).to.equal(2);
    expect((await den(['add', 'alice', '--owner', 'a@x', '--password-stdin'], Readable.from(['short']))).err).to.equal('den users: the password must be at least 8 characters\n(see den users --help)\n');
    expect((await den(['remove', 'alice'], none)).err).to.match(/^den users: unknown subcommand 'remove'/);
    expect(api.objects(RESOURCES.userSpace)).to.have.length(0);
  });

  it('asks for the password twice on a terminal without echoing it', async () => {
    const tty = Object.assign(new PassThrough(), { isTTY: true, modes: [] as boolean[], setRawMode(raw: boolean) { this.modes.push(raw); return this; } });
    const stdout = answering(tty, ['dora-secret\r', 'dora-secret\r']);
    const done = runUsers(['add', 'dora', '--owner', 'dora@example.com', '--wait', '0', '--kubeconfig', admin], { stdin: tty, stdout, stderr: sink(), env: {} });
    expect(await done).to.equal(0);
    expect(stdout.text()).to.equal('Password for dora: \nRepeat the password: \ncreated UserSpace dora (owner dora@example.com, role user, namespace svc-dora) and local user dora\n');
    expect(stdout.text()).to.not.contain('dora-secret');
    expect(tty.modes).to.deep.equal([true, false, true, false]);
  });

  it('says in one line when the kubeconfig cannot be used', async () => {
    const run = await den(['add', 'alice', '--owner', 'alice@example.com', '--password-stdin', '--kubeconfig', '/nonexistent/config'], Readable.from(['first-admin-pw']));
    expect(run.code).to.equal(2);
    expect(run.err).to.equal('den users: kubeconfig /nonexistent/config: no such file\n');
    expect(run.err.trim().split('\n')).to.have.length(1);
  });

  it('takes all of stdin as the password but its one trailing newline, spaces and inner newlines kept', async () => {
    const password = '  two words\nand a line  ';
    expect((await den(['add', 'erin', '--owner', 'erin@example.com', '--password-stdin', '--wait', '0', '--kubeconfig', admin], Readable.from([`${password}\r\n`]))).code).to.equal(0);
    provision(api, 'erin', 'erin@example.com');
    const server = await startDen(api);
    try {
      expect((await call(server, 'POST', '/login', { body: { username: 'erin', password } })).status).to.equal(204);
      expect((await call(server, 'POST', '/login', { body: { username: 'erin', password: password.trim() } })).status).to.equal(401);
    } finally {
      await server.close();
    }
  });

  it('answers exit 2 and creates nothing when the two passwords differ or the prompt is cancelled', async () => {
    for (const [first, second, message] of [['dora-secret\r', 'dora-secreT\r', 'the two passwords differ'], ['dora\u0003', '', 'cancelled']]) {
      const tty = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => tty });
      const stderr = sink();
      const stdout = answering(tty, [first!, ...(second ? [second] : [])]);
      const done = runUsers(['add', 'dora', '--owner', 'dora@example.com', '--kubeconfig', admin], { stdin: tty, stdout, stderr, env: {} });
      expect(await done).to.equal(2);
      expect(stderr.text()).to.equal(`den users: ${message}\n(see den users --help)\n`);
    }
    expect(api.objects(RESOURCES.userSpace)).to.have.length(0);
    expect(api.object(RESOURCES.secret, 'local-user-dora', 'svc-system')).to.equal(undefined);
  });

  it('prints the usage with exit 0 for --help and exit 2 without a subcommand', async () => {
    const help = await den(['--help'], Readable.from(['']));
    expect(help.code).to.equal(0);
    expect(help.out).to.match(/^Usage: den users add <name> --owner <email> \[--admin\] \[--username <name>\] \[--password-stdin\]/);
    for (const flag of ['--owner', '--admin', '--username', '--password-stdin', '--kubeconfig', '--namespace', '--wait']) expect(help.out).to.contain(flag);
    expect(await den([], Readable.from(['']))).to.deep.include({ code: 2, out: help.out, err: '' });
  });

  it('refuses to ask when standard input is not a terminal', async () => {
    const run = await den(['add', 'alice', '--owner', 'alice@example.com', '--kubeconfig', admin], Readable.from(['pw']));
    expect(run.err).to.equal('den users: standard input is not a terminal: pass the password with --password-stdin\n(see den users --help)\n');
  });
});
