// A body over the limit is answered 413 {error} that ordinary clients read: Node's fetch and curl,
// straight, through a TCP relay (as a Service's NAT) and through an HTTP reverse proxy.
import { execFile } from 'node:child_process';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { DISCARD_LIMIT } from '../../../koa/body.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { startWith, stopAll, type Den } from './cluster.js';

const run = promisify(execFile);
const MIB = 1024 * 1024;
const REFUSED = { error: 'request body is larger than 1048576 bytes' };
/** A workspace request of 2 MiB (a padded key). */
const TWO_MIB = JSON.stringify({ name: 'dev', image: 'python', ssh_public_key: 'x'.repeat(2 * MIB) });

async function listen(server: net.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** Forwards bytes both ways and passes a reset on as a reset, as a NAT in between would. */
function tcpRelay(target: string): net.Server {
  return net.createServer((client) => {
    const upstream = net.connect(portOf(target), '127.0.0.1');
    client.pipe(upstream);
    upstream.pipe(client);
    upstream.on('error', () => client.resetAndDestroy());
    client.on('error', () => upstream.resetAndDestroy());
  });
}

/** A plain HTTP reverse proxy: request and response streamed through, one upstream connection each. */
function reverseProxy(target: string): http.Server {
  return http.createServer((req, res) => {
    const upstream = http.request({ host: '127.0.0.1', port: portOf(target), method: req.method, path: req.url, headers: req.headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502).end(`proxy: ${err.message}`);
    });
    req.pipe(upstream);
  });
}

/** Writes a body of `declared` bytes (chunked when undefined) until the server cuts the connection; what was written and read. */
async function sendUntilCut(url: string, declared?: number): Promise<{ written: number; answer: string }> {
  const socket = net.connect(portOf(url), '127.0.0.1');
  let answer = '';
  let closed = false;
  socket.setEncoding('latin1');
  socket.on('data', (text: string) => (answer += text));
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  // As curl and fetch do: once the server has answered and closed its side, stop sending.
  socket.on('end', () => {
    closed = true;
    socket.destroy();
  });
  const length = declared === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${declared}`;
  socket.write(`POST /api/v1/workspaces HTTP/1.1\r\nHost: den.test\r\nContent-Type: application/json\r\n${length}\r\n\r\n`);
  const chunk = Buffer.alloc(MIB, 'a');
  const framed = declared === undefined ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]) : chunk;
  let written = 0;
  while (!closed && written < (declared ?? 1024 * MIB)) {
    written += chunk.length;
    if (!socket.write(framed)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.on('drain', done);
        socket.on('close', done);
      });
    }
  }
  if (!closed) await new Promise((resolve) => socket.once('close', resolve));
  return { written, answer };
}

describe('a request body over the limit', () => {
  let api: FakeApiServer;
  let den: Den;
  const servers: net.Server[] = [];
  let dir: string;

  before(async () => {
    ({ api, den } = await startWith({}));
    dir = await mkdtemp(join(tmpdir(), 'den-body-'));
    await writeFile(join(dir, 'body.json'), TWO_MIB);
  });
  after(async () => {
    for (const s of servers) await new Promise((resolve) => s.close(resolve));
    await stopAll(den, api);
    await rm(dir, { recursive: true, force: true });
  });

  async function via(kind: 'direct' | 'a TCP relay' | 'a reverse proxy'): Promise<string> {
    if (kind === 'direct') return den.url;
    const server = kind === 'a TCP relay' ? tcpRelay(den.url) : reverseProxy(den.url);
    servers.push(server);
    return listen(server);
  }

  for (const kind of ['direct', 'a TCP relay', 'a reverse proxy'] as const) {
    it(`answers 413 {error} to Node's fetch sending 2 MiB, ${kind}, every time`, async () => {
      const base = await via(kind);
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${base}/api/v1/workspaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: TWO_MIB });
        expect(res.status).to.equal(413);
        expect(await res.json()).to.deep.equal(REFUSED);
      }
    });

    it(`answers 413 {error} to curl sending 2 MiB, ${kind}`, async () => {
      const base = await via(kind);
      const { stdout } = await run('curl', ['-sS', '-o', '-', '-w', '\n%{http_code}', '-H', 'Content-Type: application/json', '--data-binary', `@${join(dir, 'body.json')}`, `${base}/api/v1/workspaces`]);
      const [body, status] = stdout.split('\n');
      expect(status).to.equal('413');
      expect(JSON.parse(body!)).to.deep.equal(REFUSED);
    });
  }

  it("answers 413 {error} to fetch streaming 2 MiB without a length, through a reverse proxy", async () => {
    const base = await via('a reverse proxy');
    const body = new Blob([TWO_MIB]).stream();
    const res = await fetch(`${base}/api/v1/workspaces`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    expect(res.status).to.equal(413);
    expect(await res.json()).to.deep.equal(REFUSED);
  });

  it('answers a form streamed past the limit with the 413 page, through a reverse proxy', async () => {
    const base = await via('a reverse proxy');
    const body = new Blob([`username=alice&password=${'x'.repeat(2 * MIB)}`]).stream();
    const res = await fetch(`${base}/login`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body, duplex: 'half' } as RequestInit);
    expect(res.status).to.equal(413);
    expect(await res.text()).to.include('the form is larger than 1048576 bytes');
  });

  it('serves the next request on the same connection after the 413', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ask = (body?: string) =>
      new Promise<{ status: number; socket: net.Socket }>((resolve, reject) => {
        const req = http.request(`${den.url}/healthz`, { method: body ? 'POST' : 'GET', agent, headers: body ? { 'Content-Type': 'application/json' } : {} }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket! }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const refused = await ask(TWO_MIB);
    const next = await ask();
    agent.destroy();
    expect([refused.status, next.status]).to.deep.equal([413, 200]);
    expect(next.socket).to.equal(refused.socket);
  });

  it('cuts off a body declared past the discard bound instead of reading it', async () => {
    const { written } = await sendUntilCut(den.url, 1024 * MIB);
    expect(written).to.be.below(DISCARD_LIMIT + 32 * MIB);
  });

  it('keeps a cut-off connection open long enough for a client busy sending to read the 413 afterwards', async () => {
    const socket = net.connect(portOf(den.url), '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    socket.write(`POST /api/v1/workspaces HTTP/1.1\r\nHost: den.test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = Buffer.concat([Buffer.from(`${MIB.toString(16)}\r\n`), Buffer.alloc(MIB, 'a'), Buffer.from('\r\n')]);
    // Sends without reading until the server stops taking bytes, then reads only after a pause.
    for (let stalled = false; !stalled; ) {
      if (!socket.write(chunk)) stalled = !(await Promise.race([new Promise((resolve) => socket.once('drain', () => resolve(true))), new Promise((resolve) => setTimeout(() => resolve(false), 500))]));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => (answer += text));
    await new Promise((resolve) => {
      socket.once('end', resolve);
      socket.once('close', resolve);
      socket.resume();
    });
    socket.destroy();
    expect(answer).to.match(/^HTTP\/1\.1 413 /);
    expect(answer).to.include(JSON.stringify(REFUSED));
  });

  it('reads a streamed body only up to the discard bound, answers 413 and closes', async () => {
    const { written, answer } = await sendUntilCut(den.url);
    expect(written).to.be.above(DISCARD_LIMIT - MIB).and.below(DISCARD_LIMIT + 32 * MIB);
    expect(answer).to.match(/^HTTP\/1\.1 413 /);
    expect(answer).to.include('Connection: close');
    expect(answer).to.include(JSON.stringify(REFUSED));
  });
});
