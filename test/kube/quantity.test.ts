import { expect } from 'chai';
import {
  addQuantities,
  compareQuantities,
  formatQuantity,
  parseQuantity,
  QuantityError,
  subtractQuantities,
  tryParseQuantity,
} from '../../kube/quantity.js';

/** The exact value as a fraction string, for comparing without floating point. */
function exact(text: string | number): string {
  const q = parseQuantity(text);
  const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
  const g = gcd(q.num, q.den);
  const [num, den] = [q.num / g, q.den / g];
  return den === 1n ? num.toString() : `${num}/${den}`;
}

describe('Kubernetes quantities', () => {
  const values: [string | number, string][] = [
    ['0', '0'],
    ['1', '1'],
    ['500m', '1/2'],
    ['1500m', '3/2'],
    ['0.5', '1/2'],
    ['.5', '1/2'],
    ['5.', '5'],
    ['+2', '2'],
    ['-2', '-2'],
    ['100n', '1/10000000'],
    ['3u', '3/1000000'],
    ['1k', '1000'],
    ['2M', '2000000'],
    ['1G', '1000000000'],
    ['1T', String(10n ** 12n)],
    ['1P', String(10n ** 15n)],
    ['1E', String(10n ** 18n)],
    ['1Ki', '1024'],
    ['1Mi', String(1n << 20n)],
    ['1.5Gi', String(3n << 29n)],
    ['1Ti', String(1n << 40n)],
    ['1Pi', String(1n << 50n)],
    ['2Ei', String(2n << 60n)],
    ['1e3', '1000'],
    ['1E3', '1000'],
    ['12e-1', '6/5'],
    ['1e+2', '100'],
    [4, '4'],
    [0.25, '1/4'],
  ];
  for (const [text, value] of values) {
    it(`reads ${JSON.stringify(text)} as exactly ${value}`, () => {
      expect(exact(text)).to.equal(value);
    });
  }

  for (const bad of ['', 'abc', '1.2.3', '1Gb', '1 Gi', 'Gi', '1e', '--1', '1ki', '1KI', '0x10', '1e99']) {
    it(`refuses ${JSON.stringify(bad)} with a QuantityError`, () => {
      expect(() => parseQuantity(bad)).to.throw(QuantityError);
      expect(tryParseQuantity(bad)).to.equal(undefined);
    });
  }

  it('answers undefined for values that are not strings or numbers', () => {
    expect(tryParseQuantity(undefined)).to.equal(undefined);
    expect(tryParseQuantity({})).to.equal(undefined);
  });

  it('compares quantities written with different suffixes exactly', () => {
    expect(compareQuantities(parseQuantity('1Gi'), parseQuantity('1024Mi'))).to.equal(0);
    expect(compareQuantities(parseQuantity('1G'), parseQuantity('1Gi'))).to.equal(-1);
    expect(compareQuantities(parseQuantity('1001m'), parseQuantity('1'))).to.equal(1);
    expect(compareQuantities(parseQuantity('0.1'), parseQuantity('100m'))).to.equal(0);
    expect(compareQuantities(parseQuantity('999999999n'), parseQuantity('1'))).to.equal(-1);
  });

  it('adds without the drift floating point would have', () => {
    const tenths = Array.from({ length: 10 }, () => parseQuantity('0.1'));
    expect(compareQuantities(addQuantities(...tenths), parseQuantity('1'))).to.equal(0);
    expect(formatQuantity(addQuantities(parseQuantity('1500m'), parseQuantity('2')))).to.equal('3500m');
    expect(formatQuantity(subtractQuantities(parseQuantity('4Gi'), parseQuantity('512Mi')))).to.equal('3584Mi');
  });

  const printed: [string, string][] = [
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['1.5Gi', '1536Mi'],
    ['1000', '1k'],
    ['1500m', '1500m'],
    ['0.5', '500m'],
    ['2000M', '2G'],
    ['1e3', '1k'],
    ['0', '0'],
    ['-1Ki', '-1Ki'],
    ['100n', '100n'],
  ];
  for (const [text, shown] of printed) {
    it(`prints ${text} as ${shown}`, () => {
      expect(formatQuantity(parseQuantity(text))).to.equal(shown);
    });
  }

  it('prints the sum in the suffix family of its first non-zero operand', () => {
    expect(formatQuantity(addQuantities(parseQuantity('0'), parseQuantity('1Gi'), parseQuantity('1G')))).to.equal(String((1n << 30n) + 10n ** 9n));
    expect(formatQuantity(addQuantities(parseQuantity('512Mi'), parseQuantity('512Mi')))).to.equal('1Gi');
  });
});
