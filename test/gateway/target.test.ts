import { expect } from 'chai';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { envArgs, envRefusal, execCommand, isScpSink, MAX_ENV_VARS, sanitizeTerm, sftpCommand, shellCommand } from '../../shell/commands.js';
import { activityPatch } from '../../shell/activity.js';
import { isLocalDestination } from '../../gateway/local-destination.js';
import { containerOf, notRunningMessage, podMismatchMessage, podNameOf, sessionSettings, shellAndHome, type SessionTarget } from '../../shell/target.js';
import type { Workspace } from '../../gateway/workspaces.js';

const run = promisify(execFile);

function ws(phase?: string, podName?: string): Workspace {
  return { metadata: { name: 'demo', namespace: 'svc-a' }, status: { phase, podName } };
}

const target: SessionTarget = { namespace: 'svc-a', workspace: 'demo', pod: 'demo-0', shell: '/bin/sh', homePath: '/tmp' };

describe('gateway target rules', () => {
  it('takes the pod from status.podName, else <name>-0', () => {
    expect(podNameOf(ws('Running', 'demo-abc'))).to.equal('demo-abc');
    expect(podNameOf(ws('Running'))).to.equal('demo-0');
    expect(podNameOf(ws('Running', ''))).to.equal('demo-0');
  });

  const phases: [string | undefined, string | undefined][] = [
    ['Running', undefined],
    ['Suspended', 'workspace demo is Suspended; start it first'],
    [undefined, 'workspace demo is not running; start it first'],
    ['Starting', 'workspace demo is Starting; try again when it is Running'],
    ['Pending', 'workspace demo is Pending; try again when it is Running'],
    ['Failed', 'workspace demo is Failed; see its status in the web UI'],
  ];
  for (const [phase, message] of phases) {
    it(`says ${message === undefined ? 'nothing' : `"${message}"`} for phase ${phase ?? '(unset)'}`, () => {
      expect(notRunningMessage(ws(phase))).to.equal(message);
    });
  }

  it('accepts only a pod labelled den.dev/workspace=<name>', () => {
    expect(podMismatchMessage({ metadata: { name: 'demo-0', labels: { 'den.dev/workspace': 'demo' } } }, 'demo')).to.equal(undefined);
    expect(podMismatchMessage({ metadata: { name: 'demo-0', labels: { 'den.dev/workspace': 'other' } } }, 'demo')).to.equal(
      'pod demo-0 does not carry the label den.dev/workspace=demo; refusing to connect',
    );
    expect(podMismatchMessage({ metadata: { name: 'demo-0' } }, 'demo')).to.be.a('string');
  });

  it('execs into the container named workspace, else the first one', () => {
    expect(containerOf({ spec: { containers: [{ name: 'sidecar' }, { name: 'workspace' }] } })).to.equal('workspace');
    expect(containerOf({ spec: { containers: [{ name: 'main' }] } })).to.equal('main');
    expect(containerOf({})).to.equal(undefined);
  });

  it("uses the image's shell and home path, with the spec defaults when unset or not absolute", () => {
    expect(shellAndHome({ spec: { shell: '/bin/zsh', homePath: '/work' } })).to.deep.equal({ shell: '/bin/zsh', homePath: '/work' });
    expect(shellAndHome(undefined)).to.deep.equal({ shell: '/bin/bash', homePath: '/home/dev' });
    expect(shellAndHome({ spec: { shell: 'zsh', homePath: 'rel' } })).to.deep.equal({ shell: '/bin/bash', homePath: '/home/dev' });
  });

  it('lets direct-tcpip reach only the pod loopback names', () => {
    for (const host of ['localhost', '127.0.0.1', '::1', 'LOCALHOST']) expect(isLocalDestination(host), host).to.equal(true);
    for (const host of ['10.0.0.1', 'example.com', '127.0.0.2', '0.0.0.0', 'localhost.', '[::1]', '']) expect(isLocalDestination(host), host).to.equal(false);
  });

  it('writes lastActivityTime as RFC 3339 with whole seconds', () => {
    expect(activityPatch(new Date('2026-11-22T00:06:27.512Z'))).to.deep.equal({ status: { lastActivityTime: '2026-11-22T00:06:27Z' } });
  });
});

describe('gateway pod commands', () => {
  const env = { term: 'xterm-256color', vars: new Map([['LANG', 'C.UTF-8']]) };

  it('runs the shell as a login shell through env, never through a string built from input', () => {
    expect(shellCommand(target, env).slice(3)).to.deep.equal(['den-shell', '/tmp', '/tmp', 'env', 'HOME=/tmp', 'SHELL=/bin/sh', 'TERM=xterm-256color', 'LANG=C.UTF-8', '/bin/sh', '-l']);
    expect(envArgs(target, { vars: new Map() })).to.deep.equal(['env', 'HOME=/tmp', 'SHELL=/bin/sh']);
  });

  it('passes hostile command text to the image shell as one argument, starting in the home folder', async () => {
    const command = execCommand({ ...target, homePath: '/' }, { vars: new Map([['X', "'; echo injected; '"]]) }, 'pwd; printf "%s\\n" "$X"');
    const { stdout } = await run(command[0]!, command.slice(1));
    expect(stdout).to.equal("/\n'; echo injected; '\n");
  });

  it('starts a shell in devcontainer.json\'s workspace folder (the home when it is gone), a command in the home, both with its remoteEnv and the client\'s own variables winning', async () => {
    const ws = { status: { devcontainer: { file: 'api/.devcontainer.json', workspaceFolder: '/usr', remoteEnv: { EDITOR: 'vim', LANG: 'C', HOME: '/x' } } } };
    const settings = sessionSettings(ws);
    expect(settings).to.deep.equal({ startDir: '/usr', remoteEnv: [['EDITOR', 'vim'], ['LANG', 'C'], ['HOME', '/x']] });
    const shellIn = (startDir: string) => {
      const argv = shellCommand({ ...target, homePath: '/', startDir, ...(startDir === '/usr' ? { remoteEnv: settings.remoteEnv } : {}) }, { vars: new Map([['LANG', 'C.UTF-8']]) });
      return spawnSync(argv[0]!, argv.slice(1), { input: 'pwd; echo "$EDITOR $LANG $HOME"\n', encoding: 'utf8' }).stdout;
    };
    expect(shellIn('/usr')).to.equal('/usr\nvim C.UTF-8 /\n');
    expect(shellIn('/nonexistent/api').split('\n')[0]).to.equal('/');
    const command = execCommand({ ...target, homePath: '/tmp', ...settings }, { vars: new Map() }, 'pwd; echo "$EDITOR"');
    expect((await run(command[0]!, command.slice(1))).stdout).to.equal('/tmp\nvim\n');
    expect(sessionSettings({ status: { devcontainer: { file: 'x', problem: 'unreadable', workspaceFolder: '/usr' } } })).to.deep.equal({});
  });

  it('falls back to / with a message when the home folder is missing, like sshd', async () => {
    const command = execCommand({ ...target, homePath: '/nonexistent/home' }, { vars: new Map() }, 'pwd');
    const { stdout, stderr } = await run(command[0]!, command.slice(1));
    expect(stdout).to.equal('/\n');
    expect(stderr).to.equal('den: could not chdir to home directory /nonexistent/home\n');
  });

  it('looks for sftp-server where Debian, Alpine, Arch and Fedora put it', () => {
    const snippet = sftpCommand(target)[2]!;
    for (const path of ['/usr/lib/openssh/sftp-server', '/usr/lib/sftp-server', '/usr/libexec/openssh/sftp-server']) expect(snippet).to.contain(path);
  });

  it('knows the commands legacy scp -O runs to receive files, and nothing that runs more after them', () => {
    const sinks = ['scp -t .', 'scp -t notes.txt', 'scp -v -r -p -d -t -- -dash', "scp -p -t 'my dir/'", 'scp -t $HOME/x'];
    const others = ['scp -f notes.txt', 'scp -t', 'scp -t x; make', 'scp -t x && rm y', 'scp -t x | tee log', 'scp -t x &', 'scp -t x\nmake', 'cat; echo done', 'sudo scp -t x'];
    expect(sinks.filter(isScpSink)).to.deep.equal(sinks);
    expect(others.filter(isScpSink)).to.deep.equal([]);
  });

  const envCases: [string, string, number, string | undefined][] = [
    ['LANG', 'C.UTF-8', 0, undefined],
    ['LC_ALL', '', 3, undefined],
    ['_X1', 'v', 0, undefined],
    ['1X', 'v', 0, 'not a plain variable name'],
    ['A-B', 'v', 0, 'not a plain variable name'],
    ['A B', 'v', 0, 'not a plain variable name'],
    ['', 'v', 0, 'not a plain variable name'],
    ['HOME', '/root', 0, 'set by the gateway'],
    ['TERM', 'vt100', 0, 'set by the gateway'],
    ['X', 'a\0b', 0, 'value too long or contains NUL'],
    ['X', 'v'.repeat(8193), 0, 'value too long or contains NUL'],
    ['X', 'v', MAX_ENV_VARS, `more than ${MAX_ENV_VARS} variables`],
  ];
  for (const [name, value, count, refusal] of envCases) {
    it(`${refusal ? `refuses env ${JSON.stringify(name)} (${refusal})` : `accepts env ${name}`}`, () => {
      expect(envRefusal(name, value, count)).to.equal(refusal);
    });
  }

  it('keeps terminal types to terminfo-like names', () => {
    expect(sanitizeTerm('xterm-256color')).to.equal('xterm-256color');
    expect(sanitizeTerm('xterm\u001b[31m')).to.equal('xterm');
    expect(sanitizeTerm('')).to.equal('xterm');
  });
});
