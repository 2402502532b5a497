import { expect } from 'chai';
import { sleep, untilAborted } from '../../process/timers.js';

describe('process timers', () => {
  it('sleep for a time already past settles on the next turn without a negative-timeout warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const order: string[] = [];
      const slept = sleep(-1_795_361_163_772).then(() => order.push('sleep'));
      const timer = new Promise((resolve) => setTimeout(resolve, 1)).then(() => order.push('a 1 ms timer set after it'));
      await Promise.all([slept, timer]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(order).to.deep.equal(['sleep', 'a 1 ms timer set after it']);
      expect(warnings).to.not.include('TimeoutNegativeWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('sleep ends early when its signal aborts, and untilAborted settles for a signal aborted before the wait', async () => {
    const stop = new AbortController();
    const slept = sleep(60_000, stop.signal).then(() => 'sleep');
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve, 'the next turn'));
    expect(await Promise.race([slept, nextTurn()])).to.equal('the next turn');
    stop.abort();
    expect(await Promise.race([slept, nextTurn()])).to.equal('sleep');
    await untilAborted(stop.signal);
  });
});
