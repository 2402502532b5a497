// `den ls` and the other developer commands load none of the platform's dependencies: the
// modules a run resolves are recorded (test/cli/support/record-modules.mjs) and read back.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT, runCommand } from '../../support/platform.js';
import { DEN } from './support.js';

const RECORDER = join(REPO_ROOT, 'test/cli/support/record-modules.mjs');

describe('den developer commands at start-up', function () {
  this.timeout(60_000);
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'den-modules-'));
  });

  after(() => rm(dir, { recursive: true, force: true }));

  for (const args of [['ls'], ['config-ssh', '--dry-run'], ['--help']]) {
    it(`den ${args.join(' ')} loads no koa, ssh2, cdk8s, Kubernetes client or server code`, async () => {
      const file = join(dir, `${args[0]}.txt`);
      const env = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: dir, DEN_TEST_MODULES_FILE: file };
      const run = await runCommand(process.execPath, ['--import', RECORDER, DEN, ...args], { env, timeoutMs: 30_000 });
      expect(run.code, run.stderr).to.equal(args[0] === '--help' ? 0 : 2);
      const urls = (await readFile(file, 'utf8')).split('\n');
      const packages = [...new Set(urls.filter((u) => u.includes('/node_modules/')).map((u) => u.split('/node_modules/').pop()!.split('/').slice(0, u.includes('/node_modules/@') ? 2 : 1).join('/')))];
      // bin/den.js, the development entry, compiles TypeScript with tsx (and its esbuild); the built image does not.
      expect(packages.sort()).to.deep.equal(['esbuild', 'tsx']);
      const ours = urls.filter((u) => u.startsWith(`file://${REPO_ROOT}/`) && !u.includes('/node_modules/')).map((u) => u.slice(`file://${REPO_ROOT}/`.length));
      expect(ours.filter((p) => /^(server|gateway|hooks|kube|infra)\//.test(p) && !p.endsWith('/summary.ts'))).to.deep.equal([]);
    });
  }
});
