// What goes over the wire from den server: text answers compressed as the client asks (brotli
// or gzip), with `Vary: Accept-Encoding`, the same bytes once decoded, small answers and
// clients that accept no encoding left as they are; and a favicon instead of a 404.
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { fetchPage, postLoginForm } from '../../support/web.js';
import { startWith, stopAll, type Den } from '../core/cluster.js';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET as it crosses the wire: nothing decoded (fetch would decode it and hide what was sent). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

function decoded(answer: RawAnswer): Buffer {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(answer.body);
  if (encoding === 'gzip') return gunzipSync(answer.body);
  return answer.body;
}

describe('den server compresses text answers and serves a favicon', function () {
  this.timeout(30_000);
  let api: FakeApiServer;
  let den: Den;
  let cookie: string;
  let stylesheet: string;

  before(async () => {
    ({ api, den } = await startWith({ alice: {} }));
    const login = await postLoginForm(den.url, { username: 'alice', password: 'alice-password' });
    cookie = login.headers.getSetCookie().find((c) => c.startsWith('svc_session='))!.split(';')[0]!;
    const dashboard = await fetchPage(`${den.url}/`, { cookie });
    stylesheet = /href="(\/assets\/den\.[A-Z0-9]+\.css)"/.exec(dashboard.text)![1]!;
  });
  after(() => stopAll(den, api));

  it('sends a page with brotli to a browser that accepts it, the same page once decoded, and says it varies by encoding', async () => {
    const plain = await rawGet(`${den.url}/profile`, { Cookie: cookie });
    const br = await rawGet(`${den.url}/profile`, { Cookie: cookie, 'Accept-Encoding': 'gzip, deflate, br, zstd' });
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(plain.headers.vary).to.match(/Accept-Encoding/i);
    expect(br.headers['content-encoding']).to.equal('br');
    expect(br.headers.vary).to.match(/Accept-Encoding/i);
    expect(br.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(br.body.length).to.be.below(plain.body.length / 2);
    // The page carries a fresh CSRF field per session, not per request: the two are the same page.
    expect(decoded(br).toString()).to.equal(plain.body.toString());
  });

  it('sends gzip to a client that accepts only gzip, for the stylesheet and for the REST API alike', async () => {
    const asset = await rawGet(`${den.url}${stylesheet}`, { 'Accept-Encoding': 'gzip' });
    expect(asset.headers['content-encoding']).to.equal('gzip');
    expect(asset.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    const identity = await rawGet(`${den.url}${stylesheet}`);
    expect(decoded(asset).equals(identity.body)).to.equal(true);
    // The kept encoding is reused: a second answer is the same bytes.
    expect((await rawGet(`${den.url}${stylesheet}`, { 'Accept-Encoding': 'gzip' })).body.equals(asset.body)).to.equal(true);

    const openapi = await rawGet(`${den.url}/api/v1/openapi.json`, { 'Accept-Encoding': 'gzip' });
    expect(openapi.status).to.equal(200);
    expect(openapi.headers['content-encoding']).to.equal('gzip');
    expect(JSON.parse(decoded(openapi).toString())).to.have.property('openapi');
  });

  it('leaves small answers and refused encodings alone', async () => {
    const small = await rawGet(`${den.url}/api/v1/session`, { Cookie: cookie, 'Accept-Encoding': 'br, gzip' });
    expect(small.status).to.equal(200);
    expect(small.body.length).to.be.below(1024);
    expect(small.headers['content-encoding']).to.equal(undefined);
    const refused = await rawGet(`${den.url}/profile`, { Cookie: cookie, 'Accept-Encoding': 'br;q=0, gzip;q=0' });
    expect(refused.headers['content-encoding']).to.equal(undefined);
    expect(refused.body.toString()).to.contain('<h1>Profile</h1>');
  });

  it('serves the favicon every page links to, and /favicon.ico leads to it', async () => {
    const page = await fetchPage(`${den.url}/login`);
    const icon = /<link rel="icon" href="(\/assets\/favicon\.[A-Z0-9]{8}\.svg)" type="image\/svg\+xml">/.exec(page.text)?.[1];
    expect(icon, 'the sign-in page links the icon').to.be.a('string');
    const svg = await rawGet(`${den.url}${icon}`);
    expect(svg.status).to.equal(200);
    expect(svg.headers['content-type']).to.equal('image/svg+xml');
    expect(svg.body.toString()).to.match(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const ico = await rawGet(`${den.url}/favicon.ico`);
    expect(ico.status).to.equal(302);
    expect(ico.headers.location).to.equal(icon);
  });
});
