// Checks that an authorized-keys entry is a real OpenSSH public key of a type the gateway
// accepts. The blob's fields are read as OpenSSH reads them and the key material is loaded
// into OpenSSL (an Ed25519 point is decoded here, since OpenSSL takes any 32 bytes), so a blob
// with a valid prefix but a corrupt body (bad curve point, short modulus) is refused. ssh2 is
// not used: loading it costs a process 18 MiB (its poly1305 WebAssembly), and the manager and
// the server, which check keys, never speak SSH.
import { createPublicKey } from 'node:crypto';
import { mpintMagnitude, readStrings, splitPublicKeyLine } from './wire.js';

export const ACCEPTED_KEY_TYPES = [
  'ssh-rsa',
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
] as const;

export type AcceptedKeyType = (typeof ACCEPTED_KEY_TYPES)[number];

/** The shortest RSA modulus OpenSSH's sshd accepts (RequiredRSASize). */
export const MIN_RSA_BITS = 1024;
/** An RSA-16384 key is about 2.8 KB of base64; anything far longer is not a key. */
const MAX_KEY_LENGTH = 8192;

export type KeyCheck = { ok: true; type: AcceptedKeyType } | { ok: false; reason: string };

const CURVES: Record<string, { name: string; pointBytes: number }> = {
  nistp256: { name: 'P-256', pointBytes: 32 },
  nistp384: { name: 'P-384', pointBytes: 48 },
  nistp521: { name: 'P-521', pointBytes: 66 },
};

/** Base64 of "openssh-key-v1", how the body of an OpenSSH private key starts without its header line. */
const OPENSSH_PRIVATE_KEY_BODY = 'b3BlbnNzaC1rZXktdjE';

/**
 * The start of what was pasted, quoted for a denial: a type name is short, and a long word
 * is more likely key material, which the message (and the API server's audit log) must not carry.
 */
function echoed(word: string): string {
  return word.length > 40 ? `"${word.slice(0, 12)}..." (${word.length} characters)` : JSON.stringify(word);
}

function isAccepted(type: string): type is AcceptedKeyType {
  return (ACCEPTED_KEY_TYPES as readonly string[]).includes(type);
}

/** Says whether `entry` is one authorized-keys line of an accepted type, and why not. */
export function checkAuthorizedKey(entry: unknown): KeyCheck {
  if (typeof entry !== 'string') return { ok: false, reason: 'must be a string' };
  const line = entry.trim();
  if (line.length === 0) return { ok: false, reason: 'is empty' };
  if (line.length > MAX_KEY_LENGTH) return { ok: false, reason: `is longer than ${MAX_KEY_LENGTH} characters` };
  if (line.includes('PRIVATE KEY') || line.startsWith(OPENSSH_PRIVATE_KEY_BODY)) return { ok: false, reason: 'is a private key; paste the public key (the .pub file) instead' };
  const first = line.split(/\s+/, 1)[0]!;
  if (!isAccepted(first)) {
    if (line.split(/\s+/).some(isAccepted)) return { ok: false, reason: `options before the key type (${echoed(first)}) are not accepted; the entry must start with the key type` };
    return { ok: false, reason: `key type ${echoed(first)} is not accepted (accepted: ${ACCEPTED_KEY_TYPES.join(', ')})` };
  }
  const split = splitPublicKeyLine(line);
  if ('wrong' in split) return { ok: false, reason: split.wrong === 'shape' ? 'must be one line "<type> <base64 key> [comment]"' : 'the key is not valid base64' };
  const type = first;
  const { blob } = split;
  const fields = readStrings(blob);
  if (!fields || fields.length === 0) return { ok: false, reason: 'the key blob is corrupt' };
  if (fields[0]!.toString('latin1') !== type) return { ok: false, reason: `the key blob is not a ${type} key` };
  const problem = type.startsWith('sk-') ? checkSecurityKey(type, fields) : checkPlainKey(type, fields);
  return problem ? { ok: false, reason: problem } : { ok: true, type };
}

function checkPlainKey(type: string, fields: Buffer[]): string | undefined {
  const expected = type === 'ssh-ed25519' ? 2 : 3;
  if (fields.length !== expected) return 'the key blob is corrupt';
  if (type.startsWith('ecdsa-sha2-')) {
    const curve = fields[1]!.toString('latin1');
    if (curve !== type.slice('ecdsa-sha2-'.length)) return 'the key blob names a different curve than its type';
    return isEcPoint(curve, fields[2]!) ? undefined : 'the key blob is corrupt (not a point on the curve)';
  }
  if (type === 'ssh-ed25519') return isEd25519Point(fields[1]!) ? undefined : 'the key blob is corrupt (not a point on the curve)';
  const [exponent, modulus] = [fields[1]!, fields[2]!];
  const [e, n] = [mpintMagnitude(exponent), mpintMagnitude(modulus)];
  if (!e || !n || exponent.length === 0 || modulus.length === 0) return 'the key blob is corrupt';
  if (!(isOdd(exponent) && isOdd(modulus))) return 'the key blob is corrupt (an RSA exponent and modulus are odd)';
  try {
    const material = createPublicKey({ key: { kty: 'RSA', e: e.toString('base64url'), n: n.toString('base64url') }, format: 'jwk' });
    const bits = material.asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < MIN_RSA_BITS) return `the RSA key has ${bits} bits; at least ${MIN_RSA_BITS} are required`;
  } catch {
    // OpenSSL's own wording ("decode error") says nothing to a person; this does.
    return 'the key blob is corrupt (the key does not load)';
  }
  return undefined;
}

// sk- keys (FIDO security keys) are outside ssh2's parser: the blob is the type, the
// public key (with the curve name first for ECDSA), and the FIDO application string.
function checkSecurityKey(type: string, fields: Buffer[]): string | undefined {
  if (type === 'sk-ssh-ed25519@openssh.com') {
    if (fields.length !== 3 || !isEd25519Point(fields[1]!)) return 'the key blob is corrupt (not a point on the curve)';
  } else {
    if (fields.length !== 4 || fields[1]!.toString('latin1') !== 'nistp256') return 'the key blob is corrupt';
    if (!isEcPoint('nistp256', fields[2]!)) return 'the key blob is corrupt (not a point on the curve)';
  }
  const application = fields[fields.length - 1]!.toString('utf8');
  if (!application.startsWith('ssh:')) return 'the security key application must start with "ssh:"';
  return undefined;
}

/** Whether `point` is an uncompressed point on the curve, as OpenSSL loads it. */
function isEcPoint(curve: string, point: Buffer): boolean {
  const spec = CURVES[curve]!;
  if (point.length !== 1 + 2 * spec.pointBytes || point[0] !== 0x04) return false;
  const x = point.subarray(1, 1 + spec.pointBytes).toString('base64url');
  const y = point.subarray(1 + spec.pointBytes).toString('base64url');
  try {
    createPublicKey({ key: { kty: 'EC', crv: spec.name, x, y }, format: 'jwk' });
    return true;
  } catch {
    return false;
  }
}

function isOdd(mpint: Buffer): boolean {
  return mpint.length > 0 && (mpint[mpint.length - 1]! & 1) === 1;
}

// OpenSSL accepts any 32 bytes as an Ed25519 public key; about half of them are not points
// on the curve, so decode the point (RFC 8032 section 5.1.3) to catch a corrupted key.
const ED_P = (1n << 255n) - 19n;
const ED_D = mod(-121665n * modPow(121666n, ED_P - 2n, ED_P), ED_P);
const ED_SQRT_M1 = modPow(2n, (ED_P - 1n) / 4n, ED_P);

function mod(a: bigint, m: bigint): bigint {
  const r = a % m;
  return r < 0n ? r + m : r;
}

function modPow(base: bigint, exp: bigint, m: bigint): bigint {
  let result = 1n;
  let b = mod(base, m);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return result;
}

export function isEd25519Point(bytes: Buffer): boolean {
  if (bytes.length !== 32) return false;
  const le = Buffer.from(bytes).reverse();
  const sign = (le[0]! & 0x80) !== 0;
  le[0]! &= 0x7f;
  const y = BigInt('0x' + le.toString('hex'));
  if (y >= ED_P) return false;
  const y2 = (y * y) % ED_P;
  const u = mod(y2 - 1n, ED_P);
  const v = mod(ED_D * y2 + 1n, ED_P);
  const v3 = modPow(v, 3n, ED_P);
  let x = (u * v3 * modPow(u * v3 * v3 * v, (ED_P - 5n) / 8n, ED_P)) % ED_P;
  const vx2 = (v * x * x) % ED_P;
  if (vx2 !== u) {
    if (vx2 !== mod(-u, ED_P)) return false;
    x = (x * ED_SQRT_M1) % ED_P;
  }
  return !(x === 0n && sign);
}
