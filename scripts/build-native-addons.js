// Builds the native addons (re2, ssh2's crypto binding and its optional cpu-features) for the Node that `npm ci`
// brings (the `node` devDependency), with the headers that package ships: run by `postinstall`,
// on that Node. npm itself may run on an older Node; package.json's allowScripts keeps npm from
// building them for it, and no nodedir setting in .npmrc is needed (npm warns about it).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const NEEDED_MAJOR = 24;

function fail(message) {
  process.stderr.write(`build-native-addons: ${message}\n`);
  process.exit(1);
}

const major = Number(process.versions.node.split('.')[0]);
if (major < NEEDED_MAJOR) fail(`runs on the project's Node ${NEEDED_MAJOR} (node_modules/.bin/node), not ${process.version}`);
const nodeGyp = process.env.npm_config_node_gyp;
if (!nodeGyp) fail('run it through npm (npm ci, or npm run postinstall): npm names its node-gyp');
// The `node` package installs node-<platform>-<arch> beside it, with the headers.
const nodedir = resolve('node_modules/node/node_modules', `node-${process.platform}-${process.arch}`);
if (!existsSync(join(nodedir, 'include', 'node', 'node.h'))) fail(`no Node headers under ${nodedir}`);

const addons = [
  { dir: 'node_modules/re2', required: true },
  // ssh2's own install step builds it the same way (ssh2/install.js); without it ssh2 falls back to slower JS ciphers.
  { dir: 'node_modules/ssh2/lib/protocol/crypto', required: true, args: [`--real_openssl_major=${process.versions.openssl.split('.')[0]}`] },
  {
    dir: 'node_modules/cpu-features',
    required: false,
    // Its own install step: probe the compiler before node-gyp reads the result.
    prepare: (dir) => writeFileSync(join(dir, 'buildcheck.gypi'), execFileSync(process.execPath, ['buildcheck.js'], { cwd: dir })),
  },
];
for (const { dir, required, prepare, args = [] } of addons) {
  if (!existsSync(dir)) {
    if (required) fail(`${dir} is missing`);
    continue;
  }
  prepare?.(dir);
  // The compiler's chatter (warnings in the addons' own sources) is shown only when the build fails.
  // node-gyp lets npm_config_* variables override its command line, and npm exports a machine's own
  // nodedir setting (~/.npmrc, npm's Node's headers) as npm_config_nodedir: name ours there too.
  const env = { ...process.env, npm_config_nodedir: nodedir };
  const build = spawnSync(process.execPath, [nodeGyp, 'rebuild', '-j', 'max', `--nodedir=${nodedir}`, '--loglevel=error', ...args], { cwd: dir, encoding: 'utf8', env });
  if (build.status !== 0) {
    process.stderr.write(`${build.stdout}${build.stderr}`);
    fail(`building ${dir} failed (node-gyp exit ${build.status ?? build.signal}); it needs python3, make and a C++ compiler`);
  }
}
