// `npm run bench`: runs every test/bench/*.bench.ts in turn, each several times (its exported
// `repetitions`, else DEFAULT_REPETITIONS; DEN_BENCH_REPEAT overrides both), and prints its
// Markdown table once with every figure that varied as `min / median / max` over the runs.
// Each bench measures ratios side by side within a run; none asserts a time.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_REPETITIONS, mergeRuns } from './stats.js';

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

let failed = 0;
process.stdout.write(`# Den benchmarks\n\nnode ${process.version}, ${new Date().toISOString()}; figures that varied between a bench's runs are min / median / max.\n`);
for (const file of files) {
  const name = file.replace('.bench.ts', '');
  const started = Date.now();
  try {
    const mod = (await import(new URL(file, import.meta.url).href)) as { run: () => Promise<string>; repetitions?: number };
    const times = override ?? mod.repetitions ?? DEFAULT_REPETITIONS;
    const outputs: string[] = [];
    for (let i = 0; i < times; i++) outputs.push(await mod.run());
    process.stdout.write(`\n## ${name} (${times} runs, ${((Date.now() - started) / 1000).toFixed(1)} s)\n\n${mergeRuns(outputs)}\n`);
  } catch (err) {
    failed++;
    process.stdout.write(`\n## ${name}\n\nfailed: ${(err as Error).stack ?? err}\n`);
  }
}
process.exitCode = failed ? 1 : 0;
