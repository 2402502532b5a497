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
