// FIDO security keys (OpenSSH's sk- key types, PROTOCOL.u2f), which ssh2 cannot verify itself.
// ssh2's server still hands the request to the 'authentication' event: the key algorithm and
// blob as sent, and the signature field with its leading `string sig-type` and the length of
// the inner signature removed (handlers.misc.js strips 4 + type + 4 bytes when the type matches
// the key's), i.e. `inner-signature || byte flags || uint32 counter`. OpenSSH's own layout
// (`string inner, byte flags, uint32 counter`) arrives in exactly that shape.
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { mpintMagnitude, splitPublicKeyLine, WireReader } from '../ssh/wire.js';

export const SK_ED25519 = 'sk-ssh-ed25519@openssh.com';
export const SK_ECDSA_P256 = 'sk-ecdsa-sha2-nistp256@openssh.com';

/** The user-presence bit of the authenticator flags (touch); sshd refuses a signature without it by default. */
export const USER_PRESENT = 0x01;

const ED25519_KEY_BYTES = 32;
const ED25519_SIG_BYTES = 64;
const P256_COORD_BYTES = 32;
/** flags (1 byte) and counter (uint32) after the inner signature. */
const TRAILER_BYTES = 5;

export interface SecurityKey {
  type: typeof SK_ED25519 | typeof SK_ECDSA_P256;
  /** The FIDO application (relying party) the key was made for, usually `ssh:`. */
  application: Buffer;
  publicKey: KeyObject;
}

export function isSecurityKeyType(type: string): boolean {
  return type === SK_ED25519 || type === SK_ECDSA_P256;
}

const b64url = (b: Buffer): string => b.toString('base64url');

function ed25519Key(point: Buffer): KeyObject | undefined {
  if (point.length !== ED25519_KEY_BYTES) return undefined;
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(point) }, format: 'jwk' });
}

function p256Key(point: Buffer): KeyObject | undefined {
  // Uncompressed SEC1 point, as OpenSSH writes it; OpenSSL refuses a point off the curve.
  if (point.length !== 1 + 2 * P256_COORD_BYTES || point[0] !== 0x04) return undefined;
  const x = point.subarray(1, 1 + P256_COORD_BYTES);
  const y = point.subarray(1 + P256_COORD_BYTES);
  return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64url(x), y: b64url(y) }, format: 'jwk' });
}

/** Parses an sk public key blob; undefined when it is not exactly one of the two sk layouts. */
export function parseSecurityKeyBlob(blob: Buffer): SecurityKey | undefined {
  const r = new WireReader(blob);
  const type = r.string()?.toString('latin1');
  let publicKey: KeyObject | undefined;
  try {
    if (type === SK_ED25519) {
      const point = r.string();
      publicKey = point && ed25519Key(point);
    } else if (type === SK_ECDSA_P256) {
      const curve = r.string()?.toString('latin1');
      const point = r.string();
      publicKey = curve === 'nistp256' && point ? p256Key(point) : undefined;
    }
  } catch (err) {
    // OpenSSL refused the point: the blob is not a key, which the caller treats as "no entry".
    if (!(err instanceof Error)) throw err;
    return undefined;
  }
  const application = r.string();
  if (!publicKey || !application || r.rest().length !== 0) return undefined;
  return { type: type as SecurityKey['type'], application, publicKey };
}

/** Parses one authorized-keys line `<sk type> <base64 blob> [comment]` into a security key. */
export function parseSecurityKeyLine(line: string): { key: SecurityKey; blob: Buffer } | undefined {
  const split = splitPublicKeyLine(line);
  if ('wrong' in split || !isSecurityKeyType(split.type)) return undefined;
  const key = parseSecurityKeyBlob(split.blob);
  if (!key || key.type !== split.type) return undefined;
  return { key, blob: split.blob };
}

/** An SSH mpint as an unsigned big-endian integer of `width` bytes; undefined when negative or too wide. */
function unsignedFixed(mpint: Buffer, width: number): Buffer | undefined {
  const digits = mpintMagnitude(mpint);
  if (!digits || digits.length > width) return undefined;
  const out = Buffer.alloc(width);
  digits.copy(out, width - digits.length);
  return out;
}

interface SecuritySignature {
  /** Ed25519: the 64 raw bytes; ECDSA: r || s, 32 bytes each (IEEE P1363). */
  inner: Buffer;
  flags: number;
  counter: number;
}

function splitSignature(type: SecurityKey['type'], signature: Buffer): SecuritySignature | undefined {
  let inner: Buffer | undefined;
  let trailer: Buffer;
  if (type === SK_ED25519) {
    if (signature.length !== ED25519_SIG_BYTES + TRAILER_BYTES) return undefined;
    inner = signature.subarray(0, ED25519_SIG_BYTES);
    trailer = signature.subarray(ED25519_SIG_BYTES);
  } else {
    const r = new WireReader(signature);
    const rInt = r.string();
    const sInt = r.string();
    trailer = r.rest();
    const rFixed = rInt && unsignedFixed(rInt, P256_COORD_BYTES);
    const sFixed = sInt && unsignedFixed(sInt, P256_COORD_BYTES);
    if (!rFixed || !sFixed || trailer.length !== TRAILER_BYTES) return undefined;
    inner = Buffer.concat([rFixed, sFixed]);
  }
  return { inner, flags: trailer[0]!, counter: trailer.readUInt32BE(1) };
}

/** What the authenticator signed: SHA256(application) || flags || counter || SHA256(message). */
export function securityKeySignedData(application: Buffer, flags: number, counter: number, message: Buffer): Buffer {
  const trailer = Buffer.alloc(TRAILER_BYTES);
  trailer[0] = flags;
  trailer.writeUInt32BE(counter, 1);
  const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();
  return Buffer.concat([sha256(application), trailer, sha256(message)]);
}

export type SecurityKeyVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Verifies an sk signature (in the shape ssh2 hands over, see the top of this file) over the
 * SSH userauth `message`. A signature made without a touch (user-presence flag clear) is
 * refused, as sshd does unless `no-touch-required` is set, which Den does not offer.
 */
export function verifySecurityKeySignature(key: SecurityKey, message: Buffer, signature: Buffer): SecurityKeyVerdict {
  const sig = splitSignature(key.type, signature);
  if (!sig) return { ok: false, reason: 'malformed security key signature' };
  if ((sig.flags & USER_PRESENT) === 0) return { ok: false, reason: 'security key signature without user presence (no touch)' };
  const data = securityKeySignedData(key.application, sig.flags, sig.counter, message);
  const valid =
    key.type === SK_ED25519
      ? verify(null, data, key.publicKey, sig.inner)
      : verify('sha256', data, { key: key.publicKey, dsaEncoding: 'ieee-p1363' }, sig.inner);
  return valid ? { ok: true } : { ok: false, reason: 'signature does not verify' };
}
