// A gzipped tar in memory, in the shape `npm pack` makes: every entry under `package/`, POSIX
// ustar headers, regular files only, fixed owner and time so one input is one byte-identical
// tarball (and one ETag) on every replica.
import { gzipSync } from 'node:zlib';

export interface TarEntry {
  /** Path inside the package (`den.js`); stored as `package/den.js`. */
  path: string;
  body: Buffer;
  /** Permission bits (0o644 unless given). */
  mode?: number;
}

const BLOCK = 512;
/** 1985-10-26T08:15:00Z, npm pack's fixed time: the tarball does not change with the clock. */
const FIXED_MTIME = 499162500;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function header(name: string, size: number, mode: number): Buffer {
  const block = Buffer.alloc(BLOCK, 0);
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name longer than 100 bytes: ${name}`);
  block.write(name, 0, 100, 'utf8');
  block.write(octal(mode, 8), 100, 8, 'ascii');
  block.write(octal(0, 8), 108, 8, 'ascii');
  block.write(octal(0, 8), 116, 8, 'ascii');
  block.write(octal(size, 12), 124, 12, 'ascii');
  block.write(octal(FIXED_MTIME, 12), 136, 12, 'ascii');
  block.write('        ', 148, 8, 'ascii');
  block.write('0', 156, 1, 'ascii');
  block.write('ustar\0', 257, 6, 'ascii');
  block.write('00', 263, 2, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(octal(sum, 7) + ' ', 148, 8, 'ascii');
  return block;
}

/** The entries as `package/<path>` in a gzipped ustar archive. */
export function packageTarball(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(header(`package/${entry.path}`, entry.body.length, entry.mode ?? 0o644), entry.body);
    const pad = (BLOCK - (entry.body.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad, 0));
  }
  parts.push(Buffer.alloc(BLOCK * 2, 0));
  return gzipSync(Buffer.concat(parts), { level: 9 });
}
