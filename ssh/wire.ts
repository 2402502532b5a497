// SSH's wire encoding (RFC 4251 section 5): the `string` and `uint32` every key blob is made
// of, and the one-line form of a public key `<type> <base64 blob> [comment]` that
// authorized_keys and .pub files hold. Read by the authorized-keys check, the gateway's
// security-key verification and the host key generator alike.

/**
 * `<type> <base64 blob> [comment]` as a pattern's source, for the given key types or any, white
 * space around it allowed (a line is read trimmed); group 1 is the type, group 2 the blob.
 */
export function publicKeyLineSource(types?: readonly string[]): string {
  const type = types ? types.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|') : '\\S+';
  return `^\\s*(${type}) ([A-Za-z0-9+/]+={0,2})(?: [^\\r\\n]*)?\\s*$`;
}

/** A public key line of any type, after trimming. */
export const PUBLIC_KEY_LINE = new RegExp(publicKeyLineSource());

/** A public key line's type and decoded blob, or what keeps it from being one: not one line of that form, or a blob that is not canonical base64. */
export function splitPublicKeyLine(line: string): { type: string; blob: Buffer } | { wrong: 'shape' | 'base64' } {
  const m = PUBLIC_KEY_LINE.exec(line.trim());
  if (!m) return { wrong: 'shape' };
  const blob = Buffer.from(m[2]!, 'base64');
  if (blob.toString('base64').replace(/=+$/, '') !== m[2]!.replace(/=+$/, '')) return { wrong: 'base64' };
  return { type: m[1]!, blob };
}

export function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** An SSH `string`: its length as uint32, then its bytes. */
export function sshString(data: Buffer | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([uint32(body.length), body]);
}

/** Reads SSH `string`s one after another; every read returns undefined past the end. */
export class WireReader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}

  string(): Buffer | undefined {
    if (this.pos + 4 > this.buf.length) return undefined;
    const len = this.buf.readUInt32BE(this.pos);
    if (this.pos + 4 + len > this.buf.length) return undefined;
    const out = this.buf.subarray(this.pos + 4, this.pos + 4 + len);
    this.pos += 4 + len;
    return out;
  }

  rest(): Buffer {
    return this.buf.subarray(this.pos);
  }
}

/**
 * An SSH `mpint`'s magnitude: big-endian, without its leading zero bytes (empty for zero);
 * undefined when the mpint is negative, which OpenSSH refuses (sshbuf_get_bignum2).
 */
export function mpintMagnitude(mpint: Buffer): Buffer | undefined {
  if (mpint.length > 0 && (mpint[0]! & 0x80) !== 0) return undefined;
  let start = 0;
  while (start < mpint.length && mpint[start] === 0) start++;
  return mpint.subarray(start);
}

/** Splits a blob into its `string`s; undefined when it does not split exactly. */
export function readStrings(blob: Buffer): Buffer[] | undefined {
  const reader = new WireReader(blob);
  const out: Buffer[] = [];
  while (reader.rest().length > 0) {
    const field = reader.string();
    if (!field) return undefined;
    out.push(field);
  }
  return out;
}
