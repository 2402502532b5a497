import { expect } from 'chai';
import { chainRateBound, duration, mergeRuns, spreadOf, summaryTable } from './stats.js';

describe('bench figures over several runs', () => {
  it('bounds a chain of processes by its slowest stage, or by its total CPU over fewer cores than stages', () => {
    expect(chainRateBound([2, 4, 1])).to.equal(250);
    expect(chainRateBound([2, 4, 3], 2)).to.equal(1000 / 4.5);
    expect(chainRateBound([2, 4, 3], 3)).to.equal(250);
    expect(chainRateBound([5], 2)).to.equal(200);
  });

  it('writes a figure that varied as min / median / max, with the decimals its runs used', () => {
    expect(spreadOf(['0.61', '0.79', '0.55'])).to.equal('0.55 / 0.61 / 0.79');
    expect(spreadOf(['17.2', '9.4', '10'])).to.equal('9.4 / 10.0 / 17.2');
    expect(spreadOf(['+0.36', '+0.41', '+0.30'])).to.equal('+0.30 / +0.36 / +0.41');
  });

  it('merges tables cell by cell, keeping labels, sizes and counts that did not vary', () => {
    const runs = [
      ['| measure | value |', '|---|---|', '| exec output (median of 3 × 48 MiB) | 387 MiB/s |', '| ratio gateway / direct | 0.90 |', '| requests | 4038 |'],
      ['| measure | value |', '|---|---|', '| exec output (median of 3 × 48 MiB) | 401 MiB/s |', '| ratio gateway / direct | 0.61 |', '| requests | 4038 |'],
      ['| measure | value |', '|---|---|', '| exec output (median of 3 × 48 MiB) | 350 MiB/s |', '| ratio gateway / direct | 0.79 |', '| requests | 4038 |'],
    ].map((lines) => lines.join('\n'));
    expect(mergeRuns(runs).split('\n')).to.deep.equal([
      '| measure | value |',
      '|---|---|',
      '| exec output (median of 3 × 48 MiB) | 350 / 387 / 401 MiB/s |',
      '| ratio gateway / direct | 0.61 / 0.79 / 0.90 |',
      '| requests | 4038 |',
    ]);
  });

  it('merges figures inside text and takes a line whose words changed from the first run', () => {
    const merged = mergeRuns(['| a | 108 (8.6× faster) |\nfirst note', '| a | 120 (7.9× faster) |\nsecond note', '| a | 99 (9.1× faster) |\nthird note']);
    expect(merged).to.equal('| a | [99 / 108 / 120] ([7.9 / 8.6 / 9.1]× faster) |\nfirst note');
  });

  it('brackets each varied figure of a cell that holds several, and leaves other cells plain', () => {
    const merged = mergeRuns(['| RSS before / after | 218 / 190 MiB | 0.61 |', '| RSS before / after | 220 / 206 MiB | 0.97 |', '| RSS before / after | 219 / 201 MiB | 0.99 |']);
    expect(merged).to.equal('| RSS before / after | [218 / 219 / 220] / [190 / 201 / 206] MiB | 0.61 / 0.97 / 0.99 |');
  });

  it('returns a single run as it was', () => {
    expect(mergeRuns(['| x | 1.5 |\n'])).to.equal('| x | 1.5 |');
  });

  it('ends npm run bench with a row per bench (runs, time, result) and the total time', () => {
    const table = summaryTable(
      [
        { name: 'admission', runs: 3, seconds: 12.34 },
        { name: 'gateway', runs: 1, seconds: 130, error: 'exec | failed\n    at stack' },
      ],
      390,
    );
    expect(table.split('\n')).to.deep.equal([
      '| bench | runs | time | result |',
      '|---|---|---|---|',
      '| admission | 3 | 12.3 s | ok |',
      '| gateway | 1 | 2.2 min | failed: exec \\| failed |',
      '',
      'Total: 6.5 min for 2 benches, 1 failed.',
    ]);
    expect(summaryTable([{ name: 'rest', runs: 3, seconds: 4 }], 4).split('\n').at(-1)).to.equal('Total: 4.0 s for 1 bench.');
    expect(duration(119.94)).to.equal('119.9 s');
  });
});
