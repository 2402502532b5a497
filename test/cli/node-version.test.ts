// `den` started on a Node older than package.json's engines says so in one line, before it
// loads anything that would fail with a stack trace. Run with the system's Node (Debian's).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT, runCommand } from '../support/platform.js';

const SYSTEM_NODE = '/usr/bin/node';
const NEEDED = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node.replace(/^>=/, '');

function systemNodeVersion(): string | undefined {
  if (!existsSync(SYSTEM_NODE)) return undefined;
  return execFileSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).trim();
}

describe('den on an unsupported Node', function () {
  this.timeout(60_000);
  const version = systemNodeVersion();

  before(function () {
    // The check needs a Node older than the project's; Debian's is (20 on this image).
    if (!version || Number(version.slice(1).split('.')[0]) >= Number(NEEDED.split('.')[0])) this.skip();
  });

  for (const args of [['server'], ['--help'], ['users', 'add', 'alice', '--owner', 'alice@example.com']]) {
    it(`den ${args.join(' ')} prints one line naming the Node it needs and npx den, and exits 2`, async () => {
      const result = await runCommand(SYSTEM_NODE, [join(REPO_ROOT, 'bin/den.js'), ...args], { timeoutMs: 30_000 });
      expect(result).to.deep.equal({
        code: 2,
        stdout: '',
        stderr: `den: needs Node ${NEEDED} or newer, not ${version}: run it as \`npx den …\` in the project, which uses the Node that \`npm ci\` installed (node_modules/.bin/node)\n`,
      });
    });
  }
});
