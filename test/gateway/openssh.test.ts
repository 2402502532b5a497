// The gateway driven by the real OpenSSH client (ssh, scp, sftp) against the fake API
// server and the fake pods/exec and pods/portforward endpoints.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { RESOURCES } from '../../kube/resources.js';
import { V4, V5 } from '../support/fake-exec.js';
import { freePort } from '../support/loopback.js';
import { GATEWAY_USER, GatewayHarness, makeKey, NAMESPACE, pod, withoutKnownHostsNoise, workspace, type UserKey } from './harness.js';
import type { Workspace } from '../../gateway/workspaces.js';

describe('gateway with the OpenSSH client', function () {
  this.timeout(30_000);
  let h: GatewayHarness;
  let alice: UserKey;
  let mallory: UserKey;

  beforeEach(async () => {
    h = await new GatewayHarness().start();
    alice = await makeKey(h.keys, 'alice');
    mallory = await makeKey(h.keys, 'mallory');
    await h.seed(workspace('demo', [alice.publicKey], { podName: 'demo-0' }), pod('demo-0', 'demo'));
  });
  afterEach(async () => {
    await h.close();
  });

  describe('exec', () => {
    it('returns the exit code and keeps stderr apart from stdout', async () => {
      const r = await h.ssh(alice, 'demo', ['echo out; echo err >&2; exit 3']);
      expect(r.code).to.equal(3);
      expect(r.stdout).to.equal('out\n');
      expect(withoutKnownHostsNoise(r.stderr)).to.contain('err\n');
      expect(withoutKnownHostsNoise(r.stderr)).not.to.contain('out');
    });

    it('runs the command with the image shell in the home folder of the pod it resolved', async () => {
      const r = await h.ssh(alice, 'demo', ['pwd; echo "$SHELL" "$HOME"']);
      expect(r.code).to.equal(0);
      expect(r.stdout).to.equal(`${h.home}\n/bin/bash ${h.home}\n`);
      const exec = h.fake.execs[0]!;
      expect(exec).to.include({ namespace: NAMESPACE, pod: 'demo-0', container: 'workspace', tty: false });
      expect(exec.command.slice(-3)).to.deep.equal(['/bin/bash', '-c', 'pwd; echo "$SHELL" "$HOME"']);
    });

    it('passes stdin and its end (EOF) to the command over v5', async () => {
      const r = await h.ssh(alice, 'demo', ['wc -c'], { input: 'hello via stdin\n' });
      expect(r.code).to.equal(0);
      expect(r.stdout.trim()).to.equal('16');
      expect(h.fake.execs[0]).to.include({ protocol: V5, stdinClosedByFrame: true });
    });

    it('falls back to v4 on an older API server, where the command never sees EOF', async () => {
      h.fake.speak([V4]);
      const r = await h.ssh(alice, 'demo', ['head -c 6'], { input: 'abcdef' });
      expect(r.code).to.equal(0);
      expect(r.stdout).to.equal('abcdef');
      expect(h.fake.execs[0]).to.include({ protocol: V4, stdinClosedByFrame: false });
    });

    it('passes environment variables the client sends (SetEnv), refusing names that are not plain', async () => {
      const r = await h.ssh(alice, 'demo', ['echo "$DEN_TEST_VAR"'], { flags: ['-o', 'SetEnv=DEN_TEST_VAR=from-client'] });
      expect(r.stdout).to.equal('from-client\n');
    });

    it('reports a command killed by a signal as the runtime does, 128 + the signal', async () => {
      const r = await h.ssh(alice, 'demo', ['kill -TERM $$']);
      expect(r.code).to.equal(143);
    });
  });

  describe('terminal', () => {
    it('runs the image shell as a login shell on a real pty with ssh -t', async () => {
      const r = await h.ssh(alice, 'demo', [], { flags: ['-tt'], input: 'echo "answer=$((6*7)) term=$TERM"; tty; shopt -q login_shell && echo login; pwd; exit 5\n' });
      expect(r.code).to.equal(5);
      expect(r.stdout).to.contain('answer=42 term=');
      expect(r.stdout).to.match(/\/dev\/pts\/\d+/);
      expect(r.stdout).to.contain('login');
      expect(r.stdout).to.contain(h.home);
      const exec = h.fake.execs[0]!;
      expect(exec).to.include({ tty: true, stderr: false });
      expect(exec.command.slice(-2)).to.deep.equal(['/bin/bash', '-l']);
    });

    it('has the terminal size in place before the command runs, ten times in ten (ssh -t ws stty size)', async () => {
      const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;
      const ssh = ['ssh', ...h.sshOptions(alice), '-o', 'LogLevel=ERROR', '-p', String(h.port), '-t', 'demo@127.0.0.1', 'stty size'];
      for (let i = 0; i < 10; i++) {
        // ssh -t needs a terminal of its own: `script` gives it one, 33 rows by 111 columns.
        const r = await h.command('script', ['-qefc', `stty rows 33 cols 111; exec ${ssh.map(quote).join(' ')}`, '/dev/null']);
        expect(r.code, `try ${i + 1}: ${r.stdout}`).to.equal(0);
        // `script` turns the end of its stdin into a NUL keystroke, which the pod's terminal echoes as ^@.
        const printed = r.stdout.replaceAll('^@', '').replace(/\r/g, '').trim();
        expect(printed, `try ${i + 1}`).to.equal('33 111');
      }
      expect(h.fake.execs.map((e) => e.resizes[0])).to.deep.equal(Array(10).fill({ Width: 111, Height: 33 }));
    });
  });

  describe('file transfer', () => {
    let local: string;
    beforeEach(async () => {
      local = await mkdtemp(join(tmpdir(), 'den-gw-local-'));
    });
    afterEach(async () => {
      await rm(local, { recursive: true, force: true });
    });

    it('copies files both ways with scp (SFTP protocol)', async () => {
      const payload = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
      await writeFile(join(local, 'up.bin'), payload);
      const base = [...h.sshOptions(alice), '-P', String(h.port)];
      const up = await h.command('scp', [...base, join(local, 'up.bin'), 'demo@127.0.0.1:up.bin']);
      expect(up.code, up.stderr).to.equal(0);
      expect((await readFile(join(h.home, 'up.bin'))).equals(payload)).to.equal(true);

      await writeFile(join(h.home, 'down.txt'), 'from the pod\n');
      const down = await h.command('scp', [...base, 'demo@127.0.0.1:down.txt', join(local, 'down.txt')]);
      expect(down.code, down.stderr).to.equal(0);
      expect(await readFile(join(local, 'down.txt'), 'utf8')).to.equal('from the pod\n');
      expect(h.fake.execs.every((e) => e.command.includes('den-sftp'))).to.equal(true);
    });

    it('puts and gets files with sftp', async () => {
      await writeFile(join(local, 'put.txt'), 'put by sftp\n');
      await writeFile(join(h.home, 'get.txt'), 'got by sftp\n');
      const batch = join(local, 'batch');
      await writeFile(batch, `put ${join(local, 'put.txt')} put.txt\nget get.txt ${join(local, 'got.txt')}\nmkdir made\n`);
      const r = await h.command('sftp', [...h.sshOptions(alice), '-P', String(h.port), '-b', batch, 'demo@127.0.0.1']);
      expect(r.code, r.stderr).to.equal(0);
      expect(await readFile(join(h.home, 'put.txt'), 'utf8')).to.equal('put by sftp\n');
      expect(await readFile(join(local, 'got.txt'), 'utf8')).to.equal('got by sftp\n');
    });
  });

  describe('port forwarding', () => {
    let web: http.Server;
    let webPort: number;
    beforeEach(async () => {
      web = http.createServer((req, res) => res.end(`hello from the pod, ${req.url}\n`));
      await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
      webPort = (web.address() as AddressInfo).port;
    });
    afterEach(async () => {
      web.closeAllConnections();
      await new Promise<void>((resolve) => web.close(() => resolve()));
    });

    it('forwards ssh -L to an HTTP server listening on localhost in the pod', async () => {
      const localPort = await freePort();
      const env = { ...process.env };
      delete env.SSH_AUTH_SOCK;
      const child = spawn('ssh', [...h.sshOptions(alice), '-p', String(h.port), '-N', '-o', 'ExitOnForwardFailure=yes', '-L', `127.0.0.1:${localPort}:localhost:${webPort}`, 'demo@127.0.0.1'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      const stderr: Buffer[] = [];
      child.stderr.on('data', (c: Buffer) => stderr.push(c));
      try {
        const body = await retry(() => httpGet(`http://127.0.0.1:${localPort}/index.html`));
        expect(body).to.equal('hello from the pod, /index.html\n');
        expect(h.fake.forwards.at(-1)).to.deep.equal({ namespace: NAMESPACE, pod: 'demo-0', ports: [webPort] });
      } finally {
        child.kill('SIGTERM');
      }
    });

    it('carries a raw stream with ssh -W localhost:port', async () => {
      const r = await h.ssh(alice, 'demo', [], { flags: ['-W', `localhost:${webPort}`], input: 'GET /raw HTTP/1.0\r\nHost: localhost\r\n\r\n' });
      expect(r.stdout).to.match(/^HTTP\/1\.1 200 OK/);
      expect(r.stdout).to.contain('hello from the pod, /raw');
    });

    it('refuses remote forwarding (ssh -R)', async () => {
      const r = await h.ssh(alice, 'demo', ['true'], { flags: ['-o', 'ExitOnForwardFailure=yes', '-R', `0:localhost:${webPort}`] });
      expect(r.code).to.equal(255);
      expect(r.stderr).to.contain('remote port forwarding failed');
    });

    it('refuses direct-tcpip to any host but the pod loopback', async () => {
      const r = await h.ssh(alice, 'demo', [], { flags: ['-W', `10.0.0.1:${webPort}`] });
      expect(r.code).to.equal(255);
      expect(r.stderr).to.contain('open failed');
      expect(h.fake.forwards).to.have.length(0);
    });
  });

  describe('refusals', () => {
    async function deniedStderr(key: UserKey, user: string): Promise<string> {
      const r = await h.ssh(key, user, ['true']);
      expect(r.code).to.equal(255);
      return withoutKnownHostsNoise(r.stderr).trim();
    }

    it('refuses a key the workspace does not list', async () => {
      expect(await deniedStderr(mallory, 'demo')).to.equal('demo@127.0.0.1: Permission denied (publickey).');
      expect(h.fake.execs).to.have.length(0);
    });

    it('refuses an unknown workspace exactly like a wrong key, so names cannot be probed', async () => {
      expect(await deniedStderr(alice, 'nosuch')).to.equal('nosuch@127.0.0.1: Permission denied (publickey).');
      expect(await deniedStderr(mallory, 'demo')).to.equal('demo@127.0.0.1: Permission denied (publickey).');
    });

    it('tells the key holder that a stopped workspace must be started first', async () => {
      await h.seed(workspace('demo', [alice.publicKey], { phase: 'Suspended', podName: 'demo-0' }));
      const stderr = await deniedStderr(alice, 'demo');
      expect(stderr).to.contain('workspace demo is Suspended; start it first');
      expect(stderr).to.contain('Permission denied (publickey)');
      expect(h.fake.execs).to.have.length(0);
    });

    it('refuses a pod that lost the den.dev/workspace label', async () => {
      await h.seed(pod('demo-0', undefined));
      const stderr = await deniedStderr(alice, 'demo');
      expect(stderr).to.contain('pod demo-0 does not carry the label den.dev/workspace=demo; refusing to connect');
      expect(h.fake.execs).to.have.length(0);
    });

    it('refuses password and keyboard-interactive, offering publickey only', async () => {
      const r = await h.command('ssh', [...h.sshOptions(alice), '-p', String(h.port), '-o', 'PreferredAuthentications=password,keyboard-interactive', 'demo@127.0.0.1', 'true']);
      expect(r.code).to.equal(255);
      expect(withoutKnownHostsNoise(r.stderr).trim()).to.equal('demo@127.0.0.1: Permission denied (publickey).');
    });

    it('sees a key removed from the workspace at once', async () => {
      await h.seed(workspace('demo', [mallory.publicKey], { podName: 'demo-0' }));
      expect(await deniedStderr(alice, 'demo')).to.equal('demo@127.0.0.1: Permission denied (publickey).');
    });
  });

  it('patches status.lastActivityTime when a session opens and closes', async () => {
    const before = h.api.requests.length;
    const r = await h.ssh(alice, 'demo', ['true']);
    expect(r.code).to.equal(0);
    await waitFor(() => statusPatches().length === 2);
    const ws = h.api.object<Workspace>(RESOURCES.workspace, 'demo', NAMESPACE)!;
    expect(ws.status?.lastActivityTime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.now() - Date.parse(ws.status!.lastActivityTime!)).to.be.lessThan(10_000);
    function statusPatches() {
      return h.api.requests.slice(before).filter((q) => q.method === 'PATCH' && q.path === `/apis/den.dev/v1alpha1/namespaces/${NAMESPACE}/workspaces/demo/status`);
    }
    expect(statusPatches().every((q) => q.user === GATEWAY_USER)).to.equal(true);
  });
});

function httpGet(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function retry<T>(fn: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('gateway keepalives', function () {
  this.timeout(30_000);

  it('drops a client that stops answering keepalives (a frozen ssh process)', async () => {
    const h = await new GatewayHarness().start({ keepaliveIntervalMs: 200 });
    try {
      const alice = await makeKey(h.keys, 'alice');
      await h.seed(workspace('demo', [alice.publicKey]), pod('demo-0', 'demo'));
      const env = { ...process.env };
      delete env.SSH_AUTH_SOCK;
      const child = spawn('ssh', [...h.sshOptions(alice), '-p', String(h.port), '-N', 'demo@127.0.0.1'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr.resume();
      try {
        await waitFor(() => h.logs.some((l) => l.msg === 'audit' && l.fields?.audit === 'sign-in' && l.fields.outcome === 'success'));
        expect(h.gateway.openConnections).to.equal(1);
        child.kill('SIGSTOP');
        await waitFor(() => h.gateway.openConnections === 0, 10_000);
      } finally {
        child.kill('SIGKILL');
        child.kill('SIGCONT');
      }
    } finally {
      await h.close();
    }
  });
});
