import { expect } from 'chai';
import { RateLimiter, reserveToken } from '../../process/rate-limit.js';

describe('rate limits', () => {
  const limit = { perSecond: 10, burst: 2 };
  it('serves the burst at once, then spaces tokens by the rate', () => {
    let r = reserveToken(undefined, 0, limit);
    expect(r.waitMs).to.equal(0);
    r = reserveToken(r.bucket, 0, limit);
    expect(r.waitMs).to.equal(0);
    r = reserveToken(r.bucket, 0, limit);
    expect(r.waitMs).to.equal(100);
    r = reserveToken(r.bucket, 0, limit);
    expect(r.waitMs).to.equal(200);
  });

  it('refills with time, up to the burst', () => {
    let r = reserveToken({ tokens: -1, at: 0 }, 10_000, limit);
    expect(r.waitMs).to.equal(0);
    expect(r.bucket.tokens).to.equal(1);
    r = reserveToken({ tokens: 0, at: 0 }, 50, limit);
    expect(r.waitMs).to.equal(50);
  });

  it('makes callers beyond the burst wait for their token, and says how many wait', async () => {
    const limiter = new RateLimiter({ perSecond: 20, burst: 2 });
    const started = performance.now();
    const done: number[] = [];
    const takes = Array.from({ length: 4 }, () => limiter.take().then(() => done.push(performance.now() - started)));
    await new Promise((r) => setImmediate(r));
    expect(limiter.queued).to.equal(2);
    await Promise.all(takes);
    expect(done[3]!).to.be.at.least(95);
    expect(limiter.queued).to.equal(0);
  });

  it('refuses a limit that could never let anything through', () => {
    expect(() => new RateLimiter({ perSecond: 0, burst: 1 })).to.throw('a rate limit needs a positive rate and a burst of at least 1 (got 0/s, burst 1)');
    expect(() => new RateLimiter({ perSecond: 5, burst: 0 })).to.throw('burst of at least 1');
  });
});
