// `npm run bench`: runs every test/bench/*.bench.ts in turn and prints its Markdown table.
// Each bench measures ratios side by side in one run; none asserts a time.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

let failed = 0;
process.stdout.write(`# Den benchmarks\n\nnode ${process.version}, ${new Date().toISOString()}\n`);
for (const file of files) {
  const started = Date.now();
  try {
    const mod = (await import(new URL(file, import.meta.url).href)) as { run: () => Promise<string> };
    const table = await mod.run();
    process.stdout.write(`\n## ${file.replace('.bench.ts', '')} (${((Date.now() - started) / 1000).toFixed(1)} s)\n\n${table.trim()}\n`);
  } catch (err) {
    failed++;
    process.stdout.write(`\n## ${file.replace('.bench.ts', '')}\n\nfailed: ${(err as Error).stack ?? err}\n`);
  }
}
process.exitCode = failed ? 1 : 0;
