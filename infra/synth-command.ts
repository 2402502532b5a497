// `npm run synth [-- --config FILE]`: checks the configuration (file, then DEN_* variables)
// and only then runs `cdk8s synth`, which would empty dist/ first. A bad value is one line
// naming the key, exit 2, dist/ as it was.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { configFlag, loadInstallSettings } from './install/config-file.js';
import { InstallSettingsError } from './install/settings.js';

const ROOT = resolve(import.meta.dirname, '..');

function main(): number {
  let config: string | undefined;
  try {
    const named = configFlag(process.argv.slice(2)) ?? (process.env.DEN_CONFIG || undefined);
    // npm runs scripts from the package folder; a relative name means the caller's folder.
    config = named === undefined ? undefined : resolve(process.env.INIT_CWD ?? process.cwd(), named);
    loadInstallSettings(config, process.env);
  } catch (err) {
    if (!(err instanceof InstallSettingsError)) throw err;
    process.stderr.write(`den install: ${err.message}\n`);
    return 2;
  }
  const env = { ...process.env, ...(config ? { DEN_CONFIG: config } : {}) };
  const synth = spawnSync(resolve(ROOT, 'node_modules/.bin/cdk8s'), ['synth', '--no-check-upgrade'], { cwd: ROOT, env, stdio: 'inherit' });
  if (synth.error) {
    process.stderr.write(`den install: cdk8s synth could not run (${synth.error.message})\n`);
    return 1;
  }
  return synth.status ?? 1;
}

process.exitCode = main();
