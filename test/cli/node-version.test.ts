// `den` started on a Node older than package.json's engines says so in one line, before it
// loads anything that would fail with a stack trace. Whatever Node runs the suite, the check
// is made: a preloaded module makes this Node report another version (an older one, and then
// exactly the one needed), so the refusal is tested on every machine, never skipped.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT, runCommand } from '../support/platform.js';

const NEEDED = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node.replace(/^>=/, '');
const [MAJOR, MINOR] = NEEDED.split('.').map(Number) as [number, number];
/** Debian's Node of this image (20), and the last release before the one needed. */
const OLDER = ['20.19.2', MINOR > 0 ? `${MAJOR}.${MINOR - 1}.9` : `${MAJOR - 1}.99.0`];
/** What Node reports itself as under the shim: process.version and process.versions.node. */
const SHIM = `const version = process.env.DEN_TEST_NODE_VERSION;
Object.defineProperty(process, 'versions', { value: Object.freeze({ ...process.versions, node: version }), configurable: true, enumerable: true });
Object.defineProperty(process, 'version', { value: 'v' + version, configurable: true, enumerable: true });
`;

describe('den on an unsupported Node', function () {
  this.timeout(60_000);
  let dir = '';
  let shim = '';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'den-node-version-'));
    shim = join(dir, 'report-version.mjs');
    await writeFile(shim, SHIM);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const denOn = (version: string, args: string[]) => runCommand(process.execPath, ['--import', shim, join(REPO_ROOT, 'bin/den.js'), ...args], { timeoutMs: 30_000, env: { ...process.env, DEN_TEST_NODE_VERSION: version } });

  for (const older of OLDER) {
    for (const args of [['server'], ['--help'], ['users', 'add', 'alice', '--owner', 'alice@example.com']]) {
      it(`den ${args.join(' ')} on Node ${older} prints one line naming the Node it needs and npx den, and exits 2`, async () => {
        const result = await denOn(older, args);
        expect(result).to.deep.equal({
          code: 2,
          stdout: '',
          stderr: `den: needs Node ${NEEDED} or newer, not v${older}: run it as \`npx den …\` in the project, which uses the Node that \`npm ci\` installed (node_modules/.bin/node)\n`,
        });
      });
    }
  }

  it(`runs on exactly Node ${NEEDED}: den --help exits 0`, async () => {
    const result = await denOn(NEEDED, ['--help']);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.not.include('needs Node');
  });
});
