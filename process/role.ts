// What every `den <role>` command provides to the executable.
import type { SettingsSpec, Settings } from './settings.js';

export interface Role<S extends SettingsSpec = SettingsSpec> {
  /** One line for `den --help`. */
  summary: string;
  settings: S;
  /** Runs until `signal` aborts (SIGTERM/SIGINT), then shuts down gracefully. */
  run(settings: Settings<S>, signal: AbortSignal): Promise<void>;
}

/** Takes one log line; callers must never pass secrets. */
export type Log = (msg: string, fields?: Record<string, unknown>) => void;

/** The process's logger: one JSON line per call on stderr, tagged with the role. */
export function roleLog(role: string): Log {
  return (msg, fields = {}) => {
    process.stderr.write(JSON.stringify({ time: new Date().toISOString(), role, msg, ...fields }) + '\n');
  };
}
