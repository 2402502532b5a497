// den env, den git-credential and den dotfiles against den server's app on the fake API server, as a person
// runs them on their laptop with their own API token.
import { execFileSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateHostKey } from '../../../ssh/host-key.js';
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, startCluster, startDen, type Den } from '../../server/core/cluster.js';
import { laptop, signInWithToken, type Laptop } from './support.js';

describe('den env and den git-credential', function () {
  this.timeout(60_000);
  let api: FakeApiServer;
  let den: Den;
  let me: Laptop;

  before(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
    den = await startDen(api);
    me = await laptop();
    await signInWithToken(den, 'alice', me);
  });

  after(async () => {
    await den?.close();
    await api?.close();
    if (me) await rm(me.home, { recursive: true, force: true });
  });

  const data = (name: string) => api.object<{ data?: Record<string, string> }>(RESOURCES.secret, name, 'svc-alice')?.data ?? {};

  it('den env set keeps a secret value read from stdin (one line break dropped) and den env ls shows only its name', async () => {
    const set = await me.den(['env', 'set', 'NPM_TOKEN', '--secret'], { stdin: 'npm_s3cr3t\n' });
    expect(set.code, set.stderr).to.equal(0);
    expect(set.stderr).to.equal('NPM_TOKEN saved as a secret: its value is not shown again; workspaces get it at their next start\n');
    expect(Buffer.from(data('den-personal-env').NPM_TOKEN!, 'base64').toString()).to.equal('npm_s3cr3t');
    await me.den(['env', 'set', 'EDITOR', '--value', 'vim']);
    const ls = await me.den(['env', 'ls']);
    expect(ls.stdout).to.equal('NAME       SECRET  VALUE\nEDITOR     no      vim\nNPM_TOKEN  yes     (hidden)\n');
    expect(JSON.parse((await me.den(['env', 'ls', '-o', 'json'])).stdout)).to.deep.equal({ items: [{ name: 'EDITOR', secret: false, value: 'vim' }, { name: 'NPM_TOKEN', secret: true }] });
  });

  it("den env set refuses a reserved name with the server's words, exit 1", async () => {
    const set = await me.den(['env', 'set', 'HOME', '--value', '/tmp']);
    expect(set.code).to.equal(1);
    expect(set.stderr).to.equal('den env: name HOME is set by Den in every workspace: choose another name\n');
  });

  it('den env rm forgets a variable', async () => {
    const rmed = await me.den(['env', 'rm', 'EDITOR']);
    expect(rmed.code, rmed.stderr).to.equal(0);
    expect(Object.keys(data('den-personal-env'))).to.deep.equal(['NPM_TOKEN']);
    expect((await me.den(['env', 'rm', 'EDITOR'])).stderr).to.equal('den env: you have no variable named EDITOR\n');
  });

  it('den git-credential set keeps the token from stdin, ls lists the host and never the token, rm forgets it', async () => {
    const set = await me.den(['git-credential', 'set', 'github.com'], { stdin: 'ghp_abc123\n' });
    expect(set.code, set.stderr).to.equal(0);
    expect(set.stderr).to.equal('token for https://github.com saved (username x-access-token); git in your workspaces uses it\n');
    expect(Buffer.from(data('den-git-credentials').credentials!, 'base64').toString()).to.equal('https://x-access-token:ghp_abc123@github.com\n');
    const ls = await me.den(['git-credential', 'ls']);
    expect(ls.stdout).to.equal('HOST        PROTOCOL  USERNAME\ngithub.com  https     x-access-token\n');
    expect((await me.den(['git-credential', 'rm', 'github.com'])).code).to.equal(0);
    expect(data('den-git-credentials')).to.deep.equal({});
  });

  it('den git-credential set with nothing on stdin is bad usage, exit 2, and nothing is sent', async () => {
    const set = await me.den(['git-credential', 'set', 'github.com'], { stdin: '' });
    expect(set.code).to.equal(2);
    expect(set.stderr).to.match(/^den git-credential: no token on stdin: pipe it in/);
  });

  it('den dotfiles set keeps the repository beside the git credentials, show prints it, rm forgets it; a URL Den cannot clone is refused in words', async () => {
    const set = await me.den(['dotfiles', 'set', 'https://github.com/alice/dotfiles.git']);
    expect(set.code, set.stderr).to.equal(0);
    expect(set.stderr).to.equal('dotfiles https://github.com/alice/dotfiles.git kept; each new workspace clones them into ~/.dotfiles on its first start\n');
    expect(Buffer.from(data('den-git-credentials').dotfiles!, 'base64').toString()).to.equal('https://github.com/alice/dotfiles.git');
    expect((await me.den(['dotfiles', 'show'])).stdout).to.equal('https://github.com/alice/dotfiles.git\n');
    const refused = await me.den(['dotfiles', 'set', 'ftp://github.com/alice/dotfiles.git']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain('url "ftp://github.com/alice/dotfiles.git"');
    expect((await me.den(['dotfiles', 'rm'])).code).to.equal(0);
    const none = await me.den(['dotfiles', 'show']);
    expect(none.stderr).to.equal('no dotfiles repository yet (keep one with den dotfiles set <https or SSH URL>)\n');
  });

  describe('keeping an SSH key for a git host', () => {
    const key = generateHostKey('alice@laptop');
    const publicKey = key.publicKey.split(' ').slice(0, 2).join(' ');
    const hostKey = generateHostKey('git-host').publicKey.split(' ').slice(0, 2).join(' ');
    const fingerprint = execFileSync('ssh-keygen', ['-lf', '-'], { input: `${hostKey}\n`, encoding: 'utf8' }).split(' ')[1]!;

    it('den git-credential set --ssh-key-file --known-host keeps both, prints the public half to add to the host; ls lists it, rm --ssh-key forgets it', async () => {
      const file = join(me.home, 'den_key');
      await writeFile(file, key.privateKey);
      const set = await me.den(['git-credential', 'set', 'git.example.com:2222', '--ssh-key-file', file, '--known-host', `[git.example.com]:2222 ${hostKey}`]);
      expect(set.code, set.stderr).to.equal(0);
      expect(set.stdout).to.equal(`${publicKey}\n`);
      expect(set.stderr).to.equal(`SSH key for git.example.com:2222 saved; add its public half to git.example.com:2222 if it is not there yet:\nDen clones git.example.com:2222's SSH addresses only from a host showing the key ${fingerprint}\n`);
      expect(Object.keys(data('den-git-credentials')).sort()).to.deep.equal(['ssh-key.git.example.com_2222', 'ssh-known-host.git.example.com_2222']);
      const ls = await me.den(['git-credential', 'ls']);
      expect(ls.stdout).to.equal(`HOST                  SSH KEY${' '.repeat(publicKey.length - 7)}  HOST KEY\ngit.example.com:2222  ${publicKey}  ${fingerprint}\n`);
      expect(ls.stdout + ls.stderr).to.not.include(key.privateKey.split('\n')[2]);
      const rmed = await me.den(['git-credential', 'rm', 'git.example.com:2222', '--ssh-key']);
      expect(rmed.stderr).to.equal('SSH key for git.example.com:2222 removed\n');
      expect(data('den-git-credentials')).to.deep.equal({});
    });

    it("refuses a key with a passphrase with the server's words, exit 1, and --ssh-key-file without --known-host as bad usage, exit 2", async () => {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'secret', '-f', join(me.home, 'locked')]);
      const locked = await me.den(['git-credential', 'set', 'github.com', '--ssh-key-file', join(me.home, 'locked'), '--known-host', `github.com ${hostKey}`]);
      expect(locked.code).to.equal(1);
      expect(locked.stderr).to.match(/ssh_private_key is protected by a passphrase, and Den cannot type one when it clones/);
      const alone = await me.den(['git-credential', 'set', 'github.com', '--ssh-key-file', join(me.home, 'locked')]);
      expect(alone.code).to.equal(2);
      expect(alone.stderr).to.equal('den git-credential: --ssh-key-file and --known-host go together: give the key file and one line of ssh-keyscan github.com\n(see den git-credential --help)\n');
      expect(data('den-git-credentials')).to.deep.equal({});
    });
  });
});
