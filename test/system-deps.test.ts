// test/system-deps.sh (npm test's pretest) run by bash against stand-ins for apt-get and id:
// it asks for exactly the missing packages the README names, never their recommendations.
import { expect } from 'chai';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runCommand } from './support/platform.js';

const SCRIPT = join(REPO_ROOT, 'test/system-deps.sh');
const TOOLS = ['ssh', 'scp', 'sftp', 'ssh-keygen', 'go', 'chromium', 'zsh', 'etcd', 'wget'];

describe('test/system-deps.sh', () => {
  let bin: string;
  const calls = () => (existsSync(join(bin, 'apt-get.log')) ? readFileSync(join(bin, 'apt-get.log'), 'utf8').trimEnd().split('\n') : []);

  /** A PATH of stand-ins only: `apt-get` logs its arguments, `id -u` says `uid`, and `present` exist. */
  function machine(uid: number, present: string[]): NodeJS.ProcessEnv {
    const script = (body: string) => `#!/bin/sh\n${body}\n`;
    const tools: Record<string, string> = { 'apt-get': script(`echo "$*" >> ${join(bin, 'apt-get.log')}`), id: script(`echo ${uid}`) };
    for (const tool of present) tools[tool] = script('exit 0');
    for (const [name, body] of Object.entries(tools)) {
      writeFileSync(join(bin, name), body);
      chmodSync(join(bin, name), 0o755);
    }
    return { PATH: bin, HOME: bin };
  }

  const run = (env: NodeJS.ProcessEnv) => runCommand('/bin/bash', [SCRIPT], { env });
  /** Whether this machine has sftp-server, which the script looks for at its Debian path. */
  const sftpServer = existsSync('/usr/lib/openssh/sftp-server');

  beforeEach(() => {
    bin = mkdtempSync(join(tmpdir(), 'den-system-deps-'));
  });
  afterEach(() => rmSync(bin, { recursive: true, force: true }));

  it('runs no apt-get at all when every tool is there', async () => {
    const result = await run(machine(0, TOOLS));
    expect(result.code).to.equal(0);
    // The sftp-server check reads the real /usr/lib/openssh, which npm test's pretest filled.
    expect(calls()).to.deep.equal(sftpServer ? [] : ['update -qq', 'install -y -qq --no-install-recommends openssh-sftp-server']);
  });

  it('installs exactly the missing packages, without recommended ones', async () => {
    const result = await run(machine(0, ['ssh', 'scp', 'sftp', 'ssh-keygen']));
    expect(result.code, result.stderr).to.equal(0);
    const packages = [...(sftpServer ? [] : ['openssh-sftp-server']), 'golang-go', 'chromium', 'zsh', 'etcd-server', 'wget'];
    expect(calls()).to.deep.equal(['update -qq', `install -y -qq --no-install-recommends ${packages.join(' ')}`]);
    expect(result.stderr).to.equal(`test/system-deps.sh: installing ${packages.join(' ')}\n`);
  });

  it('asks for openssh-client when one of its four programs is missing', async () => {
    await run(machine(0, ['ssh', 'scp', 'sftp', 'go', 'chromium', 'zsh', 'etcd', 'wget']));
    expect(calls()[1]).to.match(/^install -y -qq --no-install-recommends openssh-client( openssh-sftp-server)?$/);
  });

  it('as another user names what is missing and how to install it, and installs nothing', async () => {
    const result = await run(machine(1000, ['ssh', 'scp', 'sftp', 'ssh-keygen', 'chromium', 'zsh', 'etcd', 'wget']));
    expect(result.code).to.equal(1);
    expect(calls()).to.deep.equal([]);
    const packages = [...(sftpServer ? [] : ['openssh-sftp-server']), 'golang-go'].join(' ');
    expect(result.stderr).to.equal(`test/system-deps.sh: missing ${packages}; install them (apt-get install --no-install-recommends ${packages}) or run as root\n`);
  });
});
