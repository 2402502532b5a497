// git over SSH in a workspace as Den renders its pod: the environment taken from the rendered
// StatefulSet, the SSH key and known host the person keeps written where the kubelet writes the
// Secret's files (root's, group-readable by the pod's fsGroup) and bind-mounted read-only at the
// volume's mountPath in a mount namespace of its own, real git and OpenSSH run as a user that is
// not root, against a git server over SSH (test/support/git-ssh-server.ts).
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { syncWorkspace } from '../../../hooks/workspace/sync.js';
import { GIT_CREDENTIALS_SECRET } from '../../../contract/personal.js';
import { knownHostName, knownHostsLine, parseKnownHost, sshKeyName, type KnownHostKey } from '../../../contract/git-ssh.js';
import { generateHostKey } from '../../../ssh/host-key.js';
import { startGitSshServer, type GitSshServer } from '../../support/git-ssh-server.js';
import { input } from './inputs.js';

type Json = Record<string, any>;
/** The user and group the workspace runs as here (the pod's runAsUser and fsGroup). */
const NOBODY = 65534;

function renderedPod(): { env: Record<string, string>; mountPath: string } {
  const statefulSet = syncWorkspace(input()).children.find((c) => c.kind === 'StatefulSet') as Json;
  const pod = statefulSet.spec.template.spec;
  const container = pod.containers[0];
  const volume = pod.volumes.find((v: Json) => v.secret?.secretName === GIT_CREDENTIALS_SECRET);
  const mount = container.volumeMounts.find((m: Json) => m.name === volume.name);
  return { env: Object.fromEntries(container.env.filter((e: Json) => typeof e.value === 'string').map((e: Json) => [e.name, e.value])), mountPath: mount.mountPath };
}

describe('git over SSH in a workspace uses the SSH key and known host the person keeps for the host', function () {
  this.timeout(60_000);
  let dir: string;
  let server: GitSshServer;
  let host: string;
  const pod = renderedPod();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'den-git-ssh-'));
    chmodSync(dir, 0o755);
    server = await startGitSshServer();
    host = `127.0.0.1:${server.port}`;
  });
  after(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Runs `script` as a user that is not root, with the rendered environment and the kept files mounted. */
  function inWorkspace(name: string, script: string, kept: Record<string, string>): Promise<{ code: number; stderr: string }> {
    const volumeDir = join(dir, name, 'kubelet-volume');
    const home = join(dir, name, 'home');
    mkdirSync(volumeDir, { recursive: true });
    mkdirSync(home, { recursive: true });
    chownSync(home, NOBODY, NOBODY);
    for (const [file, body] of Object.entries(kept)) {
      writeFileSync(join(volumeDir, file), body);
      // defaultMode 0400 and the kubelet's group read for the fsGroup; root keeps the file.
      chownSync(join(volumeDir, file), 0, NOBODY);
      chmodSync(join(volumeDir, file), 0o440);
    }
    const setUp = `mount -t tmpfs tmpfs /run && mkdir -p ${pod.mountPath} && mount --bind ${volumeDir} ${pod.mountPath} && mount -o remount,bind,ro ${pod.mountPath}`;
    const env = { ...pod.env, HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_SSH_VARIANT: 'ssh' };
    const asNobody = `setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups sh -c 'cd ${home} && ${script}'`;
    return new Promise((resolve, reject) => {
      const child = spawn('unshare', ['-m', 'sh', '-c', `${setUp} && ${asNobody}`], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
    });
  }

  const keptFor = (knownHost: string) => ({
    [sshKeyName(host)]: server.personKey.privateKey,
    [knownHostName(host)]: `${knownHostsLine(host, parseKnownHost(knownHost, host) as KnownHostKey)}\n`,
  });

  it('clones with the kept key from a host showing the kept host key, with nothing in the home but the clone', async () => {
    const run = await inWorkspace('kept', `git clone -q ssh://git@${host}/app.git app`, keptFor(server.knownHostLine));
    expect(run.code, run.stderr).to.equal(0);
    expect(execFileSync('git', ['-C', join(dir, 'kept', 'home', 'app'), 'rev-parse', 'HEAD'], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' } }).trim()).to.equal(server.commits.main);
  });

  it('refuses a host showing another key than the kept one, in ssh\'s words', async () => {
    const impostor = `[127.0.0.1]:${server.port} ${generateHostKey('impostor').publicKey.split(' ').slice(0, 2).join(' ')}`;
    const run = await inWorkspace('impostor', `git clone -q ssh://git@${host}/app.git app`, keptFor(impostor));
    expect(run.code).to.not.equal(0);
    expect(run.stderr).to.include('Host key verification failed.');
  });

  it('without a kept key, ssh has no key the host lets in', async () => {
    const run = await inWorkspace('nokey', `git clone -q ssh://git@${host}/app.git app`, { [knownHostName(host)]: keptFor(server.knownHostLine)[knownHostName(host)]! });
    expect(run.code).to.not.equal(0);
    expect(run.stderr).to.include('Permission denied (publickey)');
  });
});
