// The den a laptop installs from its Den, as HTTP answers: /cli/install.sh, /cli/den.tgz and
// /api/v1/version, public and GET-only, with content types and ETags; the tarball is the npm
// package of the developer commands and nothing else of Den; `den version` compares versions.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { denVersion } from '../../../process/version.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { freePort } from '../../support/loopback.js';
import { runCommand } from '../../support/platform.js';
import { laptop, type Laptop } from '../../cli/dev/support.js';
import { SERVER_TOKEN, startCluster, startDen, type Den } from '../core/cluster.js';

/** The system's Node, older than the bundle's floor on this image. */
const SYSTEM_NODE = '/usr/bin/node';

describe('den server serves the den that matches it', function () {
  this.timeout(60_000);
  let api: FakeApiServer;
  let den: Den;
  let dir: string;

  before(async () => {
    api = await startCluster();
    den = await startDen(api);
    dir = await mkdtemp(join(tmpdir(), 'den-cli-dist-'));
  });
  after(async () => {
    await den.close();
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('GET /cli/install.sh answers without signing in: sh naming this Den and its version, text/plain, an ETag, no-cache', async () => {
    const res = await fetch(`${den.url}/cli/install.sh`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(res.headers.get('cache-control')).to.equal('public, no-cache, no-transform');
    expect(res.headers.get('content-encoding'), 'sent as the ETag names it, though fetch accepts gzip and br').to.equal(null);
    expect(res.headers.get('etag')).to.match(/^"[A-Za-z0-9_-]{43}"$/);
    expect(res.headers.get('set-cookie')).to.equal(null);
    const script = await res.text();
    expect(script.split('\n')[0]).to.equal('#!/bin/sh');
    expect(script).to.contain("den_url='http://den.test'\n");
    expect(script).to.contain(`den_version='${denVersion()}'\n`);
    await writeFile(join(dir, 'install.sh'), script);
    const syntax = await runCommand('sh', ['-n', join(dir, 'install.sh')]);
    expect(syntax).to.deep.equal({ code: 0, stdout: '', stderr: '' });
  });

  it('answers 304 to If-None-Match with its ETag, and HEAD with the headers but no body', async () => {
    for (const path of ['/cli/install.sh', '/cli/den.tgz', '/api/v1/version']) {
      const first = await fetch(`${den.url}${path}`);
      await first.arrayBuffer();
      const etag = first.headers.get('etag')!;
      // curl, as install.sh and people use it: fetch() sends Cache-Control: no-cache with If-None-Match.
      const again = await runCommand('curl', ['-s', '-D', '-', '-H', `If-None-Match: ${etag}`, `${den.url}${path}`]);
      expect(again.stdout.split('\r\n')[0], path).to.equal('HTTP/1.1 304 Not Modified');
      expect(again.stdout.split('\r\n\r\n')[1], path).to.equal('');
      const head = await fetch(`${den.url}${path}`, { method: 'HEAD' });
      expect(head.status, path).to.equal(200);
      expect(head.headers.get('etag'), path).to.equal(etag);
      expect(head.headers.get('content-type'), path).to.equal(first.headers.get('content-type'));
    }
  });

  it('GET /cli/den.tgz is the npm package of den: package.json (bin den, engines, this version), den.js and README.md only', async () => {
    const res = await fetch(`${den.url}/cli/den.tgz`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/gzip');
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="den-${denVersion()}.tgz"`);
    const tarball = Buffer.from(await res.arrayBuffer());
    await writeFile(join(dir, 'den.tgz'), tarball);
    const listing = await runCommand('tar', ['-tzvf', join(dir, 'den.tgz')]);
    expect(listing.code, listing.stderr).to.equal(0);
    expect(listing.stdout.trim().split('\n').map((line) => line.split(/\s+/).pop())).to.deep.equal(['package/package.json', 'package/den.js', 'package/README.md']);
    expect(listing.stdout).to.match(/^-rwxr-xr-x .* package\/den\.js$/m);
    await runCommand('tar', ['-xzf', join(dir, 'den.tgz'), '-C', dir]);
    const pkg = JSON.parse(await readFile(join(dir, 'package', 'package.json'), 'utf8'));
    expect(pkg).to.include({ name: 'den-cli', version: denVersion(), type: 'module' });
    expect(pkg.bin).to.deep.equal({ den: 'den.js' });
    expect(pkg.engines).to.deep.equal({ node: '>=22' });
    expect(pkg.dependencies).to.equal(undefined);
    const script = await (await fetch(`${den.url}/cli/install.sh`)).text();
    expect(script).to.contain(`den_sha256='${createHash('sha256').update(tarball).digest('hex')}'\n`);
  });

  it('den.js holds the developer commands and nothing of the server, gateway, manager or their secrets', async () => {
    const bundle = await readFile(join(dir, 'package', 'den.js'), 'utf8');
    expect(bundle.split('\n')[0]).to.equal('#!/usr/bin/env node');
    expect(bundle).to.contain('den login <base-url>');
    for (const foreign of ['from "koa"', '@kubernetes/client-node', 'from "ssh2"', 'cdk8s', 'scrypt', SERVER_TOKEN, 'BEGIN OPENSSH PRIVATE KEY', 'sourceMappingURL']) {
      expect(bundle, foreign).not.to.contain(foreign);
    }
    const imports = [...bundle.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]!);
    expect(imports.filter((name) => !name.startsWith('node:'))).to.deep.equal([]);
    const run = await runCommand(process.execPath, [join(dir, 'package', 'den.js'), '--help']);
    expect(run.code).to.equal(0);
    expect(run.stdout).to.contain('  ls         list your workspaces');
    expect(run.stdout).not.to.contain('Platform roles');
    const role = await runCommand(process.execPath, [join(dir, 'package', 'den.js'), 'server']);
    expect(role).to.deep.equal({ code: 2, stdout: '', stderr: "den: 'server' runs in Den's container image, not in this laptop's den (see den --help)\n" });
  });

  it('den.js run on a Node older than 22 (Debian\'s 20 on this image) says in one line which it needs, exit 2', async () => {
    const system = existsSync(SYSTEM_NODE) ? (await runCommand(SYSTEM_NODE, ['--version'])).stdout.trim() : '';
    const real = system !== '' && Number(system.slice(1).split('.')[0]) < 22;
    // Without an old Node on the machine, this Node under a preload that reports 20.19.2.
    const shim = join(dir, 'report-node-20.mjs');
    await writeFile(shim, "Object.defineProperty(process, 'version', { value: 'v20.19.2' }); Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.19.2' } });\n");
    const seen = real ? system : 'v20.19.2';
    const run = real ? await runCommand(SYSTEM_NODE, [join(dir, 'package', 'den.js'), 'ls']) : await runCommand(process.execPath, ['--import', shim, join(dir, 'package', 'den.js'), 'ls']);
    expect(run).to.deep.equal({ code: 2, stdout: '', stderr: `den: needs Node.js 22 or newer, not ${seen}: install a current one from https://nodejs.org/\n` });
  });

  it('refuses other methods with 405 naming GET and HEAD, before asking for a sign-in', async () => {
    for (const [method, path] of [['POST', '/cli/install.sh'], ['PUT', '/cli/den.tgz'], ['DELETE', '/cli/den.tgz'], ['POST', '/api/v1/version']] as const) {
      const res = await fetch(`${den.url}${path}`, { method });
      expect(res.status, `${method} ${path}`).to.equal(405);
      expect(res.headers.get('allow')).to.equal('GET, HEAD');
      expect(await res.json()).to.deep.equal({ error: `${path} answers GET and HEAD only, not ${method}` });
    }
  });

  it('GET /api/v1/version answers this Den\'s version without signing in', async () => {
    const res = await fetch(`${den.api}/version`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(await res.json()).to.deep.equal({ version: denVersion() });
  });

  describe('den version', () => {
    let me: Laptop;
    let older: Den;
    before(async () => {
      me = await laptop();
      older = await startDen(api, { version: '0.0.9' });
    });
    after(async () => {
      await older.close();
      await rm(me.home, { recursive: true, force: true });
    });

    it('shows its own version and the server\'s, and no warning when they are the same', async () => {
      const run = await me.den(['version', '--url', den.url]);
      expect(run).to.deep.equal({ code: 0, stdout: `den     ${denVersion()}\nserver  ${denVersion()} (${den.url})\n`, stderr: '' });
    });

    it('warns on stderr, with the line that installs the matching den, when the server runs another version', async () => {
      const run = await me.den(['version', '--url', older.url]);
      expect(run.code).to.equal(0);
      expect(run.stdout).to.equal(`den     ${denVersion()}\nserver  0.0.9 (${older.url})\n`);
      expect(run.stderr).to.equal(`den version: warning: this den is ${denVersion()} but ${older.url} runs 0.0.9; install the matching den with: curl -fsSL ${older.url}/cli/install.sh | sh\n`);
    });

    it('-o json gives both versions for scripts', async () => {
      const run = await me.den(['version', '--url', older.url, '-o', 'json']);
      expect(JSON.parse(run.stdout)).to.deep.equal({ client: { version: denVersion() }, server: { url: older.url, version: '0.0.9' } });
    });

    it('not signed in anywhere, shows its own version and says how to ask a server', async () => {
      const run = await me.den(['version']);
      expect(run).to.deep.equal({ code: 0, stdout: `den     ${denVersion()}\n`, stderr: 'den version: not signed in to any Den, so no server version (ask one with den version --url <base-url>)\n' });
    });

    it('a server that is not there is one line naming it, exit 1', async () => {
      const nobody = `http://127.0.0.1:${await freePort()}`;
      const run = await me.den(['version', '--url', nobody]);
      expect(run).to.deep.equal({ code: 1, stdout: '', stderr: `den version: cannot reach ${nobody}: ECONNREFUSED\n` });
    });
  });
});
