// What makes an authorized-keys line a public key has one home, ssh/authorized-keys.ts over the
// wire encoding of ssh/wire.ts. The same lines, real keys of every accepted type and broken
// ones, are fed here to every reader: the webhooks that admit spec.sshAuthorizedKeys, the REST
// schema and the OpenAPI description of a new workspace's key (which check the line's shape
// only and leave the key to the webhook), and the SSH gateway that authenticates with it.
import { expect } from 'chai';
import { parseAuthorizedKey, findAuthorizedKey } from '../../gateway/keys.js';
import { authorizedKeysViolations } from '../../hooks/admission/authorized-keys.js';
import { createWorkspaceRequest } from '../../server/api/schemas.js';
import { checkAuthorizedKey } from '../../ssh/authorized-keys.js';
import { splitPublicKeyLine } from '../../ssh/wire.js';
import { generateTestKeys, type TestKeys } from '../hooks/admission/keys.js';
import { blobFields, generateSshKey, keyLine, notAnEd25519Point, truncatedKey, withFlippedByte } from '../support/ssh-keys.js';
import { disagreements, openApiField, restAccepts } from './callers.js';

type Case = [what: string, line: (k: TestKeys) => string];

const GOOD: Case[] = [
  ...(['ed25519', 'rsa', 'ecdsa256', 'ecdsa384', 'ecdsa521', 'nodeEd25519', 'nodeRsa', 'nodeEcdsa384', 'skEd25519', 'skEcdsa'] as const).map((name): Case => [`a real ${name} key`, (k) => k[name]]),
  ['a key without a comment', (k) => k.ed25519.split(' ').slice(0, 2).join(' ')],
  ['a key with spaces around it', (k) => `  ${k.rsa}\n`],
  ['a 1024-bit RSA key, the shortest accepted', () => generateSshKey('rsa', { bits: 1024 }).publicLine],
];

const BAD: Case[] = [
  ['an empty line', () => ''],
  ['the type prefix alone', () => 'ssh-ed25519'],
  ['a DSA key', (k) => k.dsa],
  ['a certificate', (k) => k.ed25519.replace('ssh-ed25519', 'ssh-ed25519-cert-v01@openssh.com')],
  ['a private key', (k) => k.ed25519Private],
  ['an authorized_keys line with options', (k) => `no-pty ${k.ed25519}`],
  ['two keys on two lines', (k) => `${k.ed25519}\n${k.rsa}`],
  ['invalid base64', () => 'ssh-ed25519 AAAA!!!!'],
  ['base64 that does not round-trip', () => 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI=A'],
  ['text in base64 after a valid prefix', () => 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG5vdCBhIGtleSBhdCBhbGw='],
  ['a truncated ed25519 blob', (k) => truncatedKey(k.ed25519, 3)],
  ['a truncated rsa blob', (k) => truncatedKey(k.rsa, 20)],
  ['a truncated ecdsa blob', (k) => truncatedKey(k.ecdsa256, 1)],
  ['an ed25519 blob with trailing bytes', (k) => keyLine('ssh-ed25519', [...blobFields(k.ed25519), 'extra'])],
  ['an rsa blob under the ed25519 prefix', (k) => k.rsa.replace('ssh-rsa', 'ssh-ed25519')],
  ['a nistp256 blob under the nistp384 prefix', (k) => k.ecdsa256.replace('ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384')],
  ['an ecdsa blob naming another curve', (k) => keyLine('ecdsa-sha2-nistp256', ['ecdsa-sha2-nistp256', 'nistp384', blobFields(k.ecdsa256)[2]!])],
  ['an ecdsa point off the curve', (k) => withFlippedByte(k.ecdsa256, 2, 10)],
  ['an ed25519 key that is not a curve point', () => keyLine('ssh-ed25519', ['ssh-ed25519', notAnEd25519Point()])],
  ['an rsa key with an even modulus', (k) => withFlippedByte(k.rsa, 2, -1)],
  ['a 512-bit rsa key', () => generateSshKey('rsa', { bits: 512 }).publicLine],
  ['an sk-ed25519 key of the wrong length', (k) => keyLine('sk-ssh-ed25519@openssh.com', ['sk-ssh-ed25519@openssh.com', blobFields(k.skEd25519)[1]!.subarray(0, 31), 'ssh:'])],
  ['an sk-ed25519 key without its application', (k) => keyLine('sk-ssh-ed25519@openssh.com', blobFields(k.skEd25519).slice(0, 2))],
  ['an sk-ecdsa key whose point is off the curve', (k) => withFlippedByte(k.skEcdsa, 2, 20)],
  ['an sk key with a foreign application', (k) => keyLine('sk-ssh-ed25519@openssh.com', ['sk-ssh-ed25519@openssh.com', blobFields(k.skEd25519)[1]!, 'https://example.com'])],
  ['an sk-ecdsa blob under the sk-ed25519 prefix', (k) => k.skEcdsa.replace('sk-ecdsa-sha2-nistp256@openssh.com', 'sk-ssh-ed25519@openssh.com')],
  ['an overlong line', (k) => `${k.ed25519} ${'x'.repeat(9000)}`],
];

describe('SSH public-key lines, fed alike to every reader of one', function () {
  this.timeout(30_000);
  let lines: Map<string, string>;
  let all: string[];
  const rule = (line: string) => checkAuthorizedKey(line).ok;
  before(() => {
    const keys = generateTestKeys();
    lines = new Map([...GOOD, ...BAD].map(([what, make]) => [make(keys), what]));
    all = [...lines.keys()];
  });
  const named = (found: string[]) => found.map((line) => lines.get(line));

  it('accepts every real key and refuses every broken one', () => {
    expect(named(all.filter(rule))).to.deep.equal(GOOD.map(([what]) => what));
  });

  it('is what the webhooks admit into spec.sshAuthorizedKeys', () => {
    expect(named(disagreements(all, rule, (line) => authorizedKeysViolations([line], undefined).length === 0))).to.deep.equal([]);
  });

  it('is a key the gateway authenticates with when the client offers its blob, and no other line is one it reads', () => {
    const offered = (line: string) => {
      const split = splitPublicKeyLine(line);
      return 'wrong' in split ? undefined : { algo: split.type, data: split.blob };
    };
    const authenticates = (line: string) => {
      const key = offered(line);
      return key !== undefined && findAuthorizedKey(key, [line]) !== undefined;
    };
    expect(named(disagreements(all, rule, authenticates)), 'the gateway matches the offered key').to.deep.equal([]);
    expect(named(disagreements(all, rule, (line) => parseAuthorizedKey(line) !== undefined)), 'the gateway reads the entry as a key').to.deep.equal([]);
  });

  it('never has REST or the OpenAPI description refuse a key the rule accepts, and what they refuse the rule refuses', () => {
    const body = (line: string) => ({ name: 'dev', image: 'ubuntu', storage: '10Gi', ssh_public_key: line });
    const rest = (line: string) => restAccepts(createWorkspaceRequest, body(line));
    const openApi = openApiField('CreateWorkspaceRequest', 'ssh_public_key');
    expect(named(all.filter((line) => rule(line) && !rest(line))), 'REST refuses a key').to.deep.equal([]);
    expect(named(all.filter((line) => rule(line) && !openApi(line))), 'OpenAPI refuses a key').to.deep.equal([]);
    // The shape alone: one line, an accepted type, base64 and an optional comment.
    const notOfTheShape = ['an empty line', 'the type prefix alone', 'a DSA key', 'a certificate', 'a private key', 'an authorized_keys line with options', 'two keys on two lines', 'invalid base64', 'base64 that does not round-trip'];
    expect(named(all.filter((line) => !rest(line))), 'REST').to.deep.equal(notOfTheShape);
    expect(named(all.filter((line) => !openApi(line))), 'OpenAPI').to.deep.equal(notOfTheShape);
  });
});
