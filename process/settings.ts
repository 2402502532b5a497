// Configuration read once at start-up from flags and DEN_* variables into a typed
// object. A bad value stops the process with one line naming the setting.

export interface Setting<T> {
  /** Long flag without dashes: `listen` for `--listen`. */
  flag: string;
  /** Environment variable: `DEN_LISTEN`. */
  env: string;
  describe: string;
  parse: (raw: string) => T;
  /** Used when neither the flag nor the variable is given; a setting without one is required. */
  default?: T;
  /** Boolean switches take no value on the command line (`--insecure`). */
  boolean?: boolean;
  /** The default as a person would type it, for --help, when the parsed value reads otherwise (`5m` for 300000 ms). */
  show?: string;
}

/** A listen address as `parsers.address` reads it. */
export type Address = { host: string; port: number };

export type SettingsSpec = Record<string, Setting<unknown>>;
export type Settings<S extends SettingsSpec> = { [K in keyof S]: S[K] extends Setting<infer T> ? T : never };

export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

export function readSettings<S extends SettingsSpec>(spec: S, argv: readonly string[], env: Record<string, string | undefined>): Settings<S> {
  const byFlag = new Map(Object.entries(spec).map(([key, s]) => [s.flag, { key, s }]));
  const raw = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new SettingsError(`unexpected argument '${arg}'`);
    const eq = arg.indexOf('=');
    const flag = arg.slice(2, eq < 0 ? undefined : eq);
    const entry = byFlag.get(flag);
    if (!entry) throw new SettingsError(`unknown flag --${flag} (see --help)`);
    let value: string | undefined = eq < 0 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      if (entry.s.boolean) value = 'true';
      else {
        value = argv[++i];
        if (value === undefined) throw new SettingsError(`--${flag} needs a value`);
      }
    }
    raw.set(entry.key, value);
  }
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(spec)) {
    const value = raw.get(key) ?? (env[s.env] !== undefined && env[s.env] !== '' ? env[s.env] : undefined);
    if (value === undefined) {
      if (!('default' in s)) throw new SettingsError(`--${s.flag} (${s.env}) is required: ${s.describe}`);
      out[key] = s.default;
      continue;
    }
    try {
      out[key] = s.parse(value);
    } catch (err) {
      throw new SettingsError(`--${s.flag} (${s.env}): ${(err as Error).message}`);
    }
  }
  return out as Settings<S>;
}

/** The default of a setting as --help shows it: `show`, or the value as it would be typed; undefined when required. */
export function defaultText(s: Setting<unknown>): string | undefined {
  if (!('default' in s)) return undefined;
  if (s.show !== undefined) return s.show;
  const value = s.default;
  if (isAddress(value)) return `${value.host.includes(':') ? `[${value.host}]` : value.host}:${value.port}`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function isAddress(value: unknown): value is Address {
  if (typeof value !== 'object' || value === null) return false;
  const { host, port } = value as Record<string, unknown>;
  return Object.keys(value).length === 2 && typeof host === 'string' && typeof port === 'number';
}

export function settingsHelp(spec: SettingsSpec): string {
  return Object.values(spec)
    .map((s) => {
      const shown = defaultText(s);
      const def = shown === undefined ? ' (required)' : shown === '' ? '' : ` (default ${shown})`;
      return `  --${s.flag}${s.boolean ? '' : ' VALUE'}  [${s.env}]\n      ${s.describe}${def}`;
    })
    .join('\n');
}

export const parsers = {
  string: (raw: string): string => raw,
  nonEmpty(raw: string): string {
    if (!raw.trim()) throw new Error('must not be empty');
    return raw;
  },
  boolean(raw: string): boolean {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    throw new Error(`expected true or false, got '${raw}'`);
  },
  integer(min: number, max = Number.MAX_SAFE_INTEGER) {
    return (raw: string): number => {
      const n = Number(raw);
      if (!/^-?\d+$/.test(raw.trim()) || n < min || n > max) throw new Error(`expected a whole number from ${min} to ${max}, got '${raw}'`);
      return n;
    };
  },
  /** `host:port`, `:port` or `[::1]:port`. */
  address(raw: string): Address {
    const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(raw.trim());
    const port = m ? Number(m[3]) : NaN;
    if (!m || port > 65535) throw new Error(`expected host:port, got '${raw}'`);
    return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
  },
  url(raw: string): string {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new Error(`expected an absolute URL, got '${raw}'`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`expected an http or https URL, got '${raw}'`);
    return raw.replace(/\/$/, '');
  },
  /** `90s`, `15m`, `4h` or a number of seconds, returned in milliseconds. */
  duration(raw: string): number {
    const m = /^(\d+)(ms|s|m|h)?$/.exec(raw.trim());
    if (!m) throw new Error(`expected a duration such as 30s, 15m or 4h, got '${raw}'`);
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
    return Number(m[1]) * unit;
  },
  list(raw: string): string[] {
    return raw.split(',').map((s) => s.trim()).filter(Boolean);
  },
};
