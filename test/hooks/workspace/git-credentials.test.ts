// git in a workspace as Den renders its pod: the environment and the credentials volume taken
// from the rendered StatefulSet, the Secret's file written where the kubelet writes it and
// bind-mounted read-only at the volume's mountPath (in a mount namespace of its own, so
// nothing of the host changes), against a git smart-HTTP server behind basic auth.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { syncWorkspace } from '../../../hooks/workspace/sync.js';
import { credentialStoreFile, GIT_CREDENTIALS_SECRET } from '../../../contract/personal.js';
import { startGitHttpServer, type GitHttpServer } from '../../support/git-http.js';
import { input } from './inputs.js';

type Json = Record<string, any>;

const TOKEN = 'ghp_DenTestToken0123456789abcdef';

/** The workspace container's plain env, and the git credentials volume and mount, as rendered. */
function renderedPod(): { env: Record<string, string>; volume: Json; mount: Json } {
  const statefulSet = syncWorkspace(input()).children.find((c) => c.kind === 'StatefulSet') as Json;
  const pod = statefulSet.spec.template.spec;
  const container = pod.containers[0];
  const volume = pod.volumes.find((v: Json) => v.secret?.secretName === GIT_CREDENTIALS_SECRET);
  const mount = container.volumeMounts.find((m: Json) => m.name === volume.name);
  const env = Object.fromEntries(container.env.filter((e: Json) => typeof e.value === 'string').map((e: Json) => [e.name, e.value]));
  return { env, volume, mount };
}

/** Every process's command line now, but this one's. */
function commandLines(): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p) && p !== String(process.pid))) {
    try {
      out.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch (err) {
      // A process that ended between the listing and the read has no command line left to leak.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }
  return out;
}

describe("git in a workspace finds the person's token through the credential helper Den configures", function () {
  this.timeout(60_000);
  let dir: string;
  let server: GitHttpServer;
  let seen: string[];
  const pod = renderedPod();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'den-git-'));
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', join(dir, 'repo.git')]);
    const seed = join(dir, 'seed');
    execFileSync('git', ['init', '-q', '-b', 'main', seed]);
    writeFileSync(join(seed, 'README'), 'hello\n');
    const who = { ...process.env, GIT_AUTHOR_NAME: 'Seed', GIT_AUTHOR_EMAIL: 'seed@example.com', GIT_COMMITTER_NAME: 'Seed', GIT_COMMITTER_EMAIL: 'seed@example.com' };
    execFileSync('git', ['-C', seed, 'add', 'README'], { env: who });
    execFileSync('git', ['-C', seed, 'commit', '-q', '-m', 'first'], { env: who });
    execFileSync('git', ['-C', seed, 'push', '-q', join(dir, 'repo.git'), 'main'], { env: who });
    seen = [];
    server = await startGitHttpServer(dir, TOKEN, () => seen.push(...commandLines()));
  });

  after(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /**
   * Runs `script` with the rendered environment, the Secret's `credentials` (when given) in the
   * kubelet's volume folder, mounted read-only at the rendered mountPath.
   */
  function inWorkspace(name: string, script: string, credentials: string | undefined): Promise<{ code: number; stderr: string; trace: string }> {
    const volumeDir = join(dir, name, 'kubelet-volume');
    const work = join(dir, name, 'work');
    mkdirSync(volumeDir, { recursive: true });
    mkdirSync(work, { recursive: true });
    if (credentials !== undefined) {
      const file = join(volumeDir, 'credentials');
      writeFileSync(file, credentials);
      // defaultMode 0400, and the kubelet adds group read for the pod's fsGroup.
      chmodSync(file, (pod.volume.secret.defaultMode as number) | 0o040);
    }
    const trace = join(dir, name, 'git-trace');
    const mountPath = pod.mount.mountPath as string;
    const setUp = `mount -t tmpfs tmpfs /run && mkdir -p ${mountPath} && mount --bind ${volumeDir} ${mountPath} && mount -o remount,bind,ro ${mountPath} && cd ${work}`;
    const env = {
      ...pod.env,
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_TERMINAL_PROMPT: '0',
      GIT_TRACE: trace,
      GIT_AUTHOR_NAME: 'Alice',
      GIT_AUTHOR_EMAIL: 'alice@example.com',
      GIT_COMMITTER_NAME: 'Alice',
      GIT_COMMITTER_EMAIL: 'alice@example.com',
    };
    return new Promise((resolve, reject) => {
      const child = spawn('unshare', ['-rm', 'sh', '-c', `${setUp} && ${script}`], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stderr, trace: readFileSync(trace, 'utf8') }));
    });
  }

  const push = () => `git clone -q ${server.url}/repo.git clone && cd clone && echo more >> README && git commit -q -am change && git push -q origin HEAD:main`;

  it('clones and pushes with the token kept for the host: nothing else configured', async () => {
    const file = credentialStoreFile([{ protocol: 'http', host: server.host, username: 'x-access-token', token: TOKEN }]);
    const run = await inWorkspace('with-token', push(), file);
    expect(run.code, run.stderr).to.equal(0);
    expect(execFileSync('git', ['--git-dir', join(dir, 'repo.git'), 'log', '-1', '--format=%s', 'main'], { encoding: 'utf8' }).trim()).to.equal('change');
  });

  it("leaves the token out of the repository's config, every command line git ran and every process alive while it talked to the server", () => {
    const config = readFileSync(join(dir, 'with-token', 'work', 'clone', '.git', 'config'), 'utf8');
    expect(config).to.include(`url = ${server.url}/repo.git`);
    expect(config).to.not.include(TOKEN);
    const trace = readFileSync(join(dir, 'with-token', 'git-trace'), 'utf8');
    expect(trace).to.include(`git credential-store --file=${pod.mount.mountPath}/credentials get`);
    expect(trace).to.not.include(TOKEN);
    expect(seen.some((line) => line.includes('git-remote-http')), 'the process list was read while git waited').to.equal(true);
    expect(seen.filter((line) => line.includes(TOKEN))).to.deep.equal([]);
  });

  it("fails without a credential, in git's words: it could not ask for a username", async () => {
    const run = await inWorkspace('without', push(), undefined);
    expect(run.code).to.not.equal(0);
    expect(run.stderr).to.include(`fatal: could not read Username for '${server.url}': terminal prompts disabled`);
  });

  it('fails with a refused token saying authentication failed, and never tries to rewrite the read-only file', async () => {
    const file = credentialStoreFile([{ protocol: 'http', host: server.host, username: 'x-access-token', token: 'ghp_revoked' }]);
    const run = await inWorkspace('refused', push(), file);
    expect(run.code).to.not.equal(0);
    expect(run.stderr).to.include(`fatal: Authentication failed for '${server.url}/repo.git/'`);
    expect(run.stderr).to.not.include('credential storage');
    // git asked the helper to erase the refused credential; the helper let credential-store only answer get.
    expect(run.trace).to.include('; f erase');
    expect(run.trace).to.not.match(/git credential-store --file=\S+ (erase|store)/);
    expect(readFileSync(join(dir, 'refused', 'kubelet-volume', 'credentials'), 'utf8')).to.equal(file);
  });
});
