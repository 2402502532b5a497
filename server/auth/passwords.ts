// scrypt password hashes with a per-user salt. The encoded form carries its own
// parameters so they can be raised later without invalidating stored hashes.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** 2^15 × 8 × 128 B = 32 MiB and about 0.1 s per hash on one core. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 32768, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

export const PASSWORD_MIN_LENGTH = 8;
/** Bounds the work one request can ask of scrypt. */
export const PASSWORD_MAX_LENGTH = 1024;

/**
 * A hash of a password nobody knows, verified against when the username does not exist
 * so an unknown user costs the same time as a wrong password.
 */
export const DUMMY_PASSWORD_HASH =
  'scrypt$32768$8$1$_dnuzSI5QeaBzDBDSco7Tw$78QOm9gZObU5yf4W8kQivrUbpQ1V92XgPoF8oVbjiXo';

function scrypt(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt$N$r$p$<salt>$<hash>` (base64url). */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await scrypt(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

interface DecodedHash {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

export function decodePasswordHash(encoded: string): DecodedHash | undefined {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0)) return undefined;
  // Refuse parameters that would let a tampered record exhaust memory.
  if (N > 1 << 20 || r > 32 || p > 16) return undefined;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const key = Buffer.from(parts[5]!, 'base64url');
  if (salt.length === 0 || key.length === 0) return undefined;
  return { params: { N, r, p }, salt, key };
}

/** True when `password` matches `encoded`; a malformed hash never matches but costs the same time. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const decoded = decodePasswordHash(encoded);
  const target = decoded ?? decodePasswordHash(DUMMY_PASSWORD_HASH)!;
  const key = await scrypt(password, target.salt, target.params);
  const matches = key.length === target.key.length && timingSafeEqual(key, target.key);
  return decoded !== undefined && matches;
}
