#!/usr/bin/env node
// Development entry point: runs the TypeScript sources through tsx. `npm ci` links it as
// node_modules/.bin/den, so `npx den …` runs it on the Node that `npm ci` brought.
// The container image runs the compiled `build/cli/den.js` instead.
import { readFileSync } from 'node:fs';

// Checked before anything is loaded: on an older Node the stack fails deep inside a dependency.
const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const needed = engines.node.replace(/^>=\s*/, '');
/** True when dotted `version` is below `floor`. */
function below(version, floor) {
  const [have, want] = [version, floor].map((v) => v.split('.').map(Number));
  const i = want.findIndex((part, at) => have[at] !== part);
  return i >= 0 && (have[i] ?? 0) < want[i];
}
if (below(process.versions.node, needed)) {
  process.stderr.write(`den: needs Node ${needed} or newer, not ${process.version}: run it as \`npx den …\` in the project, which uses the Node that \`npm ci\` installed (node_modules/.bin/node)\n`);
  process.exit(2);
}

const { register } = await import('tsx/esm/api');
register();
await import('../cli/den.ts');
