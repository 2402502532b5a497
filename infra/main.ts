// The cdk8s app `npm run synth` runs (cdk8s.yaml): renders the install chart into dist/.
// `--check` only reads the settings: `npm run synth` runs it before `cdk8s synth`, which would
// empty dist/ first and add its own stack trace to a refusal.
import { synthInstall } from './install/synth.js';
import { InstallSettingsError, readInstallSettings } from './install/settings.js';

try {
  const settings = readInstallSettings(process.env);
  if (!process.argv.includes('--check')) synthInstall(settings);
} catch (err) {
  if (!(err instanceof InstallSettingsError)) throw err;
  process.stderr.write(`den install: ${err.message}\n`);
  process.exitCode = 2;
}
