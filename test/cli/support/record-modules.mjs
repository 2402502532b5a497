// Preloaded with --import: writes every module URL the process resolved to the file named by
// DEN_TEST_MODULES_FILE when it exits (what `den ls` loads, for test/cli/dev/start-up.test.ts).
import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';

const seen = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    seen.add(result.url);
    return result;
  },
});
process.on('exit', () => writeFileSync(process.env.DEN_TEST_MODULES_FILE, [...seen].join('\n')));
