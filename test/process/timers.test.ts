import { expect } from 'chai';
import { sleep, untilAborted } from '../../process/timers.js';

describe('process timers', () => {
  it('sleep for a time already past settles on the next turn without a negative-timeout warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const started = Date.now();
      await sleep(-1_795_361_163_772);
      await new Promise((resolve) => setImmediate(resolve));
      expect(Date.now() - started).to.be.lessThan(50);
      expect(warnings).to.not.include('TimeoutNegativeWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('sleep ends early when its signal aborts, and untilAborted settles for a signal aborted before the wait', async () => {
    const stop = new AbortController();
    const started = Date.now();
    setTimeout(() => stop.abort(), 10);
    await sleep(60_000, stop.signal);
    expect(Date.now() - started).to.be.lessThan(1_000);
    await untilAborted(stop.signal);
  });
});
