import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkAuthorizedKey, isEd25519Point } from '../../ssh/authorized-keys.js';
import { blobFields, generateSshKey, keyLine, notAnEd25519Point, truncatedKey, withFlippedByte } from '../support/ssh-keys.js';
import { generateTestKeys, type TestKeys } from '../hooks/admission/keys.js';

describe('SSH authorized key check', () => {
  let keys: TestKeys;
  before(() => {
    keys = generateTestKeys();
  });

  const accepted: [keyof TestKeys, string][] = [
    ['ed25519', 'ssh-ed25519'],
    ['rsa', 'ssh-rsa'],
    ['ecdsa256', 'ecdsa-sha2-nistp256'],
    ['ecdsa384', 'ecdsa-sha2-nistp384'],
    ['ecdsa521', 'ecdsa-sha2-nistp521'],
    ['nodeEd25519', 'ssh-ed25519'],
    ['nodeRsa', 'ssh-rsa'],
    ['nodeEcdsa384', 'ecdsa-sha2-nistp384'],
    ['skEd25519', 'sk-ssh-ed25519@openssh.com'],
    ['skEcdsa', 'sk-ecdsa-sha2-nistp256@openssh.com'],
  ];
  for (const [name, type] of accepted) {
    it(`accepts a real ${name} key as ${type}`, () => {
      expect(checkAuthorizedKey(keys[name])).to.deep.equal({ ok: true, type });
    });
  }

  it('accepts a key without a comment and with surrounding whitespace', () => {
    const [type, blob] = keys.ed25519.split(' ');
    expect(checkAuthorizedKey(`  ${type} ${blob}\n`).ok).to.equal(true);
  });

  type Case = [string, (k: TestKeys) => unknown, RegExp];
  const refused: Case[] = [
    ['an empty string', () => '', /is empty/],
    ['a number', () => 42, /must be a string/],
    ['the type prefix alone', () => 'ssh-ed25519', /must be one line/],
    ['a DSA key', (k) => k.dsa, /key type "ssh-dss" is not accepted/],
    ['a certificate', (k) => k.ed25519.replace('ssh-ed25519', 'ssh-ed25519-cert-v01@openssh.com'), /is not accepted/],
    ['a private key pasted by mistake', (k) => k.ed25519Private, /is a private key/],
    ['the body of a private key pasted without its header', (k) => k.ed25519Private.split('\n').slice(1, -2).join('\n'), /is a private key/],
    ['a long first word, quoting only its start', () => `${'Zm9v'.repeat(100)} rest`, /^key type "Zm9vZm9vZm9v\.\.\." \(400 characters\) is not accepted/],
    ['an authorized_keys line with options', (k) => `no-pty ${k.ed25519}`, /options before the key type \("no-pty"\) are not accepted/],
    ['two keys on two lines', (k) => `${k.ed25519}\n${k.rsa}`, /must be one line/],
    ['text in base64 after a valid prefix', () => 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG5vdCBhIGtleSBhdCBhbGw=', /corrupt/],
    ['a truncated ed25519 blob', (k) => truncatedKey(k.ed25519, 3), /corrupt/],
    ['a truncated rsa blob', (k) => truncatedKey(k.rsa, 20), /corrupt/],
    ['a truncated ecdsa blob', (k) => truncatedKey(k.ecdsa256, 1), /corrupt/],
    ['an ed25519 blob with trailing bytes', (k) => keyLine('ssh-ed25519', [...blobFields(k.ed25519), 'extra']), /corrupt/],
    ['an rsa blob under the ed25519 prefix', (k) => k.rsa.replace('ssh-rsa', 'ssh-ed25519'), /not a ssh-ed25519 key/],
    ['a nistp256 blob under the nistp384 prefix', (k) => k.ecdsa256.replace('ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384'), /not a ecdsa-sha2-nistp384 key/],
    ['an ecdsa blob naming another curve', (k) => keyLine('ecdsa-sha2-nistp256', ['ecdsa-sha2-nistp256', 'nistp384', blobFields(k.ecdsa256)[2]!]), /different curve/],
    ['an ecdsa point that is not on the curve', (k) => withFlippedByte(k.ecdsa256, 2, 10), /not a point on the curve/],
    ['an ed25519 key that is not a curve point', () => keyLine('ssh-ed25519', ['ssh-ed25519', notAnEd25519Point()]), /not a point on the curve/],
    ['an rsa key with an even modulus', (k) => withFlippedByte(k.rsa, 2, -1), /odd/],
    ['a 512-bit rsa key', () => rsaKeyLine(512), /512 bits; at least 1024/],
    ['an rsa key whose modulus is negative', (k) => negativeModulus(k.rsa), /corrupt/],
    ['invalid base64', () => 'ssh-ed25519 AAAA!!!!', /must be one line/],
    ['base64 that does not round-trip', () => 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI=A', /must be one line|not valid base64/],
    ['an sk-ed25519 key of the wrong length', (k) => keyLine('sk-ssh-ed25519@openssh.com', ['sk-ssh-ed25519@openssh.com', blobFields(k.skEd25519)[1]!.subarray(0, 31), 'ssh:']), /corrupt/],
    ['an sk-ed25519 key without its application', (k) => keyLine('sk-ssh-ed25519@openssh.com', blobFields(k.skEd25519).slice(0, 2)), /corrupt/],
    ['an sk-ecdsa key whose point is off the curve', (k) => withFlippedByte(k.skEcdsa, 2, 20), /not a point on the curve/],
    ['an sk key with a foreign application', (k) => keyLine('sk-ssh-ed25519@openssh.com', ['sk-ssh-ed25519@openssh.com', blobFields(k.skEd25519)[1]!, 'https://example.com']), /application must start with "ssh:"/],
    ['an overlong line', (k) => `${k.ed25519} ${'x'.repeat(9000)}`, /longer than 8192/],
  ];
  for (const [what, make, reason] of refused) {
    it(`refuses ${what}`, () => {
      const result = checkAuthorizedKey(make(keys));
      expect(result.ok).to.equal(false);
      expect(result.ok === false && result.reason).to.match(reason);
    });
  }

  describe('and OpenSSH reads every key Den accepts', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'den-ssh-keygen-'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    /** `ssh-keygen -l -f` of the entry as an authorized_keys file: the fingerprint line, or OpenSSH's refusal. */
    function fingerprint(entry: string, n: number): Promise<{ ok: boolean; out: string }> {
      const file = join(dir, `key-${n}.pub`);
      writeFileSync(file, `${entry}\n`);
      return new Promise((resolve) => execFile('ssh-keygen', ['-l', '-f', file], (err, stdout, stderr) => resolve({ ok: !err, out: `${stdout}${stderr}`.trim() })));
    }

    const table: [string, (k: TestKeys) => string][] = [
      ...accepted.map(([name]): [string, (k: TestKeys) => string] => [`the ${name} key`, (k) => k[name]]),
      ['a key without a comment', (k) => k.ed25519.split(' ').slice(0, 2).join(' ')],
      ['a key whose comment has spaces and a tab', (k) => `${k.ecdsa256.split(' ').slice(0, 2).join(' ')} alice on\tthe laptop`],
      ['a 1024-bit RSA key, the shortest Den accepts', () => rsaKeyLine(1024)],
      ...Array.from({ length: 25 }, (_, i): [string, (k: TestKeys) => string] => [`Node-made ed25519 key ${i + 1}`, () => generateSshKey('ed25519').publicLine]),
      ...Array.from({ length: 5 }, (_, i): [string, (k: TestKeys) => string] => [`Node-made ecdsa-521 key ${i + 1}`, () => generateSshKey('ecdsa', { bits: 521 }).publicLine]),
    ];

    it('ssh-keygen -l reads each one', async () => {
      const refusedByOpenSsh: string[] = [];
      for (const [i, [what, make]] of table.entries()) {
        const entry = make(keys);
        expect(checkAuthorizedKey(entry).ok, `Den refused ${what}`).to.equal(true);
        const result = await fingerprint(entry.trim(), i);
        if (!result.ok) refusedByOpenSsh.push(`${what}: ${result.out}`);
        else expect(result.out, what).to.match(/^\d+ SHA256:\S+ /);
      }
      expect(refusedByOpenSsh).to.deep.equal([]);
    });

    it('ssh-keygen -l refuses an RSA key whose modulus is negative, as Den does', async () => {
      const negative = negativeModulus(keys.rsa);
      expect(checkAuthorizedKey(negative).ok).to.equal(false);
      const result = await fingerprint(negative, 901);
      expect(result.ok).to.equal(false);
      expect(result.out).to.match(/is not a public key file/);
    });

    it('ssh-keygen -l refuses a truncated key, so the check above can fail', async () => {
      const truncated = truncatedKey(keys.rsa, 20);
      expect(checkAuthorizedKey(truncated).ok).to.equal(false);
      const result = await fingerprint(truncated, 900);
      expect(result.ok).to.equal(false);
      expect(result.out).to.match(/is not a public key file/);
    });
  });

  it('tells real Ed25519 points from random 32-byte strings', () => {
    for (let i = 0; i < 20; i++) {
      const { publicKey } = generateKeyPairSync('ed25519');
      expect(isEd25519Point(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'))).to.equal(true);
    }
    expect(isEd25519Point(notAnEd25519Point())).to.equal(false);
    expect(isEd25519Point(Buffer.alloc(31))).to.equal(false);
  });
});

function rsaKeyLine(bits: number): string {
  return generateSshKey('rsa', { bits }).publicLine;
}

/** An RSA key line whose modulus lost the zero byte that keeps it positive as an mpint. */
function negativeModulus(line: string): string {
  const [type, exponent, modulus] = blobFields(line);
  expect(modulus![0]).to.equal(0);
  return keyLine('ssh-rsa', [type!, exponent!, modulus!.subarray(1)]);
}
