import { expect } from 'chai';
import { AttemptCounter, LoginThrottle, type LoginThrottlePolicy, type ThrottlePolicy } from '../../../server/auth/throttle.js';

const POLICY: ThrottlePolicy = { freeFailures: 3, baseLockMs: 1000, maxLockMs: 8000, forgetAfterMs: 60_000, maxEntries: 3 };
const LOGIN: LoginThrottlePolicy = {
  perUsernameAndAddress: POLICY,
  perAddress: { ...POLICY, freeFailures: 5, maxEntries: 100 },
};
const attacker = (username: string) => ({ username, address: '203.0.113.9' });
const alice = { username: 'alice', address: '198.51.100.7' };

describe('AttemptCounter', () => {
  it('allows the free attempts, then locks for a window that doubles with each further attempt up to the cap', () => {
    const c = new AttemptCounter(POLICY);
    const now = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(c.retryAfterMs('k', now)).to.equal(0);
      c.add('k', now);
    }
    expect(c.retryAfterMs('k', now)).to.equal(1000);
    expect(c.retryAfterMs('k', now + 1000)).to.equal(0);
    c.add('k', now + 1000);
    expect(c.retryAfterMs('k', now + 1000)).to.equal(2000);
    c.add('k', now + 3000);
    expect(c.retryAfterMs('k', now + 3000)).to.equal(4000);
    c.add('k', now + 7000);
    c.add('k', now + 15000);
    expect(c.retryAfterMs('k', now + 15000)).to.equal(8000);
  });

  it('forgets a key with no attempt for a while', () => {
    const c = new AttemptCounter(POLICY);
    for (let i = 0; i < 5; i++) c.add('k', 0);
    expect(c.retryAfterMs('k', 60_000)).to.equal(0);
    c.add('k', 60_000);
    expect(c.retryAfterMs('k', 60_000)).to.equal(0);
  });

  it('keeps at most maxEntries keys, dropping the oldest', () => {
    const c = new AttemptCounter(POLICY);
    for (const key of ['a', 'b', 'c', 'd']) for (let i = 0; i < 3; i++) c.add(key, 0);
    expect(c.retryAfterMs('a', 0)).to.equal(0);
    expect(c.retryAfterMs('d', 0)).to.equal(1000);
  });
});

describe('LoginThrottle', () => {
  it("slows a guesser at alice's username without slowing alice from her own address", () => {
    const t = new LoginThrottle(LOGIN);
    for (let i = 0; i < 3; i++) t.recordAttempt(attacker('alice'), 0);
    expect(t.retryAfterMs(attacker('alice'), 0)).to.equal(1000);
    expect(t.retryAfterMs(alice, 0)).to.equal(0);
  });

  it('counts usernames case-insensitively and separately from each other, per address', () => {
    const t = new LoginThrottle(LOGIN);
    for (let i = 0; i < 3; i++) t.recordAttempt(attacker('Alice'), 0);
    expect(t.retryAfterMs(attacker(' alice '), 0)).to.equal(1000);
    expect(t.retryAfterMs(attacker('bob'), 0)).to.equal(0);
  });

  it('slows an address that sprays usernames, for every username, existing or not', () => {
    const t = new LoginThrottle(LOGIN);
    for (const name of ['a', 'b', 'c', 'd', 'e']) t.recordAttempt(attacker(name), 0);
    for (const name of ['alice', 'no-such-user']) expect(t.retryAfterMs(attacker(name), 0)).to.equal(1000);
    expect(t.retryAfterMs(alice, 0)).to.equal(0);
  });

  it("starts the username over after a success, while the address keeps its failures at others' usernames", () => {
    const t = new LoginThrottle(LOGIN);
    for (const name of ['a', 'b', 'c', 'd']) t.recordAttempt(attacker(name), 0);
    t.recordAttempt(attacker('mallory'), 0);
    t.recordSuccess(attacker('mallory'));
    expect(t.retryAfterMs(attacker('mallory'), 0)).to.equal(0);
    t.recordAttempt(attacker('e'), 0);
    expect(t.retryAfterMs(attacker('f'), 0), 'four failures and one more: the address is locked').to.equal(1000);
  });
});
