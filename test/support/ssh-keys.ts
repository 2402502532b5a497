// SSH keys for tests, made by Node's own key generation and written in OpenSSH's wire format
// (RFC 4253 §6.6, RFC 5656 §3.1, RFC 8709 §4). Not ssh2's generator: it drops leading zero
// bytes of about one ed25519 key in 230, writing blobs that neither Den nor OpenSSH read.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { isEd25519Point } from '../../ssh/authorized-keys.js';

export type SshKeyType = 'ed25519' | 'rsa' | 'ecdsa';

export interface SshKeyOptions {
  /** RSA modulus length (default 2048) or ECDSA curve size 256, 384 or 521 (default 256). */
  bits?: number;
  comment?: string;
}

export interface SshKey {
  /** `type base64 [comment]`, one authorized_keys line. */
  publicLine: string;
  privateKey: KeyObject;
}

export function sshString(value: Buffer | string): Buffer {
  const body = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
}

/** An authorized-keys line whose blob is the given SSH strings. */
export function keyLine(type: string, fields: (Buffer | string)[], comment = ''): string {
  const blob = Buffer.concat(fields.map(sshString));
  return `${type} ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`;
}

/** The SSH strings of a key line's blob. */
export function blobFields(line: string): Buffer[] {
  const blob = Buffer.from(line.split(' ')[1]!, 'base64');
  const out: Buffer[] = [];
  for (let pos = 0; pos < blob.length; ) {
    const len = blob.readUInt32BE(pos);
    out.push(blob.subarray(pos + 4, pos + 4 + len));
    pos += 4 + len;
  }
  return out;
}

/** An unsigned big-endian integer as an SSH mpint: no leading zeros, one added when the top bit is set. */
function mpint(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return trimmed.length > 0 && trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
}

/** A curve coordinate at the curve's full width: SEC 1 points keep their leading zeros. */
function coordinate(b64url: string, width: number): Buffer {
  const raw = Buffer.from(b64url, 'base64url');
  return Buffer.concat([Buffer.alloc(width - raw.length), raw]);
}

const CURVES: Record<number, { nodeName: string; sshName: string }> = {
  256: { nodeName: 'P-256', sshName: 'nistp256' },
  384: { nodeName: 'P-384', sshName: 'nistp384' },
  521: { nodeName: 'P-521', sshName: 'nistp521' },
};

/** The authorized_keys line of a Node public key (ed25519, RSA or a NIST-curve ECDSA key). */
export function openSshPublicLine(publicKey: KeyObject, comment = ''): string {
  const jwk = publicKey.export({ format: 'jwk' });
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return keyLine('ssh-ed25519', ['ssh-ed25519', Buffer.from(jwk.x!, 'base64url')], comment);
  if (jwk.kty === 'RSA') return keyLine('ssh-rsa', ['ssh-rsa', mpint(Buffer.from(jwk.e!, 'base64url')), mpint(Buffer.from(jwk.n!, 'base64url'))], comment);
  const bits = Object.keys(CURVES).map(Number).find((b) => CURVES[b]!.nodeName === jwk.crv);
  if (jwk.kty === 'EC' && bits !== undefined) {
    const width = Math.ceil(bits / 8);
    const point = Buffer.concat([Buffer.from([4]), coordinate(jwk.x!, width), coordinate(jwk.y!, width)]);
    const type = `ecdsa-sha2-${CURVES[bits]!.sshName}`;
    return keyLine(type, [type, CURVES[bits]!.sshName, point], comment);
  }
  throw new Error(`no OpenSSH encoding for a ${jwk.kty} ${jwk.crv ?? ''} key`);
}

export function generateSshKey(type: SshKeyType, options: SshKeyOptions = {}): SshKey {
  const { publicKey, privateKey } = generate(type, options.bits);
  return { publicLine: openSshPublicLine(publicKey, options.comment), privateKey };
}

function generate(type: SshKeyType, bits: number | undefined): { publicKey: KeyObject; privateKey: KeyObject } {
  if (type === 'ed25519') return generateKeyPairSync('ed25519');
  if (type === 'rsa') return generateKeyPairSync('rsa', { modulusLength: bits ?? 2048 });
  const curve = CURVES[bits ?? 256];
  if (!curve) throw new Error(`ECDSA keys are 256, 384 or 521 bits, not ${bits}`);
  return generateKeyPairSync('ec', { namedCurve: curve.nodeName });
}

// Keys broken on purpose, for the tests of what refuses them.

/** The key line with the last `bytes` bytes of its blob cut off. */
export function truncatedKey(line: string, bytes: number): string {
  const [type, b64] = line.split(' ');
  const blob = Buffer.from(b64!, 'base64');
  return `${type} ${blob.subarray(0, blob.length - bytes).toString('base64')}`;
}

/** Flips the bits of one byte of the `field`-th SSH string of the blob (negative index from its end). */
export function withFlippedByte(line: string, field: number, index: number): string {
  const type = line.split(' ')[0]!;
  const fields = blobFields(line).map((f) => Buffer.from(f));
  const target = fields[field]!;
  const at = index < 0 ? target.length + index : index;
  target[at] = target[at]! ^ (index < 0 ? 0x01 : 0xff);
  return keyLine(type, fields);
}

/** About half of all y values have no x on the curve; the first such small y is a non-point encoding. */
export function notAnEd25519Point(): Buffer {
  for (let y = 2; y < 100; y++) {
    const bytes = Buffer.alloc(32);
    bytes[0] = y;
    if (!isEd25519Point(bytes)) return bytes;
  }
  throw new Error('no invalid encoding found among small y values');
}
