// MaxStartups start:rate:full and PerSourceMaxStartups as sshd reads and applies them.
import { expect } from 'chai';
import { dropsEarly, parseMaxStartups, parsePerSourceStartups, StartupCounts, DEFAULT_PRE_AUTH_LIMITS } from '../../gateway/pre-auth.js';

/** The 100 values arc4random_uniform(100) can take, once each, as fractions in [0, 1). */
function everyDraw(): () => number {
  let i = 0;
  return () => (i++ % 100) / 100;
}

describe('MaxStartups random early drop', () => {
  const sshd = { start: 10, rate: 30, full: 100 };

  it('defaults to random early drop from 100 pending to 300 and no per-source cap', () => {
    expect(DEFAULT_PRE_AUTH_LIMITS.maxStartups).to.deep.equal({ start: 100, rate: 30, full: 300 });
    expect(DEFAULT_PRE_AUTH_LIMITS.maxStartupsPerSource).to.equal(undefined);
  });

  // Refused of 100 new connections, one for each draw, while `pending` others wait.
  const table: [pending: number, refusedPercent: number][] = [
    [0, 0],
    [9, 0],
    [10, 30],
    [19, 37], // 30 + 70·9/90
    [55, 65],
    [99, 99],
    [100, 100],
    [500, 100],
  ];
  for (const [pending, refusedPercent] of table) {
    it(`refuses ${refusedPercent} of 100 new connections while ${pending} are unauthenticated`, () => {
      const random = everyDraw();
      let refused = 0;
      for (let i = 0; i < 100; i++) if (dropsEarly(pending, sshd, random)) refused += 1;
      expect(refused).to.equal(refusedPercent);
    });
  }

  it('as a hard cap (one number) takes every connection below it and none at it', () => {
    const cap = parseMaxStartups('3');
    expect(cap).to.deep.equal({ start: 3, rate: 100, full: 3 });
    expect([0, 1, 2, 3].map((pending) => dropsEarly(pending, cap, () => 0.999))).to.deep.equal([false, false, false, true]);
  });

  it('admits 20 connections from one address at once under the defaults whatever the draws, and under sshd\'s 10:30:100 drops past 10 when the draws say so', () => {
    const defaults = new StartupCounts(DEFAULT_PRE_AUTH_LIMITS, () => 0);
    expect(Array.from({ length: 20 }, () => defaults.take('192.0.2.1')).every((d) => d === 'admitted')).to.equal(true);
    const sshdDefaults = new StartupCounts({ ...DEFAULT_PRE_AUTH_LIMITS, maxStartups: sshd }, () => 0);
    const decisions = Array.from({ length: 20 }, () => sshdDefaults.take('192.0.2.1'));
    expect(decisions.filter((d) => d === 'admitted')).to.have.length(10);
    expect(decisions.slice(10)).to.deep.equal(Array(10).fill('dropped early'));
  });

  it('counts each address on its own under a configured per-source cap, and frees a slot given back', () => {
    const counts = new StartupCounts({ maxStartups: { start: 100, rate: 100, full: 100 }, maxStartupsPerSource: 2 }, () => 0);
    expect([counts.take('a'), counts.take('a'), counts.take('a'), counts.take('b')]).to.deep.equal(['admitted', 'admitted', 'per-source cap reached', 'admitted']);
    counts.give('a');
    expect(counts.take('a')).to.equal('admitted');
    expect(counts.size).to.equal(3);
  });

  it('reads the settings as sshd writes them and says what is wrong otherwise', () => {
    expect(parseMaxStartups('10:30:100')).to.deep.equal(sshd);
    expect(parsePerSourceStartups('none')).to.equal(undefined);
    expect(parsePerSourceStartups('10')).to.equal(10);
    expect(() => parseMaxStartups('10:30')).to.throw("expected start:rate:full such as 10:30:100, or one number, got '10:30'");
    expect(() => parseMaxStartups('100:30:10')).to.throw("start must not exceed full, got '100:30:10'");
    expect(() => parseMaxStartups('10:101:100')).to.throw("expected a whole number from 1 to 100, got '10:101:100'");
    expect(() => parseMaxStartups('0')).to.throw("expected a whole number from 1 to 1000000, got '0'");
    expect(() => parsePerSourceStartups('ten')).to.throw("expected none or a whole number from 1 to 1000000, got 'ten'");
  });
});
