// Public-key matching for SSH authentication (SPEC 1.5 step 3): the offered key must equal
// one authorized entry after parsing, compared by key type and wire-format blob in
// constant time, and its signature must verify. ssh2 parses and verifies the plain types;
// FIDO security keys (sk-) are parsed and verified by sk-keys.ts.
import { timingSafeEqual } from 'node:crypto';
import ssh2, { type ParsedKey } from 'ssh2';
import { parseSecurityKeyLine, verifySecurityKeySignature, type SecurityKey } from './sk-keys.js';

/** What the client offered: the key type and its SSH wire-format blob. */
export interface OfferedKey {
  algo: string;
  data: Buffer;
}

export interface AuthorizedKey {
  type: string;
  blob: Buffer;
  /** Why `signature` over `signedData` does not prove possession of this key; undefined when it does. */
  signatureProblem(signedData: Buffer, signature: Buffer, hashAlgo?: string): string | undefined;
}

function plainKey(key: ParsedKey): AuthorizedKey {
  return {
    type: key.type,
    blob: key.getPublicSSH(),
    // ssh2 returns an Error (rather than false) for a malformed signature: both mean "no".
    signatureProblem: (signedData, signature, hashAlgo) => (key.verify(signedData, signature, hashAlgo) === true ? undefined : 'signature does not verify'),
  };
}

function securityKey(key: SecurityKey, blob: Buffer): AuthorizedKey {
  return {
    type: key.type,
    blob,
    signatureProblem: (signedData, signature) => {
      const verdict = verifySecurityKeySignature(key, signedData, signature);
      return verdict.ok ? undefined : verdict.reason;
    },
  };
}

/** Parses one `spec.sshAuthorizedKeys` entry; undefined when it is not a usable public key. */
export function parseAuthorizedKey(entry: unknown): AuthorizedKey | undefined {
  if (typeof entry !== 'string' || entry.length > 16_384) return undefined;
  if (entry.trimStart().startsWith('sk-')) {
    const sk = parseSecurityKeyLine(entry);
    return sk && securityKey(sk.key, sk.blob);
  }
  const parsed = ssh2.utils.parseKey(entry.trim());
  if (parsed instanceof Error) return undefined;
  const key = Array.isArray(parsed) ? (parsed[0] as ParsedKey | undefined) : parsed;
  if (!key || key.isPrivateKey()) return undefined;
  return plainKey(key);
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
