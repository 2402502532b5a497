// Limits before authentication, as sshd has them, seen from the client's side: raw TCP
// sockets, ssh2's client and the real OpenSSH client against a running gateway.
import { expect } from 'chai';
import net from 'node:net';
import ssh2 from 'ssh2';
import { GatewayHarness, makeKey, pod, withoutKnownHostsNoise, workspace, type UserKey } from './harness.js';
import type { GatewayLimits } from '../../gateway/server.js';

interface RawConnection {
  socket: net.Socket;
  /** Everything the gateway sent. */
  received(): string;
  /** Milliseconds from connect to the gateway closing the connection. */
  closed: Promise<number>;
}

/** A TCP connection that sends nothing unless told to; `from` picks the local (source) address. */
function rawConnect(port: number, from = '127.0.0.1'): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: from });
    socket.on('data', (c: Buffer) => chunks.push(c));
    // A refused connection may be reset rather than closed; either way it ends.
    socket.on('error', () => undefined);
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - started)));
    socket.once('connect', () => resolve({ socket, received: () => Buffer.concat(chunks).toString('latin1'), closed }));
    socket.once('error', reject);
  });
}

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const hardCap = (n: number) => ({ start: n, rate: 100, full: n });

/** The gateway's version line arrived: the connection was taken in. */
async function admitted(c: RawConnection): Promise<void> {
  await waitFor(() => c.received().startsWith('SSH-2.0-den-gateway\r\n'));
}

describe('gateway limits before authentication', function () {
  this.timeout(30_000);
  let h: GatewayHarness;
  let alice: UserKey;
  const raw: RawConnection[] = [];

  async function start(limits: Partial<GatewayLimits>): Promise<void> {
    h = await new GatewayHarness().start({ limits });
    alice = await makeKey(h.keys, 'alice');
    await h.seed(workspace('demo', [alice.publicKey], { podName: 'demo-0' }), pod('demo-0', 'demo'));
  }

  async function open(from?: string): Promise<RawConnection> {
    const c = await rawConnect(h.port, from);
    raw.push(c);
    return c;
  }

  afterEach(async () => {
    for (const c of raw.splice(0)) c.socket.destroy();
    await h.close();
  });

  describe('login grace time', () => {
    it('closes a TCP connection that never sends anything once the grace time is over', async () => {
      await start({ loginGraceMs: 500 });
      const c = await open();
      await admitted(c);
      const after = await c.closed;
      expect(after).to.be.within(450, 10_000);
      expect(h.logs.some((l) => l.msg === 'timeout before authentication; connection closed')).to.equal(true);
    });

    it('closes a connection that sent its version line and then stalled', async () => {
      await start({ loginGraceMs: 500 });
      const c = await open();
      c.socket.write('SSH-2.0-OpenSSH_9.2p1 stalled\r\n');
      await waitFor(() => c.received().includes('SSH-2.0-den-gateway\r\n') && c.received().length > 40); // the gateway's KEXINIT followed
      const after = await c.closed;
      expect(after).to.be.within(450, 10_000);
    });

    it('keeps an authenticated session open past the grace time', async () => {
      await start({ loginGraceMs: 400 });
      const conn = await h.client('demo', alice);
      const silent = await open();
      try {
        // A connection opened after this session was closed for its grace time: the session's is over too.
        await silent.closed;
        const out = await new Promise<string>((resolve, reject) =>
          conn.exec('echo still here', (err, stream) => {
            if (err) return reject(err);
            let text = '';
            stream.on('data', (d: Buffer) => (text += d.toString()));
            stream.on('close', () => resolve(text));
          }),
        );
        expect(out).to.equal('still here\n');
      } finally {
        conn.end();
      }
    });

    it('lets the OpenSSH client log in normally with a short grace time', async () => {
      await start({ loginGraceMs: 2000 });
      const r = await h.ssh(alice, 'demo', ['echo ok']);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.equal('ok\n');
    });
  });

  describe('cap on connections not yet authenticated', () => {
    it('lets 20 OpenSSH connections opened at once from one address all log in with the defaults', async () => {
      await start({});
      const runs = await Promise.all(
        Array.from({ length: 20 }, (_, i) => h.command('ssh', [...h.sshOptions(alice), '-p', String(h.port), 'demo@127.0.0.1', `echo session ${i}`], undefined, 60_000)),
      );
      expect(runs.map((r) => `${r.code} ${r.stdout}`)).to.deep.equal(Array.from({ length: 20 }, (_, i) => `0 session ${i}\n`));
    });

    it('holds 30 silent connections from one address with the defaults (no per-source cap)', async () => {
      await start({});
      const held = await Promise.all(Array.from({ length: 30 }, () => open()));
      for (const c of held) await admitted(c);
      expect(h.gateway.unauthenticatedConnections).to.equal(30);
    });

    it('closes connections past the overall cap at once, before sending anything, and takes new ones when a slot frees', async () => {
      await start({ maxStartups: hardCap(3) });
      const held = [await open(), await open(), await open()];
      for (const c of held) await admitted(c);
      const refused = await open();
      expect(await refused.closed).to.be.below(10_000);
      expect(refused.received()).to.equal('');

      const r = await h.ssh(alice, 'demo', ['true']);
      expect(r.code).to.equal(255);
      expect(r.stderr).to.match(/kex_exchange_identification: (Connection closed by remote host|read: Connection reset by peer)/);

      held[0]!.socket.destroy();
      await held[0]!.closed;
      await waitFor(() => h.gateway.unauthenticatedConnections === 2);
      const next = await open();
      await admitted(next);
      expect(h.gateway.unauthenticatedConnections).to.equal(3);
    });

    it('counts each source address on its own under a configured per-source cap', async () => {
      await start({ maxStartupsPerSource: 2 });
      const first = [await open('127.0.0.1'), await open('127.0.0.1')];
      for (const c of first) await admitted(c);
      const third = await open('127.0.0.1');
      expect(await third.closed).to.be.below(10_000);
      expect(third.received()).to.equal('');
      const other = await open('127.0.0.2');
      await admitted(other);
    });

    it('frees the slot when a connection authenticates', async () => {
      await start({ maxStartups: hardCap(1) });
      const conn = await h.client('demo', alice);
      try {
        expect(h.gateway.unauthenticatedConnections).to.equal(0);
        const silent = await open();
        await admitted(silent);
        const refused = await open();
        expect(await refused.closed).to.be.below(10_000);
        expect(refused.received()).to.equal('');
      } finally {
        conn.end();
      }
    });

    it('closes every connection still authenticating at shutdown, without waiting for them', async () => {
      await start({ loginGraceMs: 20_000 });
      const c = await open();
      await admitted(c);
      const started = Date.now();
      await h.gateway.shutdown(10_000);
      expect(Date.now() - started).to.be.below(8000);
      expect(await c.closed).to.be.below(8000);
    });
  });

  describe('failed attempts', () => {
    it('disconnects OpenSSH with "Too many authentication failures" after the sixth refused key', async () => {
      await start({});
      const strangers = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => makeKey(h.keys, `stranger${i}`)));
      const base = [...h.sshOptions(alice).slice(0, -2), '-p', String(h.port)]; // without its `-i alice`
      const identities = (keys: UserKey[]) => keys.flatMap((k) => ['-i', k.file]);

      const sixWrongFirst = await h.command('ssh', [...base, ...identities([...strangers, alice]), 'demo@127.0.0.1', 'echo in']);
      expect(sixWrongFirst.code).to.equal(255);
      expect(withoutKnownHostsNoise(sixWrongFirst.stderr)).to.match(/Received disconnect from 127\.0\.0\.1 port \d+:2: Too many authentication failures/);
      expect(sixWrongFirst.stdout).to.equal('');

      const fiveWrongFirst = await h.command('ssh', [...base, ...identities([...strangers.slice(0, 5), alice]), 'demo@127.0.0.1', 'echo in']);
      expect(fiveWrongFirst.code, fiveWrongFirst.stderr).to.equal(0);
      expect(fiveWrongFirst.stdout).to.equal('in\n');
    });

    it('disconnects a client that keeps sending none requests', async () => {
      await start({});
      let asked = 0;
      const conn = new ssh2.Client();
      const error = await new Promise<Error>((resolve) => {
        conn.once('error', resolve);
        conn.once('ready', () => resolve(new Error('authenticated with none')));
        conn.connect({
          host: '127.0.0.1',
          port: h.port,
          username: 'demo',
          authHandler: (_methods, _partial, next) => {
            asked += 1;
            next({ type: 'none', username: 'demo' });
          },
        });
      });
      conn.end();
      expect(error.message).to.equal('Too many authentication failures');
      // The first none asks for the methods; six more are failures.
      expect(asked).to.equal(7);
    });

    it('uses a configured maximum with the OpenSSH client too', async () => {
      await start({ maxAuthTries: 1 });
      const stranger = await makeKey(h.keys, 'stranger');
      const r = await h.ssh(stranger, 'demo', ['true']);
      expect(r.code).to.equal(255);
      expect(r.stderr).to.contain('Too many authentication failures');
    });
  });
});
