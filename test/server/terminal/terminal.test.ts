import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { LABELS } from '../../../kube/group.js';
import { RESOURCES } from '../../../kube/resources.js';
import { CLOSE, CSRF_PROTOCOL_PREFIX, TERMINAL_PROTOCOL } from '../../../web/terminal-protocol.js';
import { OUTPUT_HIGH_WATER } from '../../../server/terminal/relay.js';
import { SESSION_ENDED, type TerminalServer } from '../../../server/terminal/upgrade.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { FakeExec } from '../../support/fake-exec.js';
import { addPerson, login, startCluster, startDen, until, type Den, type Signed } from '../core/cluster.js';

const BASE_URL = 'http://den.test';
const ORIGIN = 'http://den.test';

interface Terminal {
  ws: WebSocket;
  output: () => string;
  notices: any[];
  closed: Promise<{ code: number; reason: string }>;
}

interface World {
  api: FakeApiServer;
  den: Den;
  exec: FakeExec;
  terminals: TerminalServer;
  home: string;
  alice: Signed;
  bob: Signed;
  logs: { msg: string; fields?: Record<string, unknown> }[];
  close(): Promise<void>;
}

function seedWorkspace(api: FakeApiServer, name: string, namespace: string, home: string, opts: { phase?: string; shell?: string } = {}): void {
  api.seed(
    {
      apiVersion: 'den.dev/v1alpha1',
      kind: 'WorkspaceImage',
      metadata: { name: `img-${name}` },
      spec: { displayName: 'Shell', image: 'debian:12', shell: opts.shell ?? '/bin/sh', homePath: home },
    },
    {
      apiVersion: 'den.dev/v1alpha1',
      kind: 'Workspace',
      metadata: { name, namespace },
      spec: { imageRef: { name: `img-${name}` }, storage: '1Gi', running: opts.phase !== 'Suspended' },
      status: { phase: opts.phase ?? 'Running', podName: `${name}-0` },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${name}-0`, namespace, labels: { [LABELS.workspace]: name } },
      spec: { containers: [{ name: 'workspace', image: 'debian:12' }] },
      status: { phase: 'Running' },
    },
  );
}

async function startWorld(): Promise<World> {
  const home = await mkdtemp(join(tmpdir(), 'den-terminal-'));
  const api = await startCluster();
  await addPerson(api, 'alice');
  await addPerson(api, 'bob');
  seedWorkspace(api, 'dev', 'svc-alice', home);
  seedWorkspace(api, 'asleep', 'svc-alice', home, { phase: 'Suspended' });
  const exec = new FakeExec({ cwd: home, env: { PS1: '$ ', ENV: '' } });
  exec.attachTo(api);
  const logs: World['logs'] = [];
  const den = await startDen(api, { baseUrl: BASE_URL, log: (msg, fields) => void logs.push({ msg, fields }) });
  const alice = await login(den, 'alice', 'alice-password');
  const bob = await login(den, 'bob', 'bob-password');
  return {
    api,
    den,
    exec,
    terminals: den.terminals,
    home,
    alice,
    bob,
    logs,
    async close() {
      await exec.close();
      await den.close();
      await api.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

function wsUrl(world: World, name: string, query = ''): string {
  return `${world.den.url.replace(/^http/, 'ws')}/w/${name}/terminal/ws${query}`;
}

/** Every terminal a test opened; each test ends with none left open, so the next starts clean. */
const opened: Terminal[] = [];

/** Resolves once the shell has printed its first prompt (input typed earlier may be dropped by the tty as it starts). */
async function prompted(t: Terminal): Promise<void> {
  await new Promise((resolve) => (t.ws.readyState === t.ws.OPEN ? resolve(undefined) : t.ws.once('open', resolve)));
  await until(() => /[$#] $/.test(t.output()), 'the shell prompt', 10_000);
}

/** Opens a terminal as a browser would: Origin of the base URL, the cookie, the CSRF subprotocol. */
function open(world: World, name: string, as: Signed, opts: { origin?: string; csrf?: string | null; query?: string } = {}): Terminal {
  const protocols = [TERMINAL_PROTOCOL];
  if (opts.csrf !== null) protocols.push(CSRF_PROTOCOL_PREFIX + (opts.csrf ?? as.csrf));
  const ws = new WebSocket(wsUrl(world, name, opts.query ?? '?cols=100&rows=30'), protocols, { headers: { Cookie: as.cookie, Origin: opts.origin ?? ORIGIN } });
  const chunks: Buffer[] = [];
  const notices: any[] = [];
  ws.on('message', (data, isBinary) => {
    if (isBinary) chunks.push(data as Buffer);
    else notices.push(JSON.parse(String(data)));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  const terminal = { ws, output: () => Buffer.concat(chunks).toString('utf8'), notices, closed };
  opened.push(terminal);
  return terminal;
}

/** The HTTP answer to an upgrade that was refused before it happened. */
function refusal(url: string, headers: Record<string, string>, protocols: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers });
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => undefined);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
  });
}

describe('browser terminal relay (GET /w/{name}/terminal/ws)', function () {
  this.timeout(30_000);
  let world: World;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world.close();
  });
  afterEach(async () => {
    for (const t of opened.splice(0)) t.ws.terminate();
    await until(() => world.terminals.relays.size === 0, 'every relay of the test to end', 10_000);
  });

  it("runs the image's shell as a login shell in its home, as the person, and relays a command's output", async () => {
    const t = open(world, 'dev', world.alice);
    await prompted(t);
    expect(t.ws.protocol).to.equal(TERMINAL_PROTOCOL);
    t.ws.send(Buffer.from('echo "sum=$((40+2))"; pwd\n'), { binary: true });
    await until(() => t.output().includes('sum=42'), 'the command output', 10_000);
    await until(() => t.output().includes(world.home), 'the home folder', 5_000);
    const record = world.exec.execs.at(-1)!;
    expect(record).to.include({ namespace: 'svc-alice', pod: 'dev-0', container: 'workspace', tty: true, stdin: true });
    expect(record.command.slice(-2)).to.deep.equal(['/bin/sh', '-l']);
    expect(record.command).to.include(`HOME=${world.home}`);
    const execCall = world.api.requests.find((r) => r.path === '/api/v1/namespaces/svc-alice/pods/dev-0/exec');
    expect(execCall?.user).to.equal('system:serviceaccount:svc-alice:session');
    t.ws.send(Buffer.from('exit 3\n'), { binary: true });
    const closed = await t.closed;
    expect(closed.code).to.equal(CLOSE.exited);
    expect(closed.reason).to.equal('the shell exited with code 3');
    expect(t.notices).to.deep.include({ type: 'exit', code: 3 });
  });

  it("an open terminal is activity on its workspace: status.lastActivityTime written on open and on close, under den-server", async () => {
    const statusPatches = () =>
      world.api.requests.filter((r) => r.method === 'PATCH' && r.path === '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces/dev/status');
    const before = statusPatches().length;
    const t = open(world, 'dev', world.alice);
    await prompted(t);
    await until(() => statusPatches().length === before + 1, 'the activity of the open', 5_000);
    const activity = () => world.api.object<{ status?: { lastActivityTime?: string } }>(RESOURCES.workspace, 'dev', 'svc-alice')?.status?.lastActivityTime;
    expect(Date.now() - Date.parse(activity() ?? '')).to.be.below(10_000);
    t.ws.close();
    await t.closed;
    await until(() => statusPatches().length === before + 2, 'the activity of the close', 5_000);
    expect(statusPatches().every((r) => r.user === 'system:serviceaccount:svc-system:den-server')).to.equal(true);
  });

  it('writes an audit line when a terminal opens and when it closes, with the person, the workspace and how long it lasted', async () => {
    const audits = (act: string) => world.logs.filter((l) => l.msg === 'audit' && l.fields?.audit === act).map((l) => l.fields!);
    const before = { opened: audits('session-opened').length, closed: audits('session-closed').length };
    const t = open(world, 'dev', world.alice);
    await prompted(t);
    await until(() => audits('session-opened').length === before.opened + 1, 'the audit line of the open', 5_000);
    t.ws.close();
    await t.closed;
    await until(() => audits('session-closed').length === before.closed + 1, 'the audit line of the close', 5_000);
    const who = { person: 'alice@example.com', userspace: 'alice', via: 'terminal', kind: 'terminal', namespace: 'svc-alice', workspace: 'dev' };
    expect(audits('session-opened').at(-1)).to.deep.equal({ audit: 'session-opened', ...who });
    expect(audits('session-closed').at(-1)).to.deep.include({ audit: 'session-closed', ...who });
    expect(audits('session-closed').at(-1)!.durationMs).to.be.a('number');
  });

  it('passes the initial size and every resize message to the exec resize channel', async () => {
    const t = open(world, 'dev', world.alice, { query: '?cols=120&rows=40' });
    await new Promise((resolve) => t.ws.once('open', resolve));
    await prompted(t);
    const record = world.exec.execs.at(-1)!;
    expect(record.resizes[0]).to.deep.equal({ Width: 120, Height: 40 });
    t.ws.send(JSON.stringify({ type: 'resize', cols: 90, rows: 25 }));
    await until(() => record.resizes.length === 2 && record.resizesApplied === 2, 'the resize to reach the pty', 5_000);
    expect(record.resizes[1]).to.deep.equal({ Width: 90, Height: 25 });
    t.ws.send(Buffer.from('stty size\n'), { binary: true });
    await until(() => t.output().includes('25 90'), 'stty to report the new size', 5_000);
    t.ws.close();
    await t.closed;
  });

  it('ends an open terminal once its session has ended (signed out), and leaves the terminals of live sessions open', async () => {
    const leaving = await login(world.den, 'alice', 'alice-password');
    const ended = open(world, 'dev', leaving);
    const stays = open(world, 'dev', world.alice);
    await Promise.all([prompted(ended), prompted(stays)]);
    expect(await world.terminals.closeEnded(), 'both sessions live').to.equal(0);
    const out = await fetch(`${world.den.api}/logout`, { method: 'POST', headers: { Cookie: leaving.cookie, 'X-CSRF-Token': leaving.csrf } });
    expect(out.status).to.equal(204);
    expect(await world.terminals.closeEnded()).to.equal(1);
    const closed = await ended.closed;
    expect(closed.code).to.equal(CLOSE.sessionEnded);
    expect(ended.notices).to.deep.include({ type: 'error', message: SESSION_ENDED });
    await until(() => world.terminals.relays.size === 1, 'the ended relay to finish', 5_000);
    expect(stays.ws.readyState).to.equal(WebSocket.OPEN);
    stays.ws.send(Buffer.from('echo still-$((1+1))\n'), { binary: true });
    await until(() => stays.output().includes('still-2'), 'the other terminal to keep working', 5_000);
  });

  it('closes the exec when the browser goes away', async () => {
    const t = open(world, 'dev', world.alice);
    await prompted(t);
    const record = world.exec.execs.at(-1)!;
    t.ws.terminate();
    await until(() => record.exitCode !== undefined && world.terminals.relays.size === 0, 'the exec to end', 5_000);
  });

  it('refuses a cross-origin upgrade with 403 before upgrading, and opens no exec', async () => {
    const before = world.exec.execs.length;
    const answer = await refusal(wsUrl(world, 'dev'), { Cookie: world.alice.cookie, Origin: 'https://evil.example' }, [TERMINAL_PROTOCOL, CSRF_PROTOCOL_PREFIX + world.alice.csrf]);
    expect(answer.status).to.equal(403);
    expect(JSON.parse(answer.body).error).to.equal('a terminal may only be opened from a page of http://den.test');
    const noOrigin = await refusal(wsUrl(world, 'dev'), { Cookie: world.alice.cookie }, [TERMINAL_PROTOCOL, CSRF_PROTOCOL_PREFIX + world.alice.csrf]);
    expect(noOrigin.status).to.equal(403);
    expect(world.exec.execs.length).to.equal(before);
  });

  it('refuses a missing or wrong CSRF token with 403, and a missing session with 401', async () => {
    const url = wsUrl(world, 'dev');
    const missing = await refusal(url, { Cookie: world.alice.cookie, Origin: ORIGIN }, [TERMINAL_PROTOCOL]);
    expect(missing.status).to.equal(403);
    expect(JSON.parse(missing.body).error).to.match(/^missing CSRF token/);
    const wrong = await refusal(url, { Cookie: world.alice.cookie, Origin: ORIGIN }, [TERMINAL_PROTOCOL, CSRF_PROTOCOL_PREFIX + world.bob.csrf]);
    expect(wrong.status).to.equal(403);
    expect(JSON.parse(wrong.body).error).to.equal('wrong CSRF token: reload the page');
    const anonymous = await refusal(url, { Origin: ORIGIN }, [TERMINAL_PROTOCOL, CSRF_PROTOCOL_PREFIX + world.alice.csrf]);
    expect(anonymous.status).to.equal(401);
  });

  it('says the workspace is not running, in a notice and the close reason', async () => {
    const t = open(world, 'asleep', world.alice);
    const closed = await t.closed;
    expect(closed.code).to.equal(CLOSE.notRunning);
    expect(closed.reason).to.equal('workspace asleep is Suspended; start it first');
    expect(t.notices).to.deep.equal([{ type: 'error', message: 'workspace asleep is Suspended; start it first' }]);
  });

  it("cannot reach another person's workspace: it is looked up in the caller's own namespace", async () => {
    const t = open(world, 'dev', world.bob);
    const closed = await t.closed;
    expect(closed.code).to.equal(CLOSE.notFound);
    expect(t.notices[0]).to.deep.equal({ type: 'error', message: 'you have no workspace named dev' });
  });

  it('refuses an unknown control message with a close reason', async () => {
    const t = open(world, 'dev', world.alice);
    await new Promise((resolve) => t.ws.once('open', resolve));
    t.ws.send(JSON.stringify({ type: 'signal', name: 'KILL' }));
    const closed = await t.closed;
    expect(closed.code).to.equal(CLOSE.protocolError);
    expect(closed.reason).to.match(/^unknown control message/);
  });

  it('stops reading a flooding exec while the browser does not read, so buffered output stays bounded', async () => {
    const t = open(world, 'dev', world.alice);
    await prompted(t);
    const [relay] = [...world.terminals.relays];
    t.ws.send(Buffer.from('yes 0123456789012345678901234567890123456789\n'), { binary: true });
    await until(() => t.output().includes('0123456789'), 'yes to print', 5_000);
    // The browser stops reading: its socket fills, then den server must stop reading the exec.
    t.ws.pause();
    let maxBuffered = 0;
    // Watch the buffer for at least 2.5 s, and on a busy machine until the relay has paused (at most 15 s).
    const started = Date.now();
    while ((Date.now() - started < 2_500 || relay!.output.pauses === 0) && Date.now() - started < 15_000) {
      maxBuffered = Math.max(maxBuffered, relay!.output.unsentBytes);
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(relay!.output.pauses, 'the relay paused the exec').to.be.greaterThan(0);
    // What was in flight when the relay paused comes on top; unbounded would be many MiB in these seconds.
    expect(maxBuffered).to.be.at.most(OUTPUT_HIGH_WATER + (1 << 20));
    // Reading again resumes the flow.
    const seen = t.output().length;
    t.ws.resume();
    await until(() => t.output().length > seen + (1 << 20), 'output to flow again', 10_000);
    t.ws.send(Buffer.from([3]), { binary: true });
    t.ws.close();
    await t.closed;
  });
});
