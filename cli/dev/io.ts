// What a developer command is given and how it answers (STYLE.md §12): data on stdout,
// messages on stderr, colour only on a terminal without NO_COLOR, and two failures with
// their exit codes: bad usage (2) and a refusal or outage (1), each one line, never a stack.
import type { Readable, Writable } from 'node:stream';

export interface DevIo {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** This den's version (`den version`), given by its entry point: package.json's, or the one the laptop bundle was built with. */
  version?: string;
  /** Opens `url` in the person's browser (`den login`); tests replace it. */
  openBrowser?: (url: string) => void;
}

/** Bad usage: exit 2, the message and a pointer to the help. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The command ran and failed (the server said no, or could not be reached): exit 1. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
}

export function colourOn(stream: { isTTY?: boolean }, env: DevIo['env']): boolean {
  return Boolean(stream.isTTY) && env.NO_COLOR === undefined && env.TERM !== 'dumb';
}

/** Columns padded to their widest cell; the header bold on a colour terminal. */
export function table(header: string[], rows: string[][], colour: boolean): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const head = line(header);
  return [colour ? `\u001b[1m${head}\u001b[0m` : head, ...rows.map(line)].join('\n') + '\n';
}

/** Output format from `-o`: the human table or JSON exactly as the REST API answered. */
export type Output = 'table' | 'json';

export function outputOf(value: string | undefined): Output {
  if (value === undefined || value === 'table') return 'table';
  if (value === 'json') return 'json';
  throw new UsageError(`-o must be table or json, not "${value}"`);
}

export function writeJson(io: DevIo, value: unknown): void {
  io.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
