// The developer commands against the whole platform on this machine (the real den server,
// gateway and manager): sign in with a token on stdin, create and list workspaces, write the
// SSH config, and then plain OpenSSH, scp, git and VS Code's Remote-SSH sequence through it.
import { execFile, spawn } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import { expectDescribed } from '../../server/api/openapi-check.js';
import { freePort } from '../../support/loopback.js';
import { eventually, LocalPlatform, runCommand, runDen } from '../../support/platform.js';
import { DEN, laptop, sshFlags, trustGateway, type Laptop } from './support.js';

const execFileAsync = promisify(execFile);

describe('den for developers, against the platform on this machine', function () {
  this.timeout(90_000);
  const platform = new LocalPlatform();
  let me: Laptop;
  let token = '';
  let secondToken = '';
  let issueToken: (name: string) => Promise<string>;
  let context = '';
  let sshConfig = '';

  before(async function () {
    this.timeout(120_000);
    await platform.start();
    me = await laptop();
    const added = await runDen(['users', 'add', 'alice', '--owner', 'alice@example.com', '--password-stdin', '--kubeconfig', platform.kubeconfig], { stdin: 'alice-password\n' });
    expect(added.code, added.stderr).to.equal(0);
    await eventually(() => platform.api.object<any>(RESOURCES.userSpace, 'alice')?.status?.phase === 'Ready', 'UserSpace alice Ready', 20_000);
    await platform.admin.create(RESOURCES.workspaceImage, { apiVersion: RESOURCES.workspaceImage.apiVersion, kind: 'WorkspaceImage', metadata: { name: 'ubuntu' }, spec: { displayName: 'Ubuntu', image: platform.workspaceImage, homePath: platform.podRoot } });
    const login = await fetch(`${platform.baseUrl}/api/v1/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: 'alice-password' }) });
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    issueToken = async (name: string) => {
      const issued = await fetch(`${platform.baseUrl}/api/v1/tokens?name=${name}`, { method: 'POST', headers: { Cookie: cookie, 'X-CSRF-Token': login.headers.get('x-csrf-token')! } });
      return ((await issued.json()) as { token: string }).token;
    };
    token = await issueToken('laptop');
    secondToken = await issueToken('desktop');
    context = `127-0-0-1-${new URL(platform.baseUrl).port}`;
    sshConfig = join(me.home, 'ssh_config');
    await trustGateway(me.knownHosts, platform.ssh.host, platform.ssh.port);
  });

  /** `ssh` with only the known gateway host key and no agent: what den ssh and den forward run (DEN_SSH). */
  async function sshWrapper(): Promise<string> {
    const wrapper = join(me.home, 'ssh-with-known-host');
    await writeFile(wrapper, `#!/bin/sh\nexec ssh -F /dev/null -o UserKnownHostsFile=${me.knownHosts} -o IdentityAgent=none -o BatchMode=yes "$@"\n`, { mode: 0o755 });
    return wrapper;
  }

  after(async function () {
    this.timeout(30_000);
    await platform.stop();
    if (me) await rm(me.home, { recursive: true, force: true });
  });

  it('a command before den login says how to sign in, exit 2', async () => {
    const run = await me.den(['ls']);
    expect(run.code).to.equal(2);
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.equal('den ls: not signed in to any Den (sign in with den login <base-url>)\n(see den ls --help)\n');
  });

  it('den login --token-stdin keeps the token in $XDG_CONFIG_HOME/den/cli.json, mode 0600', async () => {
    const run = await me.den(['login', platform.baseUrl, '--token-stdin', '--ssh-port', String(platform.ssh.port)], { stdin: `${token}\n` });
    expect(run.stderr).to.equal(`signed in to ${platform.baseUrl} as alice@example.com (context ${context})\n`);
    expect(run.code).to.equal(0);
    const file = join(me.config, 'den', 'cli.json');
    expect((await stat(file)).mode & 0o777).to.equal(0o600);
    expect((await stat(join(me.config, 'den'))).mode & 0o777).to.equal(0o700);
    const stored = JSON.parse(await readFile(file, 'utf8'));
    expect(stored).to.deep.equal({ current: context, contexts: { [context]: { url: platform.baseUrl, token, tokenName: 'laptop', email: 'alice@example.com', sshPort: platform.ssh.port } } });
  });

  it('den create -o json answers the created Workspace as the OpenAPI description says', async () => {
    const run = await me.den(['create', 'dev', '--image', 'ubuntu', '--storage', '1Gi', '--cpu', '500m', '--memory', '512Mi', '-o', 'json']);
    expect(run.code, run.stderr).to.equal(0);
    const body = JSON.parse(run.stdout);
    expectDescribed('POST', '/workspaces', { status: 201, body });
    expect(body.spec.sshAuthorizedKeys).to.deep.equal([me.publicKey]);
  });

  it('den ls -o json is the WorkspaceList of the OpenAPI description, and den ls a table', async () => {
    const list = await eventually(async () => {
      const run = await me.den(['ls', '-o', 'json']);
      const body = JSON.parse(run.stdout);
      return body.items[0]?.status?.phase === 'Running' && body;
    }, 'dev Running', 20_000);
    expectDescribed('GET', '/workspaces', { status: 200, body: list });
    const table = await me.den(['ls']);
    expect(table.code).to.equal(0);
    const [header, row, ...rest] = table.stdout.trimEnd().split('\n');
    expect(header!.split(/\s+/)).to.deep.equal(['NAME', 'PHASE', 'RUNNING', 'IMAGE', 'CPU', 'MEMORY', 'STORAGE', 'SSH', 'AGE']);
    expect(row!.split(/\s+/).slice(0, 8)).to.deep.equal(['dev', 'Running', 'yes', 'ubuntu', '500m', '512Mi', '1Gi', 'dev@127.0.0.1']);
    expect(rest).to.deep.equal([]);
    expect(table.stdout, 'no colour when stdout is not a terminal').not.to.include('\u001b[');
  });

  it('den images -o json is the WorkspaceImageList of the OpenAPI description', async () => {
    const run = await me.den(['images', '-o', 'json']);
    expect(run.code, run.stderr).to.equal(0);
    const body = JSON.parse(run.stdout);
    expectDescribed('GET', '/workspace-images', { status: 200, body });
    expect(body.items.map((i: any) => i.metadata.name)).to.deep.equal(['ubuntu']);
  });

  it("a refusal is the server's {error} on one line, exit 1", async () => {
    const run = await me.den(['start', 'nope']);
    expect(run.code).to.equal(1);
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.match(/^den start: .*nope.* not found\n$/);
  });

  it('den config-ssh leaves hand-written entries around its block byte for byte, and adds the key to the profile', async () => {
    const mine = 'Host build\n\tHostName build.example.com   # tabs, spaces and a comment\n  User me\n\n';
    const theirs = '\nHost *\n  ServerAliveInterval 30\n'; // and no newline issue: ends with one
    await writeFile(sshConfig, mine);
    const first = await me.den(['config-ssh', '--file', sshConfig, '--add-key']);
    expect(first.code, first.stderr).to.equal(0);
    await writeFile(sshConfig, (await readFile(sshConfig, 'utf8')) + theirs);
    const written = await readFile(sshConfig, 'utf8');
    const block = [
      `# ------------ BEGIN den config-ssh ${context} ------------`,
      `# Written by den config-ssh for ${platform.baseUrl}; run it again to update. Changes made inside this block are lost.`,
      `Host dev.${context}`,
      '  HostName 127.0.0.1',
      `  Port ${platform.ssh.port}`,
      '  User dev',
      `  IdentityFile ${me.keyFile}`,
      '  IdentitiesOnly yes',
      `# ------------ END den config-ssh ${context} ------------`,
    ].join('\n');
    expect(written).to.equal(`${mine}\n${block}\n${theirs}`);
    expect(first.stderr).to.include(`added ${me.keyFile}.pub to your profile`);
    expect(platform.api.object<any>(RESOURCES.userSpace, 'alice')!.spec.sshAuthorizedKeys).to.deep.equal([me.publicKey]);

    const again = await me.den(['config-ssh', '--file', sshConfig]);
    expect(again.code).to.equal(0);
    expect(again.stderr).to.equal(`${sshConfig} is up to date (1 workspace)\n`);
    expect(await readFile(sshConfig, 'utf8')).to.equal(written);
  });

  it('den config-ssh on a terminal asks before adding the key to the profile: n leaves the profile alone, y adds the key', async () => {
    const other = await laptop();
    try {
      const signedIn = await other.den(['login', platform.baseUrl, '--token-stdin', '--ssh-port', String(platform.ssh.port)], { stdin: `${await issueToken('prompt')}\n` });
      expect(signedIn.code, signedIn.stderr).to.equal(0);
      const file = join(other.home, 'ssh_config');
      // script(1) gives den a terminal, as a person at a shell has; what den writes comes back on its stdout
      const onTerminal = (answer: string) =>
        runCommand('script', ['-qec', `'${process.execPath}' '${DEN}' config-ssh --file '${file}'`, '/dev/null'], { stdin: answer, env: other.env(), timeoutMs: 60_000 });
      const keys = () => platform.api.object<any>(RESOURCES.userSpace, 'alice')!.spec.sshAuthorizedKeys;
      const question = `Your profile has no copy of ${other.keyFile}.pub; new workspaces get your profile's keys. Add it? [Y/n]`;
      const no = await onTerminal('n\n');
      expect(no.code, no.stdout).to.equal(0);
      expect(no.stdout).to.include(question);
      expect(no.stdout).to.include(`your profile has none of ${other.keyFile}.pub; add it with den config-ssh --add-key`);
      expect(keys()).to.deep.equal([me.publicKey]);
      const yes = await onTerminal('y\n');
      expect(yes.code, yes.stdout).to.equal(0);
      expect(yes.stdout).to.include(question);
      expect(yes.stdout).to.include(`added ${other.keyFile}.pub to your profile`);
      expect(keys()).to.deep.equal([me.publicKey, other.publicKey]);
    } finally {
      await other.den(['logout']);
      await rm(other.home, { recursive: true, force: true });
    }
  });

  it('ssh, scp and git over SSH work through the written config', async () => {
    const flags = sshFlags(sshConfig, me.knownHosts);
    const shell = await runCommand('ssh', [...flags, `dev.${context}`, 'echo hello from $(basename $PWD); exit 3'], { timeoutMs: 30_000 });
    expect(shell.stdout, shell.stderr).to.equal('hello from pod\n');
    expect(shell.code).to.equal(3);

    const local = join(me.home, 'notes.txt');
    await writeFile(local, 'bytes for the workspace\n');
    const copied = await runCommand('scp', [...flags, local, `dev.${context}:notes-copy.txt`], { timeoutMs: 30_000 });
    expect(copied.code, copied.stderr).to.equal(0);
    expect(await readFile(join(platform.podRoot, 'notes-copy.txt'), 'utf8')).to.equal('bytes for the workspace\n');

    const repo = join(platform.podRoot, 'project.git');
    await execFileAsync('git', ['init', '-q', '--bare', '-b', 'main', repo]);
    const gitEnv = { ...process.env, HOME: me.home, GIT_SSH_COMMAND: ['ssh', ...flags].join(' '), GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.com' };
    const work = join(me.home, 'project');
    await execFileAsync('git', ['clone', '-q', `dev.${context}:project.git`, work], { env: gitEnv });
    await writeFile(join(work, 'README'), 'pushed over SSH\n');
    await execFileAsync('git', ['-C', work, 'add', 'README'], { env: gitEnv });
    await execFileAsync('git', ['-C', work, 'commit', '-q', '-m', 'first'], { env: gitEnv });
    await execFileAsync('git', ['-C', work, 'push', '-q', 'origin', 'main'], { env: gitEnv });
    const { stdout } = await execFileAsync('git', ['--git-dir', repo, 'show', 'main:README']);
    expect(stdout).to.equal('pushed over SSH\n');
  });

  it("VS Code's sequence: ssh -T -D <port> host bash with the install script on stdin, then SOCKS to the server it started", async () => {
    const socksPort = await freePort();
    const ssh = spawn('ssh', [...sshFlags(sshConfig, me.knownHosts), '-T', '-D', `127.0.0.1:${socksPort}`, `dev.${context}`, 'bash'], { stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      // What the install script ends in: a server on a loopback port of the workspace, announced on stdout.
      ssh.stdin.write(`exec ${process.execPath} -e "require('http').createServer((q, s) => s.end('vscode-server ok')).listen(0, '127.0.0.1', function () { console.log('listeningOn==' + this.address().port + '==') })"\n`);
      let out = '';
      const port = await new Promise<number>((resolve, reject) => {
        ssh.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const m = /listeningOn==(\d+)==/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        ssh.on('exit', (code) => reject(new Error(`ssh exited ${code} before the server started`)));
      });
      expect(await httpThroughSocks(socksPort, port)).to.include('vscode-server ok');
    } finally {
      ssh.kill();
    }
  });

  it('den ssh starts a stopped workspace, waits for Running, and runs the command', async () => {
    const stopped = await me.den(['stop', 'dev']);
    expect(stopped.stdout).to.equal('workspace dev stopping\n');
    await eventually(() => platform.api.object<any>(RESOURCES.workspace, 'dev', 'svc-alice')?.status?.phase === 'Suspended', 'dev Suspended', 20_000);
    const run = await me.den(['ssh', 'dev', 'echo', 'in', 'the', 'workspace'], { env: { DEN_SSH: await sshWrapper() } });
    expect(run.stdout, run.stderr).to.equal('in the workspace\n');
    expect(run.code).to.equal(0);
    expect(run.stderr).to.match(/^starting workspace dev\nwaiting for workspace dev to be Running \(now \w+\)\n/);
  });

  it('den config-ssh --dry-run shows a new workspace as a diff and writes nothing; a deleted one leaves the block', async () => {
    const created = await me.den(['create', 'web', '--image', 'ubuntu', '--storage', '1Gi', '--cpu', '500m', '--memory', '512Mi']);
    expect(created.stdout, created.stderr).to.equal('workspace web created\n');
    const before = await readFile(sshConfig, 'utf8');
    const dry = await me.den(['config-ssh', '--file', sshConfig, '--dry-run']);
    expect(dry.code).to.equal(0);
    expect(dry.stdout).to.include(`+Host web.${context}`).and.include('+  User web');
    expect(dry.stderr).to.equal(`dry run: ${sshConfig} was not changed\n`);
    expect(await readFile(sshConfig, 'utf8')).to.equal(before);
    const deleted = await me.den(['delete', 'dev']);
    expect(deleted.stdout).to.equal('workspace dev deleted\n');
    await me.den(['config-ssh', '--file', sshConfig]);
    const after = await readFile(sshConfig, 'utf8');
    expect(after).to.include(`Host web.${context}`).and.not.include(`Host dev.${context}`);
    expect(after.startsWith('Host build\n\tHostName build.example.com')).to.equal(true);
    expect(after.endsWith('\nHost *\n  ServerAliveInterval 30\n')).to.equal(true);
  });

  it('den forward carries a local port to a server on localhost in the workspace, until it is stopped', async () => {
    const server = createServer((_req, res) => res.end('served in the workspace'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const remote = (server.address() as AddressInfo).port;
    const local = await freePort();
    const forwarding = spawn(process.execPath, [DEN, 'forward', 'web', `${local}:${remote}`], { env: me.env({ DEN_SSH: await sshWrapper() }), stdio: ['ignore', 'ignore', 'pipe'] });
    let said = '';
    forwarding.stderr.on('data', (c: Buffer) => (said += c.toString()));
    const exited = new Promise<number | null>((resolve) => forwarding.on('exit', resolve));
    try {
      const body = await eventually(() => fetch(`http://127.0.0.1:${local}/`).then((r) => r.text(), () => undefined), 'the forwarded port answering', 20_000);
      expect(body).to.equal('served in the workspace');
      expect(said).to.include(`forwarding 127.0.0.1:${local} to port ${remote} in workspace web; Ctrl-C stops\n`);
    } finally {
      forwarding.kill('SIGTERM');
      server.close();
    }
    await exited;
    const refused = await fetch(`http://127.0.0.1:${local}/`).then(() => 'answered', (err: Error) => String((err.cause as { code?: string })?.code));
    expect(refused, 'ssh stopped with den').to.equal('ECONNREFUSED');
  });

  it("den code prints and opens VS Code's Remote-SSH URI of the workspace's home folder", async () => {
    const opened = join(me.home, 'opened');
    const browser = join(me.home, 'browser');
    await writeFile(browser, `#!/bin/sh\nprintf '%s' "$1" > ${opened}\n`, { mode: 0o755 });
    const run = await me.den(['code', 'web'], { env: { BROWSER: browser } });
    const uri = `vscode://vscode-remote/ssh-remote+web.${context}${platform.podRoot}`;
    expect(run.stdout, run.stderr).to.equal(`${uri}\n`);
    expect(run.code).to.equal(0);
    expect(await eventually(() => readFile(opened, 'utf8'), 'the browser opened', 10_000)).to.equal(uri);
  });

  it('a second context lives beside the first: its own block in the same file, picked with --context or --url, signed in again and logged out alone', async () => {
    const login = await me.den(['login', platform.baseUrl, '--token-stdin', '--name', 'second', '--ssh-port', String(platform.ssh.port)], { stdin: secondToken });
    expect(login.code, login.stderr).to.equal(0);
    const before = await readFile(sshConfig, 'utf8');
    const written = await me.den(['config-ssh', '--file', sshConfig, '--context', 'second']);
    expect(written.code, written.stderr).to.equal(0);
    const after = await readFile(sshConfig, 'utf8');
    expect(after.startsWith(before), 'the first block and everything around it stay').to.equal(true);
    expect(after.slice(before.length)).to.match(/^\n# -{12} BEGIN den config-ssh second -{12}\n[^]*Host web\.second\n[^]*# -{12} END den config-ssh second -{12}\n$/);
    const viaUrl = await me.den(['ls', '-o', 'json', '--url', platform.baseUrl]);
    expect(viaUrl.code, viaUrl.stderr).to.equal(0);
    const replacement = await issueToken('desktop-again');
    const again = await me.den(['login', platform.baseUrl, '--token-stdin', '--name', 'second', '--ssh-port', String(platform.ssh.port)], { stdin: replacement });
    expect(again.code, again.stderr).to.equal(0);
    expect((await fetch(`${platform.baseUrl}/api/v1/session`, { headers: { Authorization: `Bearer ${secondToken}` } })).status, 'signing in again revoked the token held before').to.equal(401);
    const logout = await me.den(['logout', '--context', 'second']);
    expect(logout.code, logout.stderr).to.equal(0);
    expect((await fetch(`${platform.baseUrl}/api/v1/session`, { headers: { Authorization: `Bearer ${token}` } })).status, 'the first token still works').to.equal(200);
    const stored = JSON.parse(await readFile(join(me.config, 'den', 'cli.json'), 'utf8'));
    expect(Object.keys(stored.contexts)).to.deep.equal([context]);
    expect(stored.current, 'no current context after logging out of it').to.equal(undefined);
  });

  it('bash completion offers the commands, then the workspace names from the API', async () => {
    const bin = join(me.home, 'bin');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'den'), `#!/bin/sh\nexec ${process.execPath} ${DEN} "$@"\n`, { mode: 0o755 });
    const complete = (words: string[]) =>
      runCommand('bash', ['-c', `source <(den completion bash); COMP_WORDS=(${words.map((w) => `"${w}"`).join(' ')}); COMP_CWORD=${words.length - 1}; _den; printf '%s\\n' "\${COMPREPLY[@]}"`], {
        env: me.env({ PATH: `${bin}:${process.env.PATH}`, DEN_CONTEXT: context }),
        timeoutMs: 30_000,
      });
    const commands = await complete(['den', 'con']);
    expect(commands.stdout.split('\n').filter(Boolean)).to.deep.equal(['config-ssh']);
    const names = await complete(['den', 'ssh', '']);
    expect(names.stdout.split('\n').filter(Boolean), names.stderr).to.deep.equal(['web']);
  });

  it('zsh completion offers the commands, then the workspace names from the API', async () => {
    const bin = join(me.home, 'bin');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'den'), `#!/bin/sh\nexec ${process.execPath} ${DEN} "$@"\n`, { mode: 0o755 });
    // zsh's own parsing of the script; compadd (a builtin that needs the line editor) prints what it was offered
    const complete = (words: string[]) =>
      runCommand('zsh', ['-fc', `compdef() { :; }; source <(den completion zsh); compadd() { shift \${@[(i)--]}; print -l -- "$@"; }; words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _den`], {
        env: me.env({ PATH: `${bin}:${process.env.PATH}`, DEN_CONTEXT: context }),
        timeoutMs: 30_000,
      });
    const commands = await complete(['den', '']);
    expect(commands.stdout.split('\n'), commands.stderr).to.include.members(['login', 'ls', 'create', 'config-ssh', 'ssh', 'code', 'forward', 'completion']);
    const names = await complete(['den', 'ssh', '']);
    expect(names.stdout.split('\n').filter(Boolean), names.stderr).to.deep.equal(['web']);
    const shells = await complete(['den', 'completion', '']);
    expect(shells.stdout.split('\n').filter(Boolean)).to.deep.equal(['bash', 'zsh']);
  });

  it('den logout revokes the token on the server and forgets it', async () => {
    const run = await me.den(['logout', '--context', context]);
    expect(run.code, run.stderr).to.equal(0);
    const answer = await fetch(`${platform.baseUrl}/api/v1/session`, { headers: { Authorization: `Bearer ${token}` } });
    expect(answer.status).to.equal(401);
    expect(JSON.parse(await readFile(join(me.config, 'den', 'cli.json'), 'utf8'))).to.deep.equal({ contexts: {} });
  });
});

/** GET / on 127.0.0.1:<port> through a SOCKS5 proxy (what VS Code's client does through ssh -D). */
function httpThroughSocks(socksPort: number, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(socksPort, '127.0.0.1');
    let stage = 0;
    let answer = Buffer.alloc(0);
    sock.on('error', reject);
    sock.on('connect', () => sock.write(Buffer.from([5, 1, 0])));
    sock.on('data', (chunk: Buffer) => {
      if (stage === 0) {
        stage = 1;
        const request = Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, port >> 8, port & 255]);
        sock.write(request);
      } else if (stage === 1) {
        if (chunk[1] !== 0) return reject(new Error(`SOCKS refused: ${chunk[1]}`));
        stage = 2;
        sock.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      } else answer = Buffer.concat([answer, chunk]);
    });
    sock.on('end', () => resolve(answer.toString()));
  });
}
