// `npm run bench`: runs every test/bench/*.bench.ts in turn, each several times (its exported
// `repetitions`, else DEFAULT_REPETITIONS; DEN_BENCH_REPEAT overrides both), and prints its
// Markdown table once with every figure that varied as `min / median / max` over the runs,
// then a summary table (each bench's runs, time and result) and the total time.
// Each bench measures ratios side by side within a run; none asserts a time.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_REPETITIONS, mergeRuns, summaryTable, type BenchOutcome } from './stats.js';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();
const override = process.env.DEN_BENCH_REPEAT === undefined ? undefined : Number(process.env.DEN_BENCH_REPEAT);
if (override !== undefined && !(Number.isInteger(override) && override >= 1)) {
  process.stderr.write(`DEN_BENCH_REPEAT must be a whole number of runs, at least 1 (got ${JSON.stringify(process.env.DEN_BENCH_REPEAT)})\n`);
  process.exit(2);
}

const outcomes: BenchOutcome[] = [];
const startedAll = Date.now();
process.stdout.write(`# Den benchmarks\n\nnode ${process.version}, ${new Date().toISOString()}; figures that varied between a bench's runs are min / median / max.\n`);
for (const file of files) {
  const name = file.replace('.bench.ts', '');
  const started = Date.now();
  let runs = 0;
  try {
    const mod = (await import(new URL(file, import.meta.url).href)) as { run: () => Promise<string>; repetitions?: number };
    const times = override ?? mod.repetitions ?? DEFAULT_REPETITIONS;
    const outputs: string[] = [];
    for (let i = 0; i < times; i++) {
      outputs.push(await mod.run());
      runs++;
    }
    process.stdout.write(`\n## ${name} (${times} runs, ${((Date.now() - started) / 1000).toFixed(1)} s)\n\n${mergeRuns(outputs)}\n`);
    outcomes.push({ name, runs, seconds: (Date.now() - started) / 1000 });
  } catch (err) {
    process.stdout.write(`\n## ${name}\n\nfailed: ${(err as Error).stack ?? err}\n`);
    outcomes.push({ name, runs, seconds: (Date.now() - started) / 1000, error: (err as Error).message ?? String(err) });
  }
}
process.stdout.write(`\n## Summary\n\n${summaryTable(outcomes, (Date.now() - startedAll) / 1000)}\n`);
process.exitCode = outcomes.some((o) => o.error !== undefined) ? 1 : 0;
