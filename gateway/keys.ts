// Public-key matching for SSH authentication (SPEC 1.5 step 3): the offered key must equal
// one authorized entry after parsing, compared by key type and wire-format blob in
// constant time, and its signature must verify.
import { timingSafeEqual } from 'node:crypto';
import ssh2, { type ParsedKey } from 'ssh2';

/** What the client offered: the key type and its SSH wire-format blob. */
export interface OfferedKey {
  algo: string;
  data: Buffer;
}

export interface AuthorizedKey {
  type: string;
  blob: Buffer;
  parsed: ParsedKey;
}

/** Parses one `spec.sshAuthorizedKeys` entry; undefined when it is not a usable public key. */
export function parseAuthorizedKey(entry: unknown): AuthorizedKey | undefined {
  if (typeof entry !== 'string' || entry.length > 16_384) return undefined;
  const parsed = ssh2.utils.parseKey(entry.trim());
  if (parsed instanceof Error) return undefined;
  const key = Array.isArray(parsed) ? (parsed[0] as ParsedKey | undefined) : parsed;
  if (!key || key.isPrivateKey()) return undefined;
  return { type: key.type, blob: key.getPublicSSH(), parsed: key };
}

function sameBlob(a: Buffer, b: Buffer): boolean {
  // Lengths are part of the public key type, not a secret; only equal-length blobs are compared.
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The authorized entry equal to the offered key, if any. Every entry is compared (no early
 * return), so the time taken does not say which entry matched.
 */
export function findAuthorizedKey(offered: OfferedKey, entries: readonly unknown[] | undefined): AuthorizedKey | undefined {
  let match: AuthorizedKey | undefined;
  for (const entry of entries ?? []) {
    const key = parseAuthorizedKey(entry);
    if (!key) continue;
    const equal = sameBlob(key.blob, offered.data) && key.type === offered.algo;
    if (equal && !match) match = key;
  }
  return match;
}

/** True when `signature` over `blob` verifies with the authorized key. */
export function signatureVerifies(key: AuthorizedKey, blob: Buffer, signature: Buffer, hashAlgo?: string): boolean {
  // ssh2 returns an Error (rather than false) for a malformed signature: both mean "no".
  return key.parsed.verify(blob, signature, hashAlgo) === true;
}
