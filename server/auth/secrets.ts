// Random secrets, their hashes and constant-time comparison. Nothing here is ever
// logged; callers keep plaintext only as long as one response needs it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_TOKEN_PREFIX = 'svc_';
const API_TOKEN_BYTES = 32;
const API_TOKEN_PATTERN = /^svc_[A-Za-z0-9_-]{43}$/;

/** `bytes` random bytes as base64url (no padding). */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** `bytes` random bytes as lower-case hex, for names that must be DNS labels. */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/**
 * Compares two strings without leaking where they differ. Both sides are hashed first
 * so their lengths do not leak either and `timingSafeEqual` always sees equal lengths.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** A new API token: `svc_` + 32 random bytes, base64url. */
export function newApiToken(): string {
  return API_TOKEN_PREFIX + randomSecret(API_TOKEN_BYTES);
}

/** True when `value` has the shape of a Den API token (says nothing about validity). */
export function looksLikeApiToken(value: string): boolean {
  return API_TOKEN_PATTERN.test(value);
}
