import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkAuthorizedKey } from '../../ssh/authorized-keys.js';
import { blobFields, generateSshKey, keyLine, type SshKeyOptions, type SshKeyType } from './ssh-keys.js';

/** OpenSSH's SHA256 fingerprint of a key line: unpadded base64 of the blob's digest. */
function fingerprintOf(line: string): string {
  return `SHA256:${createHash('sha256').update(Buffer.from(line.split(' ')[1]!, 'base64')).digest('base64').replace(/=+$/, '')}`;
}

/** `ssh-keygen -l -f` of an authorized_keys file: the fingerprint of each line it could read. */
function sshKeygenFingerprints(file: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    execFile('ssh-keygen', ['-l', '-f', file], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && !stdout) reject(new Error(`ssh-keygen -l: ${stderr}`));
      else resolve(stdout.split('\n').flatMap((l) => l.split(' ')[1] ?? []));
    }),
  );
}

/** Keys of one kind, made until `wanted` of them have a public value starting with a zero byte (the bytes ssh2 dropped). */
function keysWithLeadingZeros(type: SshKeyType, options: SshKeyOptions, wanted: number): string[] {
  const lines: string[] = [];
  let withZero = 0;
  while (withZero < wanted) {
    if (lines.length >= 50_000) throw new Error(`${lines.length} ${type} keys and only ${withZero} with a leading zero byte`);
    const line = generateSshKey(type, options).publicLine;
    const value = blobFields(line).at(-1)!;
    const coordinates = type === 'ecdsa' ? [value.subarray(1, 1 + (value.length - 1) / 2), value.subarray(1 + (value.length - 1) / 2)] : [value];
    if (coordinates.some((c) => c[0] === 0)) withZero++;
    lines.push(line);
  }
  return lines;
}

describe('SSH keys made for tests', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'den-test-keys-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('OpenSSH and Den read every one of a thousand ed25519 and ECDSA keys, those with leading zero bytes included', async () => {
    const lines = [
      ...keysWithLeadingZeros('ed25519', {}, 4),
      ...keysWithLeadingZeros('ecdsa', { bits: 256 }, 2),
      ...keysWithLeadingZeros('ecdsa', { bits: 384 }, 2),
      ...keysWithLeadingZeros('ecdsa', { bits: 521 }, 2),
      ...Array.from({ length: 1000 }, () => generateSshKey('ed25519').publicLine),
      ...Array.from({ length: 3 }, () => generateSshKey('rsa', { bits: 1024 }).publicLine),
    ];
    const refusedByDen = lines.filter((line) => !checkAuthorizedKey(line).ok);
    expect(refusedByDen).to.deep.equal([]);
    const file = join(dir, 'authorized_keys');
    writeFileSync(file, `${lines.join('\n')}\n`);
    expect(await sshKeygenFingerprints(file)).to.deep.equal(lines.map(fingerprintOf));
  });

  it('ssh-keygen -l leaves out an ed25519 key whose leading zero byte was dropped, so the check above can fail', async () => {
    const good = generateSshKey('ed25519').publicLine;
    const dropped = keyLine('ssh-ed25519', ['ssh-ed25519', Buffer.alloc(31, 7)]);
    const file = join(dir, 'with-a-short-key');
    writeFileSync(file, `${dropped}\n${good}\n`);
    expect(await sshKeygenFingerprints(file)).to.deep.equal([fingerprintOf(good)]);
  });
});
