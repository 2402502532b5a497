// What every `den <role>` command provides to the executable.
import type { SettingsSpec, Settings } from './settings.js';

export interface Role<S extends SettingsSpec = SettingsSpec> {
  /** One line for `den --help`. */
  summary: string;
  settings: S;
  /** Runs until `signal` aborts (SIGTERM/SIGINT), then shuts down gracefully. */
  run(settings: Settings<S>, signal: AbortSignal): Promise<void>;
}

/** Logs one JSON line to stderr; callers must never pass secrets. */
export function log(role: string, msg: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), role, msg, ...fields }) + '\n');
}
