// The figures the benches report, computed one way for all of them.
import { performance } from 'node:perf_hooks';

/** The value at quantile `q` (0..1) of ascending `sorted`: index floor(q·n), the last at most. */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** `quantile(·, 0.5)` of values in any order. */
export function median(values: number[]): number {
  return quantile([...values].sort((a, b) => a - b), 0.5);
}

export function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * The highest rate (MiB/s) a chain of processes can stream at when its stages spend `msPerMiB`
 * of CPU each: held by its slowest stage with a core per stage, and by its whole cost spread
 * over `cores` when it has fewer.
 */
export function chainRateBound(msPerMiB: number[], cores = Infinity): number {
  const total = msPerMiB.reduce((a, b) => a + b, 0);
  return 1000 / Math.max(...msPerMiB, total / Math.min(cores, msPerMiB.length));
}

/** Milliseconds of each synchronous call `fn(input)`, after `warmup` untimed calls; ascending. */
export function timeEach<T>(inputs: T[], fn: (input: T) => unknown, warmup: number): number[] {
  for (let i = 0; i < warmup; i++) fn(inputs[i % inputs.length]!);
  const times: number[] = [];
  for (const one of inputs) {
    const started = performance.now();
    fn(one);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

/** How many times `npm run bench` runs each bench unless the bench exports its own `repetitions`. */
export const DEFAULT_REPETITIONS = 3;

const NUMBER = /[+-]?\d+(?:\.\d+)?/g;

/** `min / median / max` of one figure's values, written with the decimals and sign its runs used. */
export function spreadOf(tokens: string[]): string {
  const values = tokens.map(Number).sort((a, b) => a - b);
  const decimals = Math.max(...tokens.map((t) => t.split('.')[1]?.length ?? 0));
  const signed = tokens.some((t) => t.startsWith('+'));
  const show = (v: number) => `${signed && v >= 0 ? '+' : ''}${v.toFixed(decimals)}`;
  return [values[0]!, median(values), values[values.length - 1]!].map(show).join(' / ');
}

/**
 * One line of every run merged: numbers that differ become `min / median / max`, the rest stays.
 * A table cell (or a line outside a table) with more than one such number brackets each, so
 * `before / after` figures of a bench stay apart: `[218 / 219 / 220] / [190 / 201 / 206] MiB`.
 */
function mergeLine(lines: string[]): string {
  const first = lines[0]!;
  const skeleton = (line: string) => line.replace(NUMBER, '#');
  if (lines.some((l) => skeleton(l) !== skeleton(first))) return first;
  const cells = lines.map((l) => l.split('|'));
  return cells[0]!
    .map((cell, c) => {
      const numbers = cells.map((run) => run[c]!.match(NUMBER) ?? []);
      const varied = numbers[0]!.filter((token, i) => numbers.some((n) => n[i] !== token)).length;
      let i = 0;
      return cell.replace(NUMBER, (token) => {
        const column = numbers.map((n) => n[i]!);
        i++;
        if (column.every((t) => t === token)) return token;
        return varied > 1 ? `[${spreadOf(column)}]` : spreadOf(column);
      });
    })
    .join('|');
}

/**
 * The output of several runs of one bench as one: line by line, every figure that varied
 * between runs written as `min / median / max`, what did not vary (labels, counts, sizes) as
 * it was. A line whose words differ between runs is taken from the first run.
 */
export function mergeRuns(outputs: string[]): string {
  if (outputs.length === 0) throw new Error('mergeRuns: no run to merge');
  const split = outputs.map((o) => o.trim().split('\n'));
  return split[0]!.map((_, row) => mergeLine(split.map((lines) => lines[row] ?? ''))).join('\n');
}

/** How one bench went in `npm run bench`: its runs and their time, or the error that stopped it. */
export interface BenchOutcome {
  name: string;
  runs: number;
  seconds: number;
  error?: string;
}

/** A duration as people read it: seconds under two minutes, else minutes. */
export function duration(seconds: number): string {
  return seconds < 120 ? `${seconds.toFixed(1)} s` : `${(seconds / 60).toFixed(1)} min`;
}

/** The closing section of `npm run bench`: one row per bench, then the total time and how many failed. */
export function summaryTable(outcomes: BenchOutcome[], totalSeconds: number): string {
  const rows = outcomes.map((o) => `| ${o.name} | ${o.runs} | ${duration(o.seconds)} | ${o.error === undefined ? 'ok' : `failed: ${o.error.split('\n')[0]!.replaceAll('|', '\\|')}`} |`);
  const failed = outcomes.filter((o) => o.error !== undefined).length;
  return [
    '| bench | runs | time | result |',
    '|---|---|---|---|',
    ...rows,
    '',
    `Total: ${duration(totalSeconds)} for ${outcomes.length} bench${outcomes.length === 1 ? '' : 'es'}${failed ? `, ${failed} failed` : ''}.`,
  ].join('\n');
}
