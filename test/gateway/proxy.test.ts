// PROXY protocol from a load balancer, seen from outside: a small loopback proxy that prepends
// a v2 header naming another client address and pipes to the gateway, the real OpenSSH client
// through it, and raw sockets sending headers the gateway must refuse.
import { expect } from 'chai';
import net from 'node:net';
import { GatewayHarness, makeKey, pod, workspace, type UserKey } from './harness.js';
import type { GatewayLimits } from '../../gateway/server.js';
import { ipv4Block, proxyV2 } from './proxy-header.js';

/** A load balancer on loopback: each connection to it opens one to the gateway that begins with `header()`. */
class HeaderProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(gatewayPort: number, header: () => Buffer) {
    this.server = net.createServer((client) => {
      const upstream = net.connect({ host: '127.0.0.1', port: gatewayPort }, () => {
        upstream.write(header());
        client.pipe(upstream).pipe(client);
      });
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.once('close', () => this.sockets.delete(s));
      }
      // Either end going away ends the other: a refused connection reaches the ssh client as a reset.
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Everything the gateway sends on a raw connection that begins with `bytes`, once it closes. */
function sendAndCollect(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(bytes));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined); // a reset is how some refusals arrive
    socket.once('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('PROXY protocol from a trusted load balancer', function () {
  this.timeout(30_000);
  let h: GatewayHarness;
  let alice: UserKey;
  const proxies: HeaderProxy[] = [];

  async function start(opts: { proxyProtocolFrom: string[]; limits?: Partial<GatewayLimits> }): Promise<void> {
    h = await new GatewayHarness().start(opts);
    alice = await makeKey(h.keys, 'alice');
    await h.seed(workspace('demo', [alice.publicKey], { podName: 'demo-0' }), pod('demo-0', 'demo'));
  }

  async function proxy(address: string, port = 51000): Promise<HeaderProxy> {
    const p = await new HeaderProxy(h.port, () => proxyV2(0x11, ipv4Block(address, port))).listen();
    proxies.push(p);
    return p;
  }

  const ssh = (through: HeaderProxy, command: string) => h.command('ssh', [...h.sshOptions(alice), '-p', String(through.port), 'demo@127.0.0.1', command]);
  const logged = (msg: string) => h.logs.filter((l) => l.msg === msg);
  const signedIn = () => h.logs.filter((l) => l.msg === 'audit' && l.fields?.audit === 'sign-in' && l.fields.outcome === 'success');

  afterEach(async () => {
    for (const p of proxies.splice(0)) await p.close();
    await h.close();
  });

  it('logs in OpenSSH through a proxy that sends a v2 header, and names the header\'s client', async () => {
    await start({ proxyProtocolFrom: ['127.0.0.0/8'] });
    const r = await ssh(await proxy('203.0.113.7', 40001), 'echo through the balancer');
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal('through the balancer\n');
    expect(signedIn().map((l) => l.fields?.client)).to.deep.equal(['203.0.113.7:40001']);
  });

  it('counts the per-source cap by the header\'s address, not the balancer\'s', async () => {
    await start({ proxyProtocolFrom: ['127.0.0.1'], limits: { maxStartupsPerSource: 1 } });
    const crowded = await proxy('203.0.113.7');
    const silent = net.connect({ host: '127.0.0.1', port: crowded.port });
    silent.on('error', () => undefined);
    await waitFor(() => h.gateway.unauthenticatedConnections === 1);
    try {
      const refused = await ssh(crowded, 'true');
      expect(refused.code).to.equal(255);
      expect(refused.stderr).to.match(/kex_exchange_identification/);
      const other = await ssh(await proxy('198.51.100.9'), 'echo other client');
      expect(other.code, other.stderr).to.equal(0);
      expect(other.stdout).to.equal('other client\n');
      expect(logged('connections refused before the SSH handshake: too many not yet authenticated').map((l) => [l.fields?.last, l.fields?.reason])).to.deep.equal([['203.0.113.7', 'per-source cap reached']]);
    } finally {
      silent.destroy();
    }
  });

  it('refuses a PROXY header from an address it does not trust, and logs it', async () => {
    await start({ proxyProtocolFrom: ['192.0.2.10'] });
    const r = await ssh(await proxy('203.0.113.7'), 'true');
    expect(r.code).to.equal(255);
    expect(signedIn()).to.deep.equal([]);
    expect(logged('PROXY protocol header from an address not trusted to send one; connection closed')).to.have.length(1);

    const plain = await h.ssh(alice, 'demo', ['echo plain ssh']);
    expect(plain.code, plain.stderr).to.equal(0);
    expect(plain.stdout).to.equal('plain ssh\n');
  });

  it('refuses a trusted peer that sends plain SSH or a malformed header, before its version line', async () => {
    await start({ proxyProtocolFrom: ['127.0.0.1'] });
    expect(await sendAndCollect(h.port, Buffer.from('SSH-2.0-OpenSSH_9.2\r\n'))).to.equal('');
    expect(await sendAndCollect(h.port, Buffer.from('PROXY TCP4 203.0.113.300 10.0.0.5 1 2\r\n'))).to.equal('');
    expect(logged('PROXY protocol header refused; connection closed').map((l) => l.fields?.reason)).to.deep.equal(['no PROXY protocol header', 'malformed PROXY v1 line']);
  });

  it('takes a v1 line too, and a LOCAL header as the balancer itself', async () => {
    await start({ proxyProtocolFrom: ['127.0.0.1'] });
    const v1 = await new HeaderProxy(h.port, () => Buffer.from('PROXY TCP4 198.51.100.20 10.0.0.5 6000 22\r\n')).listen();
    const local = await new HeaderProxy(h.port, () => proxyV2(0x00, Buffer.alloc(0), 0)).listen();
    proxies.push(v1, local);
    for (const through of [v1, local]) {
      const r = await ssh(through, 'echo ok');
      expect(r.code, r.stderr).to.equal(0);
    }
    const remotes = signedIn().map((l) => String(l.fields?.client));
    expect(remotes[0]).to.equal('198.51.100.20:6000');
    expect(remotes[1]).to.match(/^127\.0\.0\.1:\d+$/);
  });

  it('closes a trusted peer that sends no header within the login grace time', async () => {
    await start({ proxyProtocolFrom: ['127.0.0.1'], limits: { loginGraceMs: 1000 } });
    expect(await sendAndCollect(h.port, Buffer.alloc(0))).to.equal('');
    expect(logged('no PROXY protocol header within the login grace time; connection closed')).to.have.length(1);
  });
});
