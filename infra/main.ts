// The cdk8s app `npm run synth` runs (cdk8s.yaml): renders the install chart into dist/.
import { synthInstall } from './install/synth.js';
import { InstallSettingsError, readInstallSettings } from './install/settings.js';

try {
  synthInstall(readInstallSettings(process.env));
} catch (err) {
  if (!(err instanceof InstallSettingsError)) throw err;
  process.stderr.write(`den install: ${err.message}\n`);
  process.exitCode = 2;
}
