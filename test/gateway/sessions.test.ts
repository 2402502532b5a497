// The gateway driven by ssh2's client: terminal resize, env requests, refused methods,
// back-pressure between sessions and graceful shutdown.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import ssh2, { type ClientChannel } from 'ssh2';
import { GatewayHarness, makeKey, pod, workspace, type UserKey } from './harness.js';

interface Collected {
  out: () => string;
  err: () => string;
  bytes: () => number;
  exit: Promise<number | undefined>;
}

function collect(stream: ClientChannel): Collected {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let bytes = 0;
  stream.on('data', (c: Buffer) => {
    bytes += c.length;
    if (out.length < 1000) out.push(c);
  });
  stream.stderr.on('data', (c: Buffer) => err.push(c));
  const exit = new Promise<number | undefined>((resolve) => {
    let code: number | undefined;
    stream.on('exit', (c: number | null) => (code = c ?? undefined));
    stream.on('close', () => resolve(code));
  });
  return { out: () => Buffer.concat(out).toString('utf8'), err: () => Buffer.concat(err).toString('utf8'), bytes: () => bytes, exit };
}

function exec(conn: ssh2.Client, command: string, opts: ssh2.ExecOptions = {}): Promise<ClientChannel> {
  return new Promise((resolve, reject) => conn.exec(command, opts, (err, stream) => (err ? reject(err) : resolve(stream))));
}

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('gateway with the ssh2 client', function () {
  this.timeout(30_000);
  let h: GatewayHarness;
  let alice: UserKey;
  const open: ssh2.Client[] = [];

  async function connect(): Promise<ssh2.Client> {
    const conn = await h.client('demo', alice);
    open.push(conn);
    return conn;
  }

  beforeEach(async () => {
    h = await new GatewayHarness().start();
    alice = await makeKey(h.keys, 'alice');
    await h.seed(workspace('demo', [alice.publicKey]), pod('demo-0', 'demo'));
  });
  afterEach(async () => {
    for (const c of open.splice(0)) c.end();
    await h.close();
  });

  it('resizes the pod terminal on window-change', async () => {
    const conn = await connect();
    const stream = await exec(conn, 'stty size; read line; stty size', { pty: { term: 'xterm', rows: 30, cols: 90 } });
    const r = collect(stream);
    await waitFor(() => r.out().includes('30 90'));
    stream.setWindow(45, 132, 0, 0);
    await waitFor(() => h.fake.execs[0]!.resizesApplied === 2); // the first size, then this one
    stream.write('\n');
    expect(await r.exit).to.equal(0);
    expect(r.out()).to.match(/30 90\r\n[\s\S]*45 132\r\n/);
    expect(h.fake.execs[0]!.resizes).to.deep.equal([{ Width: 90, Height: 30 }, { Width: 132, Height: 45 }]);
  });

  it('passes env requests to the command and drops names that are not plain', async () => {
    const conn = await connect();
    const stream = await exec(conn, 'echo "$GREETING|${HOME}"', { env: { GREETING: 'hello there', 'BAD-NAME': 'x', HOME: '/root' } });
    const r = collect(stream);
    expect(await r.exit).to.equal(0);
    expect(r.out()).to.equal(`hello there|${h.home}\n`);
  });

  it('refuses password authentication', async () => {
    const conn = new ssh2.Client();
    const err = await new Promise<Error>((resolve) => {
      conn.on('error', resolve);
      conn.on('ready', () => resolve(new Error('unexpectedly authenticated')));
      conn.connect({ host: '127.0.0.1', port: h.port, username: 'demo', password: 'guess', tryKeyboard: true, readyTimeout: 10_000 });
    });
    conn.end();
    expect(err.message).to.equal('All configured authentication methods failed');
  });

  it('refuses subsystems other than sftp', async () => {
    const conn = await connect();
    const err = await new Promise<Error | undefined>((resolve) => conn.subsys('netconf', (e) => resolve(e)));
    expect(err?.message).to.match(/Unable to start subsystem/);
    expect(h.fake.execs).to.have.length(0);
  });

  it('serves the SFTP protocol to ssh2 clients too', async () => {
    const conn = await connect();
    const sftp = await new Promise<ssh2.SFTPWrapper>((resolve, reject) => conn.sftp((e, s) => (e ? reject(e) : resolve(s))));
    await new Promise<void>((resolve, reject) => sftp.writeFile('hello.txt', 'over sftp\n', (e) => (e ? reject(e) : resolve())));
    expect(await readFile(`${h.home}/hello.txt`, 'utf8')).to.equal('over sftp\n');
    const names = await new Promise<string[]>((resolve, reject) => sftp.readdir('.', (e, list) => (e ? reject(e) : resolve(list.map((l) => l.filename)))));
    expect(names).to.include('hello.txt');
  });

  it('keeps a session that does not read from stalling another, and bounds what it buffers', async () => {
    const slowConn = await connect();
    const slow = await exec(slowConn, 'head -c 60000000 /dev/zero');
    const slowOut = collect(slow);
    slow.pause(); // this client stops reading: its SSH window fills up
    await new Promise((r) => setTimeout(r, 300));

    let slowDone = false;
    void slowOut.exit.then(() => (slowDone = true));
    const fastConn = await connect();
    const fast = collect(await exec(fastConn, 'head -c 5000000 /dev/zero'));
    expect(await fast.exit).to.equal(0);
    expect(fast.bytes()).to.equal(5_000_000);
    expect(slowDone, 'the stalled session is still waiting for its reader').to.equal(false);

    // The slow session's pod output is held back by flow control instead of piling up in the gateway.
    const received = slowOut.bytes();
    expect(received).to.be.lessThan(20_000_000);
    slow.resume();
    expect(await slowOut.exit).to.equal(0);
    expect(slowOut.bytes()).to.equal(60_000_000);
  });

  it('ends the exec in the pod when the client closes the channel', async () => {
    const conn = await connect();
    const stream = await exec(conn, 'sleep 30');
    await waitFor(() => h.fake.execs.length === 1);
    stream.close();
    await waitFor(() => h.fake.execs[0]!.exitCode !== undefined);
    expect(h.fake.execs[0]!.exitCode).to.be.greaterThan(128);
  });

  it('lets open sessions finish on shutdown while refusing new connections', async () => {
    const conn = await connect();
    const r = collect(await exec(conn, 'sleep 0.7; echo finished'));
    await waitFor(() => h.fake.execs.length === 1);
    const shutdown = h.gateway.shutdown(10_000);
    const tryConnect = () => new Promise<string>((resolve) => {
      const s = net.connect(h.port, '127.0.0.1');
      s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      s.on('connect', () => {
        s.destroy();
        resolve('connected');
      });
    });
    // The listener closes as shutdown begins; try until it has.
    let refused = await tryConnect();
    for (const deadline = Date.now() + 5000; refused === 'connected' && Date.now() < deadline; ) refused = await tryConnect();
    expect(refused).to.equal('ECONNREFUSED');
    expect(await r.exit).to.equal(0);
    expect(r.out()).to.equal('finished\n');
    conn.end();
    await shutdown;
  });

  it('tells sessions still running at the end of the shutdown bound why they close', async () => {
    const conn = await connect();
    const r = collect(await exec(conn, 'sleep 30'));
    await waitFor(() => h.fake.execs.length === 1);
    await h.gateway.shutdown(200);
    await r.exit;
    expect(r.err()).to.contain('den: the SSH gateway is shutting down; reconnect to continue');
  });
});
