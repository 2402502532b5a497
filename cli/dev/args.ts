// Flags of the developer commands, parsed by Node's own parseArgs: unknown flags and a
// missing value are usage errors (exit 2) naming the flag.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type DevIo } from './io.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Every command that talks to a deployment can name it. */
export const CONTEXT_OPTIONS = {
  context: { type: 'string' },
  url: { type: 'string' },
} as const satisfies Options;

export const OUTPUT_OPTIONS = {
  output: { type: 'string', short: 'o' },
} as const satisfies Options;

export function parse<O extends Options>(argv: string[], options: O, positionals: { min: number; max: number; names: string }) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  const help = Boolean((parsed.values as Record<string, unknown>).help);
  if (!help && parsed.positionals.length < positionals.min) throw new UsageError(`missing ${positionals.names}`);
  if (!help && parsed.positionals.length > positionals.max) throw new UsageError(`unexpected argument "${parsed.positionals[positionals.max]}"`);
  return { values: parsed.values, positionals: parsed.positionals, help };
}

/** A command's --help: its usage line on stdout, exit 0. */
export function usage(io: DevIo, text: string): number {
  io.stdout.write(`Usage: ${text}\n\nEvery command that talks to a deployment takes --context <name> or --url <base-url> (default: the current one).\n`);
  return 0;
}
