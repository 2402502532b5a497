import { expect } from 'chai';
import { mapBounded } from '../../process/concurrency.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('mapBounded', () => {
  it('never runs more than the limit at once, and uses the whole limit', async () => {
    let running = 0;
    let peak = 0;
    await mapBounded(Array.from({ length: 100 }, (_, i) => i), 16, async () => {
      running++;
      peak = Math.max(peak, running);
      await tick();
      running--;
    });
    expect(peak).to.equal(16);
  });

  it('keeps the input order in its results whatever order calls finish in', async () => {
    const out = await mapBounded([30, 10, 20, 0], 4, async (ms, i) => {
      await new Promise((r) => setTimeout(r, ms));
      return `${i}:${ms}`;
    });
    expect(out).to.deep.equal(['0:30', '1:10', '2:20', '3:0']);
  });

  it('rejects with the first failure and starts no further items', async () => {
    const started: number[] = [];
    const run = mapBounded(Array.from({ length: 50 }, (_, i) => i), 2, async (i) => {
      started.push(i);
      await tick();
      if (i === 3) throw new Error('review failed');
      return i;
    });
    let error: unknown;
    await run.catch((err: unknown) => (error = err));
    expect((error as Error).message).to.equal('review failed');
    expect(Math.max(...started)).to.be.lessThan(6);
  });

  it('answers an empty list without calling anything', async () => {
    expect(await mapBounded([], 16, async () => { throw new Error('called'); })).to.deep.equal([]);
  });
});
