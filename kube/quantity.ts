// Exact Kubernetes resource quantities ("500m", "1.5Gi", "2e3"): parsing, comparison,
// addition and printing, without floating point so that quota sums never drift. The one
// grammar of a quantity in Den: the CRDs' pattern, the REST schemas, the install settings and
// the hooks all read it from here.

/** A quantity as the exact rational `num / den`, with `den` a power of ten. */
export interface Quantity {
  readonly num: bigint;
  readonly den: bigint;
  /** How the quantity was written, so sums print in the same family of suffixes. */
  readonly format: 'BinarySI' | 'DecimalSI' | 'DecimalExponent';
}

const BINARY_SUFFIXES: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};

/** Decimal suffixes as powers of ten. */
const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

/**
 * The grammar of k8s.io/apimachinery/pkg/api/resource: a signed decimal number, then a
 * binary suffix, a decimal suffix or a decimal exponent ("e" or "E" followed by an integer).
 * Written for both JavaScript and Go's RE2, as the CRDs' `pattern` it also is.
 */
const quantityPattern = (sign: string) => `^(${sign})([0-9]+\\.?[0-9]*|\\.[0-9]+)(?:(Ki|Mi|Gi|Ti|Pi|Ei)|([eE][+-]?[0-9]+)|(n|u|m|k|M|G|T|P|E)?)$`;
export const QUANTITY_PATTERN = quantityPattern('[+-]?');
/** The same grammar without a minus sign: an amount a person asks for. */
export const NON_NEGATIVE_QUANTITY_PATTERN = quantityPattern('\\+?');
const NON_NEGATIVE = new RegExp(NON_NEGATIVE_QUANTITY_PATTERN);
const QUANTITY = new RegExp(QUANTITY_PATTERN);

/** Longest quantity string accepted; the API server refuses far shorter ones in practice. */
const MAX_LENGTH = 64;

export class QuantityError extends Error {
  override readonly name = 'QuantityError';
}

function pow10(exp: number): bigint {
  return 10n ** BigInt(exp);
}

/** Parses a quantity written as a string (or a JSON number, as int-or-string fields allow). */
export function parseQuantity(input: string | number): Quantity {
  const text = typeof input === 'number' ? numberText(input) : input;
  if (typeof text !== 'string' || text.length === 0) throw new QuantityError('a quantity must be a non-empty string');
  if (text.length > MAX_LENGTH) throw new QuantityError(`quantity is longer than ${MAX_LENGTH} characters`);
  const m = QUANTITY.exec(text);
  if (!m) throw new QuantityError(`"${text}" is not a quantity (examples: 500m, 2, 1.5Gi, 10G, 1e3)`);
  const [, sign, number, binary, exponent, decimal] = m;
  const [whole, fraction = ''] = number!.split('.');
  let num = BigInt((whole || '0') + fraction) * (sign === '-' ? -1n : 1n);
  let den = pow10(fraction.length);
  let format: Quantity['format'] = 'DecimalSI';
  if (binary) {
    num *= BINARY_SUFFIXES[binary]!;
    format = 'BinarySI';
  } else {
    const exp = exponent ? Number(exponent.slice(1)) : DECIMAL_SUFFIXES[decimal ?? '']!;
    if (exponent) format = 'DecimalExponent';
    if (Math.abs(exp) > 40) throw new QuantityError(`"${text}": exponent out of range`);
    if (exp >= 0) num *= pow10(exp);
    else den *= pow10(-exp);
  }
  return normalize({ num, den, format });
}

function numberText(n: number): string {
  if (!Number.isFinite(n)) throw new QuantityError('a quantity must be a finite number');
  return String(n).replace('e+', 'e');
}

/** Parses, answering undefined instead of throwing (for optional fields checked elsewhere). */
export function tryParseQuantity(input: unknown): Quantity | undefined {
  if (typeof input !== 'string' && typeof input !== 'number') return undefined;
  try {
    return parseQuantity(input);
  } catch (err) {
    if (err instanceof QuantityError) return undefined;
    throw err;
  }
}

function normalize(q: Quantity): Quantity {
  let { num, den } = q;
  while (den > 1n && num % 10n === 0n) {
    num /= 10n;
    den /= 10n;
  }
  return { num, den, format: q.format };
}

export const ZERO: Quantity = { num: 0n, den: 1n, format: 'DecimalSI' };

/** -1, 0 or 1 as `a` is below, equal to or above `b`. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** The sum, printed in the family of suffixes of the first operand that is not zero. */
export function addQuantities(...qs: Quantity[]): Quantity {
  let num = 0n;
  let den = 1n;
  let format: Quantity['format'] | undefined;
  for (const q of qs) {
    const common = den > q.den ? den : q.den;
    num = num * (common / den) + q.num * (common / q.den);
    den = common;
    if (!format && q.num !== 0n) format = q.format;
  }
  return normalize({ num, den, format: format ?? 'DecimalSI' });
}

export function subtractQuantities(a: Quantity, b: Quantity): Quantity {
  return addQuantities(a, { ...b, num: -b.num });
}

export function isNegative(q: Quantity): boolean {
  return q.num < 0n;
}

/**
 * Whether `input` is a quantity of zero or more written without a minus sign ("-0" neither),
 * what every amount a person asks for must be: a string, or a JSON number as int-or-string
 * fields allow.
 */
export function isNonNegativeQuantity(input: unknown): boolean {
  if (typeof input === 'number') return Number.isFinite(input) && isNonNegativeQuantity(numberText(input));
  return typeof input === 'string' && NON_NEGATIVE.test(input) && tryParseQuantity(input) !== undefined;
}

/** A whole number of units (GPUs, workspaces) as a quantity. */
export function countQuantity(n: number | bigint): Quantity {
  return { num: BigInt(n), den: 1n, format: 'DecimalSI' };
}

/**
 * Prints a quantity the way Kubernetes would: the largest suffix of its family that keeps
 * it an integer ("1536Mi", "1500m", "2G"), else a plain decimal.
 */
export function formatQuantity(q: Quantity): string {
  const sign = q.num < 0n ? '-' : '';
  const num = q.num < 0n ? -q.num : q.num;
  if (num === 0n) return '0';
  if (q.format === 'BinarySI' && q.den === 1n) {
    for (const suffix of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki']) {
      const unit = BINARY_SUFFIXES[suffix]!;
      if (num % unit === 0n) return `${sign}${num / unit}${suffix}`;
    }
    return `${sign}${num}`;
  }
  const scaled = (exp: number): bigint | undefined => {
    const n = exp >= 0 ? num : num * pow10(-exp);
    const d = exp >= 0 ? q.den * pow10(exp) : q.den;
    return n % d === 0n ? n / d : undefined;
  };
  for (const suffix of ['E', 'P', 'T', 'G', 'M', 'k', '', 'm', 'u', 'n']) {
    const value = scaled(DECIMAL_SUFFIXES[suffix]!);
    if (value !== undefined) return `${sign}${value}${suffix}`;
  }
  const digits = num.toString().padStart(q.den.toString().length, '0');
  const point = digits.length - (q.den.toString().length - 1);
  return `${sign}${digits.slice(0, point) || '0'}.${digits.slice(point)}`;
}
