// Starting `den` with nothing configured, with the API server away, or with a broken native
// module, as a person would: `node bin/den.js …` in a child process, with no DEN_* variable,
// KUBECONFIG or ~/.kube/config from the machine running the tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { freePort, kubeconfigYaml } from '../support/loopback.js';
import { REPO_ROOT, runCommand } from '../support/platform.js';

const DEN = join(REPO_ROOT, 'bin/den.js');
const BROKEN_RE2 = join(REPO_ROOT, 'test/cli/support/broken-re2.mjs');
const NO_CLUSTER =
  'no cluster configured: name a kubeconfig with --kubeconfig (DEN_KUBECONFIG) or KUBECONFIG, create ~/.kube/config, or run in a pod with a ServiceAccount';

/** The test runner's environment without Den's variables or any cluster, HOME an empty folder. */
function bareEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const cluster = ['KUBECONFIG', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT', 'XDG_CONFIG_HOME'];
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('DEN_') && !cluster.includes(k)) env[k] = v;
  return { ...env, HOME: home, ...extra };
}

function lines(text: string): string[] {
  return text.trimEnd().split('\n').filter(Boolean);
}

describe('den start-up', function () {
  this.timeout(90_000);
  let home: string;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'den-start-up-'));
  });

  afterEach(() => rmSync(home, { recursive: true, force: true }));

  describe('with no cluster configured', () => {
    const roles: [string, string[]][] = [
      ['server', ['--base-url', 'https://den.example.com', '--listen', '127.0.0.1:0']],
      ['manager', ['--health-listen', '127.0.0.1:0', '--webhook-listen', '127.0.0.1:0']],
      ['gateway', ['--health-listen', '127.0.0.1:0', '--listen', '127.0.0.1:0']],
    ];
    for (const [role, args] of roles) {
      it(`den ${role} says in one line how to name a cluster and exits 2, writing nothing`, async () => {
        const run = await runCommand(process.execPath, [DEN, role, ...args], { env: bareEnv(home), timeoutMs: 30_000 });
        expect(run.code, run.stderr).to.equal(2);
        expect(run.stdout).to.equal('');
        expect(run.stderr).to.equal(`den ${role}: ${NO_CLUSTER}\n`);
        expect(existsSync(join(home, '.config')), 'no host key or folder made').to.equal(false);
      });
    }

    it('den users add says the same in one line and exits 2', async () => {
      const run = await runCommand(process.execPath, [DEN, 'users', 'add', 'alice', '--owner', 'alice@example.com', '--password-stdin'], { env: bareEnv(home), stdin: 'first-admin-pw\n', timeoutMs: 30_000 });
      expect(run.code).to.equal(2);
      expect(run.stderr).to.equal(`den users: ${NO_CLUSTER}\n`);
    });

    it('a kubeconfig naming a plain-HTTP cluster without insecure-skip-tls-verify is refused in one line, exit 2', async () => {
      const file = join(home, 'config');
      writeFileSync(file, kubeconfigYaml('http://127.0.0.1:6443', 'admin', 'token').replace('insecure-skip-tls-verify: true', 'insecure-skip-tls-verify: false'));
      const run = await runCommand(process.execPath, [DEN, 'server', '--base-url', 'https://den.example.com', '--listen', '127.0.0.1:0'], { env: bareEnv(home, { KUBECONFIG: file }), timeoutMs: 30_000 });
      expect(run.code).to.equal(2);
      expect(run.stderr).to.equal('den server: kubeconfig: cluster den-test is plain HTTP (http://127.0.0.1:6443); use https, or set insecure-skip-tls-verify: true for it\n');
    });
  });

  describe('with the API server unreachable', () => {
    const started: ChildProcess[] = [];

    afterEach(async () => {
      for (const child of started.splice(0)) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await new Promise((resolve) => child.once('exit', resolve));
        }
      }
    });

    /** Starts `den <role>` against a closed port; answers its stderr lines so far, and its health port. */
    async function start(role: string, extra: Record<string, string> = {}): Promise<{ child: ChildProcess; stderr: string[]; health: number }> {
      const kubeconfig = join(home, 'kubeconfig');
      writeFileSync(kubeconfig, kubeconfigYaml(`http://127.0.0.1:${await freePort()}`, 'admin', 'token'));
      const health = await freePort();
      const args: Record<string, string[]> = {
        server: ['--base-url', 'https://den.example.com', '--listen', `127.0.0.1:${health}`],
        manager: ['--health-listen', `127.0.0.1:${health}`, '--webhook-listen', '127.0.0.1:0'],
        gateway: ['--health-listen', `127.0.0.1:${health}`, '--listen', '127.0.0.1:0'],
      };
      const child = spawn(process.execPath, [DEN, role, '--kubeconfig', kubeconfig, ...args[role]!], { cwd: REPO_ROOT, env: bareEnv(home, extra), stdio: ['ignore', 'ignore', 'pipe'] });
      started.push(child);
      const stderr: string[] = [];
      let partial = '';
      child.stderr!.on('data', (c: Buffer) => {
        const parts = (partial + c.toString()).split('\n');
        partial = parts.pop() ?? '';
        stderr.push(...parts);
      });
      return { child, stderr, health };
    }

    async function status(port: number, path: string): Promise<number> {
      try {
        return (await fetch(`http://127.0.0.1:${port}${path}`)).status;
      } catch {
        return 0; // not listening (yet)
      }
    }

    async function until(probe: () => boolean | Promise<boolean>, what: string, ms = 40_000): Promise<void> {
      const deadline = Date.now() + ms;
      while (!(await probe())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    for (const role of ['server', 'manager', 'gateway']) {
      it(`den ${role} keeps retrying with one log line per attempt, live but not ready, and stops cleanly on SIGTERM`, async () => {
        const { child, stderr, health } = await start(role);
        const retries = () => stderr.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'API server unavailable; retrying');
        await until(() => retries().length >= 2, 'two attempts logged');
        expect(retries().map((l) => l.attempt)).to.deep.equal([1, 2]);
        expect(retries()[0]).to.include({ role });
        expect(retries()[0]!.step).to.match(/^connect to http:\/\/127\.0\.0\.1:\d+$/);
        expect(String(retries()[0]!.error)).to.match(/API server unreachable \(connect ECONNREFUSED/);
        // Nothing else goes wrong meanwhile: no cache, Secret or webhook errors, no exit.
        const others = stderr.map((l) => JSON.parse(l) as { msg: string }).filter((l) => l.msg !== 'API server unavailable; retrying');
        expect(others.map((l) => l.msg).filter((m) => !/listening/.test(m))).to.deep.equal([]);
        expect(child.exitCode).to.equal(null);
        expect(await status(health, '/healthz')).to.equal(200);
        expect(await status(health, '/readyz')).to.equal(503);
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        child.kill('SIGTERM');
        expect(await exited).to.equal(0);
      });
    }

    it('den gateway outside a cluster keeps its host key in $XDG_CONFIG_HOME/den/, not /etc/den', async () => {
      const config = join(home, 'xdg');
      const { stderr } = await start('gateway', { XDG_CONFIG_HOME: config });
      await until(() => stderr.some((l) => l.includes('API server unavailable')), 'the first attempt');
      expect(existsSync(join(config, 'den', 'ssh_host_ed25519_key'))).to.equal(true);
    });

    it('den gateway without XDG_CONFIG_HOME keeps it in ~/.config/den/', async () => {
      const { stderr } = await start('gateway');
      await until(() => stderr.some((l) => l.includes('API server unavailable')), 'the first attempt');
      expect(existsSync(join(home, '.config', 'den', 'ssh_host_ed25519_key'))).to.equal(true);
    });
  });

  describe('with the native module re2 broken', () => {
    const broken = (args: string[]) => runCommand(process.execPath, ['--import', BROKEN_RE2, DEN, ...args], { env: bareEnv(home), timeoutMs: 30_000 });

    it('den --help and each role\'s --help still print their help, exit 0', async () => {
      for (const args of [['--help'], ['server', '--help'], ['manager', '--help']]) {
        const run = await broken(args);
        expect(run.code, args.join(' ')).to.equal(0);
        expect(run.stderr).to.equal('');
        expect(run.stdout).to.match(args.length === 1 ? /^Usage: den <command>/ : new RegExp(`^den ${args[0]}: `));
      }
    });

    it('den server says in one line that re2 cannot load and what to do, exit 1, no stack trace', async () => {
      const run = await broken(['server', '--base-url', 'https://den.example.com', '--listen', '127.0.0.1:0']);
      expect(run.code).to.equal(1);
      expect(lines(run.stderr)).to.have.length(1);
      expect(run.stderr).to.match(/^den server: the native module re2 cannot be loaded \(The module '.*re2\.node' was compiled against a different Node\.js version .*\); reinstall Den's dependencies for this Node\.js version \(npm ci\)\n$/);
    });
  });
});
