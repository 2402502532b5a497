import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:net';
import ssh2 from 'ssh2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cloneSource } from '../../source/clone.js';
import { runCloneCommand } from '../../source/command.js';
import { knownHostName, sshKeyName } from '../../contract/git-ssh.js';
import { generateHostKey } from '../../ssh/host-key.js';
import { startGitSshServer, type GitSshServer } from '../support/git-ssh-server.js';

/** What real git says the checkout is. */
function gitState(dir: string): { head: string; branch: string; clean: boolean; origin: string } {
  const run = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } }).trim();
  return { head: run('rev-parse', 'HEAD'), branch: run('branch', '--show-current'), clean: run('status', '--porcelain') === '', origin: run('config', 'remote.origin.url') };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('cloning an SSH address (source/ssh-transport.ts, against git-upload-pack behind an SSH server)', function () {
  this.timeout(30_000);
  let server: GitSshServer;
  let home: string;
  let keys: string;
  let host: string;
  let url: string;
  before(async () => {
    server = await startGitSshServer();
    host = `127.0.0.1:${server.port}`;
    url = `ssh://git@127.0.0.1:${server.port}/app.git`;
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'den-ssh-clone-home-'));
    keys = mkdtempSync(join(tmpdir(), 'den-ssh-clone-keys-'));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(keys, { recursive: true, force: true });
  });

  /** Writes what the person keeps for `forHost`, as the den-git-credentials volume holds it. */
  function keep(forHost: string, kept: { privateKey?: string; knownHost?: string }): void {
    if (kept.privateKey !== undefined) writeFileSync(join(keys, sshKeyName(forHost)), kept.privateKey);
    if (kept.knownHost !== undefined) writeFileSync(join(keys, knownHostName(forHost)), kept.knownHost);
  }

  function homeHoldsNothing(): void {
    expect(readdirSync(home)).to.deep.equal(['.den']);
    expect(readdirSync(join(home, '.den'))).to.deep.equal([]);
  }

  it('clones with the kept key after checking the host key: real git reads a clean checkout at the right commit, whose origin is the SSH address', async () => {
    keep(host, { privateKey: server.personKey.privateKey, knownHost: server.knownHostLine });
    const outcome = await cloneSource({ url, home, directory: 'app', credentialsDir: keys });
    expect(outcome).to.deep.equal({ ok: true, message: `Cloned ${url} (branch main) into ~/app.` });
    expect(gitState(join(home, 'app'))).to.deep.equal({ head: server.commits.main, branch: 'main', clean: true, origin: url });
    expect(readdirSync(join(home, 'app')).sort()).to.deep.equal(['.git', 'README.md', 'second.txt']);
    expect(server.commands.at(-1)).to.equal(`git-upload-pack '/app.git'`);
  });

  it('den clone-source finds the SSH key beside the mounted credentials file, and its termination message says what it cloned', async () => {
    keep(host, { privateKey: server.personKey.privateKey, knownHost: server.knownHostLine });
    const statusFile = join(keys, 'termination-log');
    const lines: string[] = [];
    const code = await runCloneCommand({ DEN_SOURCE_URL: url, DEN_SOURCE_DIRECTORY: 'app', HOME: home, DEN_SOURCE_STATUS_FILE: statusFile, DEN_SOURCE_CREDENTIALS_FILE: join(keys, 'credentials') }, (l) => lines.push(l));
    expect(code).to.equal(0);
    expect(JSON.parse(readFileSync(statusFile, 'utf8'))).to.deep.equal({ message: `Cloned ${url} (branch main) into ~/app.` });
    expect(lines.join('\n')).to.not.include(server.personKey.privateKey.split('\n')[2]);
    expect(gitState(join(home, 'app'))).to.include({ head: server.commits.main, clean: true });
  });

  it('checks a host by the RSA key kept for it, when the host has an ed25519 key too', async () => {
    keep(host, { privateKey: server.personKey.privateKey, knownHost: server.rsaKnownHostLine });
    const outcome = await cloneSource({ url, home, directory: 'app', credentialsDir: keys });
    expect(outcome.message).to.equal(`Cloned ${url} (branch main) into ~/app.`);
  });

  it('refuses a host that offers no host key of the kept type, saying so', async () => {
    const ecdsa = generateKeyPairSync('ec', { namedCurve: 'P-256', privateKeyEncoding: { type: 'sec1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
    const line = `[127.0.0.1]:${server.port} ecdsa-sha2-nistp256 ${(ssh2.utils.parseKey(ecdsa) as ssh2.ParsedKey).getPublicSSH().toString('base64')}`;
    keep(host, { privateKey: server.personKey.privateKey, knownHost: line });
    const outcome = await cloneSource({ url, home, directory: 'app', credentialsDir: keys });
    expect(outcome.message).to.match(new RegExp(`^Cloning ${url} failed: ${host} offers no ecdsa-sha2-nistp256 host key, the type you keep for it, so Den cannot check it is the real ${host}\\. If ${host}'s key really changed`));
    homeHoldsNothing();
  });

  it('clones an scp-like address (git@host:path, port 22, the path as the account gives it to git-upload-pack)', async () => {
    // A loopback address of this test's own, so port 22 is free whatever else runs.
    const address = `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
    const onPort22 = await startGitSshServer(address, 22);
    try {
      const scp = `git@${address}:app.git`;
      keep(address, { privateKey: onPort22.personKey.privateKey, knownHost: onPort22.knownHostLine });
      const outcome = await cloneSource({ url: scp, home, directory: 'app', credentialsDir: keys });
      expect(outcome).to.deep.equal({ ok: true, message: `Cloned ${scp} (branch main) into ~/app.` });
      expect(gitState(join(home, 'app'))).to.deep.equal({ head: onPort22.commits.main, branch: 'main', clean: true, origin: scp });
      expect(onPort22.commands).to.deep.equal([`git-upload-pack 'app.git'`]);
    } finally {
      await onPort22.close();
    }
  });

  it('checks out a branch named as the ref over SSH', async () => {
    keep(host, { privateKey: server.personKey.privateKey, knownHost: server.knownHostLine });
    const outcome = await cloneSource({ url, ref: 'feature', home, directory: 'f', credentialsDir: keys });
    expect(outcome.message).to.equal(`Cloned ${url} (branch feature) into ~/f.`);
    expect(gitState(join(home, 'f'))).to.include({ head: server.commits.feature, branch: 'feature', clean: true });
  });

  it('says the host refused the kept key (publickey) when the server does not let it in, leaving nothing', async () => {
    keep(host, { privateKey: generateHostKey('other').privateKey, knownHost: server.knownHostLine });
    const outcome = await cloneSource({ url, home, directory: 'app', credentialsDir: keys });
    expect(outcome.ok).to.equal(false);
    expect(outcome.message).to.match(new RegExp(`^Cloning ${url} failed: ${host} refused the SSH key you keep for it \\(publickey\\)\\. Add the key's public half to your account or the repository's deploy keys`));
    homeHoldsNothing();
  });

  it('refuses a host showing another host key than the kept one, without signing in, and says what to do', async () => {
    const impostor = `[127.0.0.1]:${server.port} ${generateHostKey('impostor').publicKey.split(' ').slice(0, 2).join(' ')}`;
    keep(host, { privateKey: server.personKey.privateKey, knownHost: impostor });
    const before = server.commands.length;
    const outcome = await cloneSource({ url, home, directory: 'app', credentialsDir: keys });
    expect(outcome.message).to.match(new RegExp(`^Cloning ${url} failed: ${host} showed a host key that is not the one you keep for it, so Den did not send your key\\. If ${host}'s key really changed \\(ask its administrators\\), keep the new one \\(den git-credential set ${host} --ssh-key-file`));
    expect(server.commands.length).to.equal(before);
    homeHoldsNothing();
  });

  it('does not connect without a kept host key (no trust on first use), nor without a kept key', async () => {
    keep(host, { privateKey: server.personKey.privateKey });
    const noHostKey = await cloneSource({ url, home, directory: 'app', credentialsDir: keys });
    expect(noHostKey.message).to.equal(
      `Cloning ${url} failed: you keep no host key for ${host}, so Den cannot tell the real ${host} from an impostor and does not connect. Keep the host's key with your SSH key (den git-credential set ${host} --ssh-key-file <your key file> --known-host "$(ssh-keyscan -p ${server.port} 127.0.0.1 | grep ed25519)", or your profile page), then start the workspace again.`,
    );
    homeHoldsNothing();
    rmSync(join(keys, sshKeyName(host)));
    const noKey = await cloneSource({ url, home, directory: 'app', credentialsDir: keys });
    expect(noKey.message).to.match(new RegExp(`^Cloning ${url} failed: you keep no SSH key for ${host}, and Den clones an SSH address with the key you keep for its host\\. Keep one \\(den git-credential set ${host} `));
    homeHoldsNothing();
  });

  it('says the host has no such repository, with git-upload-pack\'s own words, leaving nothing', async () => {
    keep(host, { privateKey: server.personKey.privateKey, knownHost: server.knownHostLine });
    const missing = `ssh://git@127.0.0.1:${server.port}/missing.git`;
    const outcome = await cloneSource({ url: missing, home, directory: 'missing', credentialsDir: keys });
    expect(outcome.message).to.match(new RegExp(`^Cloning ${missing} failed: ${host} has no repository at /missing\\.git that your key may read \\(it said: fatal: '.*missing\\.git' does not appear to be a git repository\\)\\. Check the address`));
    homeHoldsNothing();
  });

  it('says a port nothing answers on cannot be reached, leaving nothing', async () => {
    const port = await closedPort();
    const closed = `ssh://git@127.0.0.1:${port}/app.git`;
    keep(`127.0.0.1:${port}`, { privateKey: server.personKey.privateKey, knownHost: server.knownHostLine.replace(`:${server.port}`, `:${port}`) });
    const outcome = await cloneSource({ url: closed, home, directory: 'app', credentialsDir: keys });
    expect(outcome.message).to.equal(
      `Cloning ${closed} failed: 127.0.0.1:${port} cannot be reached over SSH (ECONNREFUSED). Check the address and port; if they are right, the cluster cannot reach that host (a firewall or network policy): ask an administrator.`,
    );
    homeHoldsNothing();
  });
});
