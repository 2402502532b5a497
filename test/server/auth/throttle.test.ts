import { expect } from 'chai';
import { LoginThrottle, type ThrottlePolicy } from '../../../server/auth/throttle.js';

const POLICY: ThrottlePolicy = { freeFailures: 3, baseLockMs: 1000, maxLockMs: 8000, forgetAfterMs: 60_000, maxEntries: 3 };

describe('LoginThrottle', () => {
  it('allows the free attempts, then locks for a window that doubles with each further attempt up to the cap', () => {
    const t = new LoginThrottle(POLICY);
    const now = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(t.retryAfterMs('alice', now)).to.equal(0);
      t.recordAttempt('alice', now);
    }
    expect(t.retryAfterMs('alice', now)).to.equal(1000);
    expect(t.retryAfterMs('alice', now + 1000)).to.equal(0);
    t.recordAttempt('alice', now + 1000);
    expect(t.retryAfterMs('alice', now + 1000)).to.equal(2000);
    t.recordAttempt('alice', now + 3000);
    expect(t.retryAfterMs('alice', now + 3000)).to.equal(4000);
    t.recordAttempt('alice', now + 7000);
    t.recordAttempt('alice', now + 15000);
    expect(t.retryAfterMs('alice', now + 15000)).to.equal(8000);
  });

  it('counts usernames case-insensitively and separately from each other', () => {
    const t = new LoginThrottle(POLICY);
    for (let i = 0; i < 3; i++) t.recordAttempt('Alice', 0);
    expect(t.retryAfterMs(' alice ', 0)).to.equal(1000);
    expect(t.retryAfterMs('bob', 0)).to.equal(0);
  });

  it('starts over after a success', () => {
    const t = new LoginThrottle(POLICY);
    for (let i = 0; i < 3; i++) t.recordAttempt('alice', 0);
    t.recordSuccess('alice');
    expect(t.retryAfterMs('alice', 0)).to.equal(0);
    t.recordAttempt('alice', 0);
    expect(t.retryAfterMs('alice', 0)).to.equal(0);
  });

  it('forgets a username with no attempt for a while', () => {
    const t = new LoginThrottle(POLICY);
    for (let i = 0; i < 5; i++) t.recordAttempt('alice', 0);
    expect(t.retryAfterMs('alice', 60_000)).to.equal(0);
    t.recordAttempt('alice', 60_000);
    expect(t.retryAfterMs('alice', 60_000)).to.equal(0);
  });

  it('keeps at most maxEntries usernames, dropping the oldest', () => {
    const t = new LoginThrottle(POLICY);
    for (const name of ['a', 'b', 'c', 'd']) for (let i = 0; i < 3; i++) t.recordAttempt(name, 0);
    expect(t.retryAfterMs('a', 0)).to.equal(0);
    expect(t.retryAfterMs('d', 0)).to.equal(1000);
  });
});
