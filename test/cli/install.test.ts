// `den` from the deployment, as a person installs it on a laptop: the real `den server` of the
// platform on this machine, then the system's curl piped into the system's sh on a clean HOME,
// and the installed ~/.local/bin/den signing in with --token-stdin and listing workspaces. The
// npm way, an upgrade in place, a too-old or missing Node and a failed download too.
import { mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { RESOURCES } from '../../kube/resources.js';
import { denVersion } from '../../process/version.js';
import { freePort } from '../support/loopback.js';
import { eventually, LocalPlatform, runCommand, runDen, type CommandResult } from '../support/platform.js';

/** A folder holding only `node` (this project's Node 24), put before the system's folders. */
async function nodeFolder(root: string): Promise<string> {
  const dir = join(root, 'node-bin');
  await mkdir(dir, { recursive: true });
  await symlink(process.execPath, join(dir, 'node'));
  return dir;
}

/** A `node` that says it is Node 16, as an old laptop's does. */
async function oldNodeFolder(root: string): Promise<string> {
  const dir = join(root, 'old-node-bin');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'node'), '#!/bin/sh\necho v16.20.2\n', { mode: 0o755 });
  return dir;
}

describe('den installed from the deployment (curl | sh, npm install -g)', function () {
  this.timeout(120_000);
  // Two server replicas behind one address, as installed: the script and the package it fetches may come from either.
  const platform = new LocalPlatform();
  let root = '';
  let nodeBin = '';
  let token = '';

  /** A clean laptop: its own HOME, and PATH = extra folders then the system's (curl, tar, sh). */
  async function home(): Promise<string> {
    return mkdtemp(join(root, 'home-'));
  }
  function envOf(homeDir: string, path: string): NodeJS.ProcessEnv {
    return { HOME: homeDir, PATH: path, LANG: 'C.UTF-8', TMPDIR: root };
  }
  /** `curl -fsSL <url>/cli/install.sh | sh`, exactly as the profile page says. */
  function install(homeDir: string, path: string, base = platform.baseUrl): Promise<CommandResult> {
    return runCommand('/bin/sh', ['-c', `curl -fsSL ${base}/cli/install.sh | sh`], { env: envOf(homeDir, path), timeoutMs: 60_000 });
  }

  before(async function () {
    this.timeout(180_000);
    root = await mkdtemp(join(tmpdir(), 'den-install-'));
    nodeBin = await nodeFolder(root);
    await platform.start();
    const added = await runDen(['users', 'add', 'alice', '--owner', 'alice@example.com', '--password-stdin', '--kubeconfig', platform.kubeconfig], { stdin: 'alice-password\n' });
    expect(added.code, added.stderr).to.equal(0);
    await eventually(() => platform.api.object<any>(RESOURCES.userSpace, 'alice')?.status?.phase === 'Ready', 'UserSpace alice Ready', 20_000);
    const login = await fetch(`${platform.baseUrl}/api/v1/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'alice-password' }) });
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const issued = await fetch(`${platform.baseUrl}/api/v1/tokens?name=laptop`, { method: 'POST', headers: { Cookie: cookie, 'X-CSRF-Token': login.headers.get('x-csrf-token')! } });
    token = ((await issued.json()) as { token: string }).token;
    await platform.admin.create(RESOURCES.workspaceImage, { apiVersion: RESOURCES.workspaceImage.apiVersion, kind: 'WorkspaceImage', metadata: { name: 'ubuntu' }, spec: { displayName: 'Ubuntu', image: platform.workspaceImage, homePath: platform.podRoot } });
    const created = await fetch(`${platform.baseUrl}/api/v1/workspaces`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'dev', image: 'ubuntu', cpu: '1', memory: '1Gi', storage: '1Gi', ssh_public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEx4LpEc0mJpYbN5x7Kp8Qv2wq1bS0mWZ3bq3o1X5n2K alice@laptop' }),
    });
    expect(created.status, await created.text()).to.equal(201);
  });

  after(async function () {
    this.timeout(30_000);
    await platform.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('on a clean HOME puts den in ~/.local/bin, says to add it to PATH, and that den shows both versions', async () => {
    const laptop = await home();
    const run = await install(laptop, `${nodeBin}:/usr/bin:/bin`);
    expect(run.code, run.stderr).to.equal(0);
    const bin = join(laptop, '.local', 'bin');
    expect(run.stderr).to.equal(
      [
        `Downloading den ${denVersion()} from ${platform.baseUrl}/cli/den.tgz`,
        `den ${denVersion()} installed: ${bin}/den`,
        `${bin} is not on your PATH: add it, e.g. put  export PATH="${bin}:$PATH"  in ~/.profile (or your shell's rc file), then open a new terminal`,
        `Sign in with: den login ${platform.baseUrl}`,
        '',
      ].join('\n'),
    );
    expect((await stat(join(bin, 'den'))).mode & 0o111).to.equal(0o111);
    expect((await readdir(join(laptop, '.local', 'share', 'den'))).sort()).to.deep.equal(['README.md', 'den.js', 'package.json']);
    const version = await runCommand(join(bin, 'den'), ['version', '--url', platform.baseUrl], { env: envOf(laptop, `${nodeBin}:/usr/bin:/bin`) });
    expect(version).to.deep.equal({ code: 0, stdout: `den     ${denVersion()}\nserver  ${denVersion()} (${platform.baseUrl})\n`, stderr: '' });
  });

  it('the installed den signs in with --token-stdin and lists the workspaces, with ~/.local/bin on PATH', async () => {
    const laptop = await home();
    const path = `${join(laptop, '.local', 'bin')}:${nodeBin}:/usr/bin:/bin`;
    const run = await install(laptop, path);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).not.to.contain('is not on your PATH');
    const den = (args: string[], stdin?: string) => runCommand('/bin/sh', ['-c', 'den "$@"', 'den', ...args], { env: envOf(laptop, path), stdin });
    const login = await den(['login', platform.baseUrl, '--token-stdin'], `${token}\n`);
    expect(login.code, login.stderr).to.equal(0);
    expect(login.stderr).to.equal(`signed in to ${platform.baseUrl} as alice@example.com (context 127-0-0-1-${new URL(platform.baseUrl).port})\n`);
    const ls = await den(['ls', '-o', 'json']);
    expect(ls.code, ls.stderr).to.equal(0);
    expect((JSON.parse(ls.stdout) as { items: { metadata: { name: string } }[] }).items.map((w) => w.metadata.name)).to.deep.equal(['dev']);
    const table = await den(['ls']);
    expect(table.stdout.split('\n')[1]).to.match(/^dev\s/);
    const version = await den(['version']);
    expect(version.stdout).to.equal(`den     ${denVersion()}\nserver  ${denVersion()} (${platform.baseUrl})\n`);
  });

  it('run again over an older install, upgrades it in place and keeps one launcher', async () => {
    const laptop = await home();
    const path = `${nodeBin}:/usr/bin:/bin`;
    expect((await install(laptop, path)).code).to.equal(0);
    const pkgFile = join(laptop, '.local', 'share', 'den', 'package.json');
    await writeFile(pkgFile, (await readFile(pkgFile, 'utf8')).replace(`"version": "${denVersion()}"`, '"version": "0.0.1"'));
    const run = await install(laptop, path);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.contain(`den upgraded from 0.0.1 to ${denVersion()}: ${join(laptop, '.local', 'bin', 'den')}\n`);
    expect(JSON.parse(await readFile(pkgFile, 'utf8')).version).to.equal(denVersion());
    expect(await readdir(join(laptop, '.local', 'share'))).to.deep.equal(['den']);
    expect(await readdir(join(laptop, '.local', 'bin'))).to.deep.equal(['den']);
  });

  it('leaves a den in ~/.local/bin that it did not write alone, and says so', async () => {
    const laptop = await home();
    await mkdir(join(laptop, '.local', 'bin'), { recursive: true });
    await writeFile(join(laptop, '.local', 'bin', 'den'), '#!/bin/sh\necho another den\n', { mode: 0o755 });
    const run = await install(laptop, `${nodeBin}:/usr/bin:/bin`);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.equal(`den install: ${join(laptop, '.local', 'bin', 'den')} exists and is not a den this script installed: move it away (or set DEN_BIN_DIR), then run this again\n`);
    expect(await readFile(join(laptop, '.local', 'bin', 'den'), 'utf8')).to.equal('#!/bin/sh\necho another den\n');
    expect(await readdir(join(laptop, '.local'))).to.deep.equal(['bin']);
  });

  it('with a Node older than 22 on PATH says in one line which Node it needs and where to get it, exit 1, nothing installed', async () => {
    const laptop = await home();
    const old = await oldNodeFolder(root);
    const run = await install(laptop, `${old}:/usr/bin:/bin`);
    expect(run).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: `den install: den needs Node.js 22 or newer, but ${old}/node is v16.20.2: install a current Node.js from https://nodejs.org/ (or your package manager), then run this again\n`,
    });
    expect(await readdir(laptop)).to.deep.equal([]);
  });

  it('with no node on PATH says which Node it needs, exit 1, nothing installed', async () => {
    const laptop = await home();
    const script = join(root, 'install-no-node.sh');
    await writeFile(script, await (await fetch(`${platform.baseUrl}/cli/install.sh`)).text());
    const empty = await mkdtemp(join(root, 'empty-path-'));
    const run = await runCommand('/bin/sh', [script], { env: envOf(laptop, empty) });
    expect(run).to.deep.equal({ code: 1, stdout: '', stderr: 'den install: den needs Node.js 22 or newer and there is no node on PATH: install it from https://nodejs.org/ (or your package manager), then run this again\n' });
    expect(await readdir(laptop)).to.deep.equal([]);
  });

  it('when the download fails says which address failed and what to do, exit 1, nothing installed', async () => {
    const laptop = await home();
    // The script of a Den whose address no longer answers: saved, then run.
    const script = (await (await fetch(`${platform.baseUrl}/cli/install.sh`)).text()).replace(`den_url='${platform.baseUrl}'`, `den_url='http://127.0.0.1:${await freePort()}'`);
    const gone = script.match(/^den_url='([^']+)'$/m)![1]!;
    await writeFile(join(root, 'install-gone.sh'), script);
    const run = await runCommand('/bin/sh', [join(root, 'install-gone.sh')], { env: envOf(laptop, `${nodeBin}:/usr/bin:/bin`) });
    expect(run.code).to.equal(1);
    expect(run.stderr.trim().split('\n').pop()).to.equal(`den install: could not download ${gone}/cli/den.tgz (curl failed, see above): check the address and your network, then run this again`);
    expect(await readdir(laptop)).to.deep.equal([]);
  });

  it('on a laptop with wget and no curl, wget -qO- <base-url>/cli/install.sh | sh installs a den that works', async () => {
    const laptop = await home();
    // The system's programs, all but curl: the script must find wget on its own.
    const noCurl = join(root, 'no-curl-bin');
    await mkdir(noCurl, { recursive: true });
    for (const dir of ['/usr/bin', '/bin']) {
      for (const name of await readdir(dir)) {
        if (name === 'curl') continue;
        await symlink(join(dir, name), join(noCurl, name)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        });
      }
    }
    const path = `${nodeBin}:${noCurl}`;
    expect((await runCommand('/bin/sh', ['-c', 'command -v curl || echo none'], { env: envOf(laptop, path) })).stdout).to.equal('none\n');
    const run = await runCommand('/bin/sh', ['-c', `wget -qO- ${platform.baseUrl}/cli/install.sh | sh`], { env: envOf(laptop, path), timeoutMs: 60_000 });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr.split('\n').slice(0, 2)).to.deep.equal([
      `Downloading den ${denVersion()} from ${platform.baseUrl}/cli/den.tgz`,
      `den ${denVersion()} installed: ${join(laptop, '.local', 'bin', 'den')}`,
    ]);
    const version = await runCommand(join(laptop, '.local', 'bin', 'den'), ['version', '--url', platform.baseUrl], { env: envOf(laptop, path) });
    expect(version).to.deep.equal({ code: 0, stdout: `den     ${denVersion()}\nserver  ${denVersion()} (${platform.baseUrl})\n`, stderr: '' });
  });

  it('npm install -g <base-url>/cli/den.tgz installs the same den', async () => {
    const prefix = await mkdtemp(join(root, 'npm-prefix-'));
    const laptop = await home();
    const env = { ...envOf(laptop, `${nodeBin}:/usr/bin:/bin`), npm_config_cache: join(laptop, '.npm'), npm_config_update_notifier: 'false' };
    const run = await runCommand('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', `${platform.baseUrl}/cli/den.tgz`], { env, timeoutMs: 90_000 });
    expect(run.code, run.stderr).to.equal(0);
    const version = await runCommand(join(prefix, 'bin', 'den'), ['version', '--url', platform.baseUrl], { env });
    expect(version).to.deep.equal({ code: 0, stdout: `den     ${denVersion()}\nserver  ${denVersion()} (${platform.baseUrl})\n`, stderr: '' });
  });
});
