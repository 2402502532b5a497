// Public-key matching for SSH authentication (SPEC 1.5 step 3): the offered key must equal
// one authorized entry that is a key by the webhooks' rule (ssh/authorized-keys.ts), compared
// by key type and wire-format blob in constant time, and its signature must verify. ssh2
// parses and verifies the plain types; FIDO security keys (sk-) are parsed and verified by
// sk-keys.ts.
import { createHash, timingSafeEqual } from 'node:crypto';
import ssh2, { type ParsedKey } from 'ssh2';
import { checkAuthorizedKey } from '../ssh/authorized-keys.js';
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

/** Entries remembered as keys or not, by SHA-256: the rule loads each key into OpenSSL, a millisecond or more that no login attempt pays twice for one entry. */
const VERDICTS_MAX = 4096;
const verdicts = new Map<string, boolean>();

/** Whether an entry is a key the webhooks would admit: one admitted under older rules, or while the webhook was away, is not. */
function isAdmissibleKey(entry: string): boolean {
  const digest = createHash('sha256').update(entry).digest('base64');
  let ok = verdicts.get(digest);
  if (ok === undefined) {
    ok = checkAuthorizedKey(entry).ok;
    if (verdicts.size >= VERDICTS_MAX) verdicts.delete(verdicts.keys().next().value!);
    verdicts.set(digest, ok);
  }
  return ok;
}

/** Parses one `spec.sshAuthorizedKeys` entry; undefined when it is not a usable public key. */
export function parseAuthorizedKey(entry: unknown): AuthorizedKey | undefined {
  if (typeof entry !== 'string' || !isAdmissibleKey(entry)) return undefined;
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

/**
 * Each list of entries parsed once, by the array itself: a cached Workspace's list is the same
 * array at every connection that names it, until a watch event replaces the object, so a name
 * that 1,000 Workspaces share costs 1,000 map reads per attempt instead of 1,000 key parses
 * (about 0.1 ms each). A list fetched afresh is a new array and is parsed anew; a list that is
 * no longer referenced takes its entry with it.
 */
const parsedLists = new WeakMap<readonly unknown[], readonly (AuthorizedKey | undefined)[]>();

function parsedEntries(entries: readonly unknown[]): readonly (AuthorizedKey | undefined)[] {
  let parsed = parsedLists.get(entries);
  if (!parsed) {
    parsed = entries.map(parseAuthorizedKey);
    parsedLists.set(entries, parsed);
  }
  return parsed;
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
  for (const key of entries ? parsedEntries(entries) : []) {
    if (!key) continue;
    const equal = sameBlob(key.blob, offered.data) && key.type === offered.algo;
    if (equal && !match) match = key;
  }
  return match;
}
