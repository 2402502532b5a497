import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cloneSource } from '../../source/clone.js';
import { describeCloneFailure } from '../../source/clone-failure.js';
import { runCloneCommand } from '../../source/command.js';
import { CLONE_MARKER } from '../../contract/workspace-source.js';
import { CLONE_REPORT_LIMIT } from '../../contract/devcontainer.js';
import { credentialStoreFile } from '../../contract/personal.js';
import { startGitHttpServer, type GitHttpServer } from '../support/git-http-server.js';
import { REPO_ROOT, runCommand } from '../support/platform.js';

/** What real git says the checkout is: the commit at HEAD and the branch (empty when detached). */
function gitState(dir: string): { head: string; branch: string; clean: boolean } {
  const run = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } }).trim();
  return { head: run('rev-parse', 'HEAD'), branch: run('branch', '--show-current'), clean: run('status', '--porcelain') === '' };
}

describe('the clone step of a workspace with spec.source (source/clone.ts, against git http-backend)', function () {
  this.timeout(30_000);
  let server: GitHttpServer;
  let home: string;
  before(async () => {
    server = await startGitHttpServer();
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'den-clone-home-'));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
  });

  /** The home holds only Den's own folder (an empty marker-less .den) besides what is listed. */
  function homeHolds(...names: string[]): void {
    expect(readdirSync(home).sort()).to.deep.equal(['.den', ...names].sort());
  }

  it('clones the default branch into the home under the given directory, a checkout real git reads as clean', async () => {
    const outcome = await cloneSource({ url: `${server.base}/app.git`, home, directory: 'app' });
    expect(outcome).to.deep.equal({ ok: true, message: `Cloned ${server.base}/app.git (branch main) into ~/app.` });
    expect(readdirSync(join(home, 'app')).sort()).to.deep.equal(['.git', 'README.md', 'second.txt']);
    expect(gitState(join(home, 'app'))).to.deep.equal({ head: server.commits.main, branch: 'main', clean: true });
    expect(JSON.parse(readFileSync(join(home, CLONE_MARKER), 'utf8'))).to.include({ url: `${server.base}/app.git`, ref: null, directory: 'app' });
  });

  it('clones into a nested path, making the folders above it', async () => {
    const outcome = await cloneSource({ url: `${server.base}/app.git`, home, directory: 'src/team/app' });
    expect(outcome.ok).to.equal(true);
    expect(readFileSync(join(home, 'src/team/app/README.md'), 'utf8')).to.equal('main\n');
  });

  it('checks out a branch, a tag or a commit named as the ref', async () => {
    const branch = await cloneSource({ url: `${server.base}/app.git`, ref: 'feature', home, directory: 'b' });
    expect(branch.message).to.equal(`Cloned ${server.base}/app.git (branch feature) into ~/b.`);
    expect(gitState(join(home, 'b'))).to.deep.equal({ head: server.commits.feature, branch: 'feature', clean: true });
    expect(existsSync(join(home, 'b/feature.txt'))).to.equal(true);

    rmSync(join(home, CLONE_MARKER));
    const tag = await cloneSource({ url: `${server.base}/app.git`, ref: 'v1', home, directory: 't' });
    expect(tag.message).to.equal(`Cloned ${server.base}/app.git (tag v1) into ~/t.`);
    expect(gitState(join(home, 't'))).to.deep.equal({ head: server.commits.first, branch: '', clean: true });
    expect(readdirSync(join(home, 't')).sort()).to.deep.equal(['.git', 'README.md']);

    rmSync(join(home, CLONE_MARKER));
    const commit = await cloneSource({ url: `${server.base}/app.git`, ref: server.commits.first!.slice(0, 10), home, directory: 'c' });
    expect(commit.message).to.equal(`Cloned ${server.base}/app.git (commit ${server.commits.first!.slice(0, 12)}) into ~/c.`);
    expect(gitState(join(home, 'c'))).to.deep.equal({ head: server.commits.first, branch: '', clean: true });
  });

  it('a second run is a no-op: the clone and the files the person changed stay as they are', async () => {
    await cloneSource({ url: `${server.base}/app.git`, home, directory: 'app' });
    writeFileSync(join(home, 'app/README.md'), 'my edit\n');
    const again = await cloneSource({ url: `${server.base}/app.git`, ref: 'feature', home, directory: 'app' });
    expect(again).to.deep.equal({ ok: true, message: 'The repository was cloned on an earlier start; Den leaves ~/app as it is.' });
    expect(readFileSync(join(home, 'app/README.md'), 'utf8')).to.equal('my edit\n');
    expect(existsSync(join(home, 'app/feature.txt'))).to.equal(false);
  });

  it('leaves a folder already at the target alone and marks the home as done', async () => {
    mkdirSync(join(home, 'app'));
    writeFileSync(join(home, 'app/mine.txt'), 'mine\n');
    const outcome = await cloneSource({ url: `${server.base}/app.git`, home, directory: 'app' });
    expect(outcome).to.deep.equal({ ok: true, message: '~/app already exists, so nothing was cloned; Den leaves it as it is.' });
    expect(readdirSync(join(home, 'app'))).to.deep.equal(['mine.txt']);
    expect(existsSync(join(home, CLONE_MARKER))).to.equal(true);
  });

  it('reads the repository\'s devcontainer.json (JSON with comments) on this start and the next, for the workspace to apply', async () => {
    const request = { url: `${server.base}/devcontainer.git`, home, directory: 'api' };
    const outcome = await cloneSource(request);
    expect(outcome).to.deep.equal({
      ok: true,
      message: `Cloned ${server.base}/devcontainer.git (branch main) into ~/api. Read ~/api/.devcontainer.json; the workspace applies it.`,
      devcontainer: {
        file: 'api/.devcontainer.json',
        image: 'mcr.microsoft.com/devcontainers/base:ubuntu',
        containerEnv: { GREETING: 'hello // not a comment' },
        workspaceFolder: `${home}/api`,
        postCreateCommand: 'npm ci',
        ports: [{ port: 3000 }, { port: 8080 }],
      },
    });
    const again = await cloneSource(request);
    expect(again.message).to.equal('The repository was cloned on an earlier start; Den leaves ~/api as it is. Read ~/api/.devcontainer.json; the workspace applies it.');
    expect(again.devcontainer).to.deep.equal(outcome.devcontainer);
  });

  it('says a devcontainer.json that does not parse could not be read, and the clone still lands', async () => {
    const outcome = await cloneSource({ url: `${server.base}/broken-devcontainer.git`, home, directory: 'api' });
    expect(outcome.ok).to.equal(true);
    expect(outcome.message).to.match(/into ~\/api\. ~\/api\/\.devcontainer\.json: it could not be read as JSON with comments \(.+\); Den applies none of it\.$/);
    expect(outcome.devcontainer?.problem).to.match(/^it could not be read as JSON with comments/);
  });

  describe('a private repository', () => {
    const kept = (token: string) => [{ protocol: 'http' as const, host: new URL(server.base).host, username: 'person', token }];

    it('clones with the git credential the person keeps for its host, and the token is nowhere in the clone', async () => {
      const outcome = await cloneSource({ url: `${server.base}/private/secret.git`, home, directory: 'secret', credentials: [{ protocol: 'https', host: 'other.example', username: 'x', token: 'unrelated' }, ...kept('secret')] });
      expect(outcome.message).to.match(/^Cloned .*private\/secret\.git/);
      expect(outcome.ok).to.equal(true);
      expect(gitState(join(home, 'secret')).clean).to.equal(true);
      const leaks = execFileSync('sh', ['-c', 'grep -rlE "person:secret|cGVyc29uOnNlY3JldA" "$1" || true', 'sh', home], { encoding: 'utf8' }).trim();
      expect(leaks).to.equal('');
    });

    it('says the kept credential was refused and how to replace it, leaving nothing behind', async () => {
      const outcome = await cloneSource({ url: `${server.base}/private/secret.git`, home, directory: 'secret', credentials: kept('expired') });
      expect(outcome.ok).to.equal(false);
      expect(outcome.message).to.include('refused the git credential you keep for it (HTTP 401)');
      expect(outcome.message).to.include(`den git-credential set ${new URL(server.base).host}`);
      homeHolds();
    });

    it('den clone-source reads the credentials file the pod mounts from the person\'s Secret', async () => {
      const file = join(home, '..', `${home.split('/').pop()}-credentials`);
      writeFileSync(file, credentialStoreFile(kept('secret')));
      try {
        const lines: string[] = [];
        const code = await runCloneCommand({ DEN_SOURCE_URL: `${server.base}/private/secret.git`, DEN_SOURCE_DIRECTORY: 'secret', HOME: home, DEN_SOURCE_STATUS_FILE: `${file}-status`, DEN_SOURCE_CREDENTIALS_FILE: file }, (l) => lines.push(l));
        expect(code, lines.join('\n')).to.equal(0);
        expect(lines.join('\n')).to.not.include('person:secret');
      } finally {
        rmSync(file, { force: true });
        rmSync(`${file}-status`, { force: true });
      }
    });
  });

  describe('fails in words and leaves nothing behind', () => {
    const cases: [string, () => { url: string; ref?: string }, RegExp][] = [
      ['a ref the repository does not have', () => ({ url: `${server.base}/app.git`, ref: 'nope' }), /has no branch, tag or commit "nope"\. Check the ref/],
      ['a repository that needs a credential (401)', () => ({ url: `${server.base}/private/secret.git` }), /refused access \(HTTP 401\)\. The repository is private or the address is wrong/],
      ['an address with no repository (404)', () => ({ url: `${server.base}/missing.git` }), /has no repository at this address \(HTTP 404\)\. Check the address/],
      ['an empty repository', () => ({ url: `${server.base}/empty.git` }), /has no default branch \(it may be empty\)\. Push a branch to it/],
      ['a host that refuses connections', () => ({ url: 'http://127.0.0.1:1/app.git' }), /127\.0\.0\.1:1 cannot be reached \(ECONNREFUSED\)\. Check the address and port/],
      ['a host name that does not resolve', () => ({ url: 'http://no-such-host.invalid/app.git' }), /the host no-such-host\.invalid cannot be found \(ENOTFOUND\)\. Check the address for a typo/],
    ];
    for (const [what, request, said] of cases) {
      it(`${what}: the message says what happened and what to do; no clone, marker or temporary folder is left`, async () => {
        const outcome = await cloneSource({ ...request(), home, directory: 'app' });
        expect(outcome.ok).to.equal(false);
        expect(outcome.message).to.match(said);
        homeHolds();
        expect(readdirSync(join(home, '.den'))).to.deep.equal([]);
      });
    }

    it('a failed run does not count: the next run with a good ref clones', async () => {
      expect((await cloneSource({ url: `${server.base}/app.git`, ref: 'nope', home, directory: 'app' })).ok).to.equal(false);
      expect((await cloneSource({ url: `${server.base}/app.git`, home, directory: 'app' })).ok).to.equal(true);
      homeHolds('app');
    });

    it('clears temporary folders a killed earlier run left in ~/.den', async () => {
      mkdirSync(join(home, '.den/clone-abc123/.git'), { recursive: true });
      expect((await cloneSource({ url: `${server.base}/app.git`, home, directory: 'app' })).ok).to.equal(true);
      expect(readdirSync(join(home, '.den'))).to.deep.equal(['source-cloned.json']);
    });

    it('a full disk says the home volume is full and how to get more', () => {
      const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      expect(describeCloneFailure(full, { url: 'https://h/app.git', directory: 'app' })).to.equal(
        'Cloning https://h/app.git failed: the home volume is full (ENOSPC). Nothing was left behind; create the workspace with more storage, or free space in the home, then start it again.',
      );
    });
  });

  describe('den clone-source (source/command.ts)', () => {
    it('reads its request from the environment, writes the message as the termination message and exits 0', async () => {
      const statusFile = join(home, '..', `${home.split('/').pop()}-status`);
      const lines: string[] = [];
      try {
        const code = await runCloneCommand({ DEN_SOURCE_URL: `${server.base}/app.git`, DEN_SOURCE_REF: 'feature', DEN_SOURCE_DIRECTORY: 'app', HOME: home, DEN_SOURCE_STATUS_FILE: statusFile }, (l) => lines.push(l));
        expect(code).to.equal(0);
        expect(JSON.parse(readFileSync(statusFile, 'utf8'))).to.deep.equal({ message: `Cloned ${server.base}/app.git (branch feature) into ~/app.` });
        expect(lines[0]).to.equal(`Cloning ${server.base}/app.git (feature) into ~/app`);
      } finally {
        rmSync(statusFile, { force: true });
      }
    });

    it('exits 1 with the failure as the termination message', async () => {
      const statusFile = `${home}-status`;
      try {
        const code = await runCloneCommand({ DEN_SOURCE_URL: `${server.base}/app.git`, DEN_SOURCE_REF: 'nope', DEN_SOURCE_DIRECTORY: 'app', HOME: home, DEN_SOURCE_STATUS_FILE: statusFile }, () => {});
        expect(code).to.equal(1);
        expect(readFileSync(statusFile, 'utf8')).to.match(/^Cloning .* failed: the repository has no branch, tag or commit "nope"/);
      } finally {
        rmSync(statusFile, { force: true });
      }
    });

    it('exits 1 with multi-byte words cut to the bytes the kubelet keeps, so their start is what the workspace says', async () => {
      const statusFile = `${home}-status`;
      try {
        const code = await runCloneCommand({ DEN_SOURCE_URL: `${server.base}/app.git`, DEN_SOURCE_REF: 'é'.repeat(2100), DEN_SOURCE_DIRECTORY: 'app', HOME: home, DEN_SOURCE_STATUS_FILE: statusFile }, () => {});
        expect(code).to.equal(1);
        const written = readFileSync(statusFile);
        expect(written.length).to.be.at.most(CLONE_REPORT_LIMIT);
        // The kubelet keeps the file's last 4096 bytes.
        expect(written.subarray(-4096).toString('utf8')).to.match(/^Cloning .* failed: the repository has no branch, tag or commit "éé/).and.match(/é…$/);
      } finally {
        rmSync(statusFile, { force: true });
      }
    });

    it('runs as `den clone-source`, the command the init container gives Den\'s image', async () => {
      const statusFile = `${home}-status`;
      try {
        const run = await runCommand(process.execPath, [join(REPO_ROOT, 'bin/den.js'), 'clone-source'], {
          env: { PATH: process.env.PATH, HOME: home, DEN_SOURCE_URL: `${server.base}/app.git`, DEN_SOURCE_DIRECTORY: 'app', DEN_SOURCE_STATUS_FILE: statusFile },
          timeoutMs: 60_000,
        });
        expect(run.code, run.stderr).to.equal(0);
        expect(run.stdout).to.contain(`Cloned ${server.base}/app.git (branch main) into ~/app.`);
        expect(JSON.parse(readFileSync(statusFile, 'utf8'))).to.deep.equal({ message: `Cloned ${server.base}/app.git (branch main) into ~/app.` });
        expect(readFileSync(join(home, 'app/README.md'), 'utf8')).to.equal('main\n');
      } finally {
        rmSync(statusFile, { force: true });
      }
    });

    it('exits 2 naming the variables it lacks', async () => {
      const statusFile = `${home}-status`;
      try {
        const code = await runCloneCommand({ DEN_SOURCE_URL: `${server.base}/app.git`, DEN_SOURCE_STATUS_FILE: statusFile }, () => {});
        expect(code).to.equal(2);
        expect(readFileSync(statusFile, 'utf8')).to.include('needs DEN_SOURCE_DIRECTORY, HOME in its environment');
      } finally {
        rmSync(statusFile, { force: true });
      }
    });
  });
});
