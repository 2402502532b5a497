// Where `npm run synth` takes its configuration from: `--config FILE`, else DEN_CONFIG, else
// none (the defaults); the DEN_* variables apply over it either way.
import { readFileSync } from 'node:fs';
import { InstallSettingsError, readInstallSettings, type InstallSettings } from './settings.js';

/** The `--config` of the command line, or undefined; anything else on it is refused. */
export function configFlag(argv: readonly string[]): string | undefined {
  let path: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--config') {
      path = argv[++i];
      if (!path) throw new InstallSettingsError('--config needs a file name');
    } else if (arg.startsWith('--config=')) path = arg.slice('--config='.length);
    else throw new InstallSettingsError(`unexpected argument '${arg}' (only --config FILE)`);
  }
  return path;
}

/** The settings of the configuration file at `path` (when given) with the variables over it. */
export function loadInstallSettings(path: string | undefined, env: Record<string, string | undefined>): InstallSettings {
  if (!path) return readInstallSettings(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new InstallSettingsError(`${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return readInstallSettings(env, { text, where: path });
}
