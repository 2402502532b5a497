// The cdk8s app (cdk8s.yaml): renders the install chart into dist/ from the configuration file
// named by DEN_CONFIG (if any) and the DEN_* variables. `npm run synth` (infra/synth-command.ts)
// checks the same settings first, since `cdk8s synth` empties dist/ before running this.
import { synthInstall } from './install/synth.js';
import { InstallSettingsError } from './install/settings.js';
import { loadInstallSettings } from './install/config-file.js';

try {
  synthInstall(loadInstallSettings(process.env.DEN_CONFIG || undefined, process.env));
} catch (err) {
  if (!(err instanceof InstallSettingsError)) throw err;
  process.stderr.write(`den install: ${err.message}\n`);
  process.exitCode = 2;
}
