// FIDO security keys (sk-ssh-ed25519, sk-ecdsa-sha2-nistp256): checked against signatures
// OpenSSH itself produced, then logged in end to end through the gateway with ssh2's client
// and an agent that signs the way a security key does (no FIDO device here, so no `ssh`).
import { expect } from 'chai';
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import ssh2, { type ParsedKey } from 'ssh2';
import { generateHostKey } from '../../ssh/host-key.js';
import { findAuthorizedKey, parseAuthorizedKey } from '../../gateway/keys.js';
import { parseSecurityKeyBlob, parseSecurityKeyLine, securityKeySignedData, SK_ECDSA_P256, SK_ED25519, verifySecurityKeySignature } from '../../gateway/sk-keys.js';
import { checkAuthorizedKey } from '../../ssh/authorized-keys.js';
import { GatewayHarness, pod, workspace } from './harness.js';

type Kind = typeof SK_ED25519 | typeof SK_ECDSA_P256;

const wireString = (b: Buffer | string): Buffer => {
  const body = Buffer.from(b);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
};

function mpint(unsigned: Buffer): Buffer {
  let start = 0;
  while (start < unsigned.length - 1 && unsigned[start] === 0) start++;
  const digits = unsigned.subarray(start);
  return wireString(digits[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), digits]) : digits);
}

interface SignOptions {
  flags?: number;
  counter?: number;
  /** Sign with this key instead of the pair's own. */
  signer?: KeyObject;
}

/** A software stand-in for a security key: a real key pair, the sk public blob, and sk-format signatures. */
class SoftSecurityKey {
  readonly blob: Buffer;
  readonly line: string;
  private readonly privateKey: KeyObject;

  constructor(readonly kind: Kind, readonly application = 'ssh:') {
    const pair = kind === SK_ED25519 ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    const jwk = pair.publicKey.export({ format: 'jwk' });
    const x = Buffer.from(jwk.x!, 'base64url');
    const point = kind === SK_ED25519 ? [wireString(x)] : [wireString('nistp256'), wireString(Buffer.concat([Buffer.from([4]), x, Buffer.from(jwk.y!, 'base64url')]))];
    this.blob = Buffer.concat([wireString(kind), ...point, wireString(application)]);
    this.line = `${kind} ${this.blob.toString('base64')} yubikey`;
  }

  static other(kind: Kind): KeyObject {
    return (kind === SK_ED25519 ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' })).privateKey;
  }

  /**
   * The signature field after its `string sig-type`: OpenSSH's `string inner, byte flags,
   * uint32 counter`. ssh2's client wraps what `sign` returns in one string, so what reaches the
   * server's parser differs from OpenSSH's only in that inner length, which ssh2's server drops.
   */
  signatureBody(message: Buffer, opts: SignOptions = {}): Buffer {
    const flags = opts.flags ?? 0x01;
    const counter = opts.counter ?? 7;
    const data = securityKeySignedData(Buffer.from(this.application), flags, counter, message);
    const key = opts.signer ?? this.privateKey;
    const trailer = Buffer.alloc(5);
    trailer[0] = flags;
    trailer.writeUInt32BE(counter, 1);
    if (this.kind === SK_ED25519) return Buffer.concat([sign(null, data, key), trailer]);
    const rs = sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
    return Buffer.concat([mpint(rs.subarray(0, 32)), mpint(rs.subarray(32)), trailer]);
  }

  /**
   * ssh2's client refuses key types it cannot parse. It accepts any object carrying its parsed-key
   * marker, so the marker is copied from a real parsed key and type and blob are the sk key's.
   */
  asParsedKey(): ParsedKey {
    const carrier = ssh2.utils.parseKey(generateHostKey().publicKey) as ParsedKey;
    const blob = this.blob;
    return Object.assign(Object.create(Object.getPrototypeOf(carrier) as object) as ParsedKey, carrier, {
      type: this.kind,
      comment: 'yubikey',
      getPublicSSH: () => blob,
    });
  }
}

/** An SSH agent holding one security key; every signature it makes uses `opts`. */
class SecurityKeyAgent extends ssh2.BaseAgent<ParsedKey> {
  signed = 0;
  constructor(private readonly key: SoftSecurityKey, private readonly opts: SignOptions = {}) {
    super();
  }
  getIdentities(cb: (err: Error | undefined, keys?: ParsedKey[]) => void): void {
    cb(undefined, [this.key.asParsedKey()]);
  }
  sign(_pubKey: ParsedKey, data: Buffer, options: unknown, cb?: (err: Error | undefined, signature?: Buffer) => void): void {
    const done = typeof options === 'function' ? (options as typeof cb)! : cb!;
    this.signed += 1;
    done(undefined, this.key.signatureBody(data, this.opts));
  }
}

/** From OpenSSH's regress/unittests/sshsig/testdata: sk signatures made by OpenSSH over an SSHSIG message. */
const OPENSSH_VECTORS = [
  {
    line: 'sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIJsaDYXQYruc6bilCYDIK4YSOeG+zmrRO2M9t03//7LHAAAABHNzaDo= ED25519-SK test key',
    sshsig:
      'U1NIU0lHAAAAAQAAAEoAAAAac2stc3NoLWVkMjU1MTlAb3BlbnNzaC5jb20AAAAgmxoNhdBiu5zpuKUJgMgrhhI54b7OatE7Yz23Tf//sscAAAAEc3NoOgAAAAh1bml0dGVzdAAAAAAAAAAGc2hhNTEyAAAAZwAAABpzay1zc2gtZWQyNTUxOUBvcGVuc3NoLmNvbQAAAEAi+7eTjW/+LQ2M+sCD+KFtH1n7VFFJon/SZFsxODyV8cWTlFKj617Ys1Ur5TV6uaEXQhck8rBA2oQIHTPANLIPARI0Vng=',
  },
  {
    line: 'sk-ecdsa-sha2-nistp256@openssh.com AAAAInNrLWVjZHNhLXNoYTItbmlzdHAyNTZAb3BlbnNzaC5jb20AAAAIbmlzdHAyNTYAAABBBKDVa5jRcT5V7E6ysmwVi7HJWh7p5D+hebLPakQcpnD2ajJZ6G/4WzuhlYWnclWY63JspDp299Rlhq5AT86/g8AAAAAEc3NoOg== ECDSA-SK test key',
    sshsig:
      'U1NIU0lHAAAAAQAAAH8AAAAic2stZWNkc2Etc2hhMi1uaXN0cDI1NkBvcGVuc3NoLmNvbQAAAAhuaXN0cDI1NgAAAEEEoNVrmNFxPlXsTrKybBWLsclaHunkP6F5ss9qRBymcPZqMlnob/hbO6GVhadyVZjrcmykOnb31GWGrkBPzr+DwAAAAARzc2g6AAAACHVuaXR0ZXN0AAAAAAAAAAZzaGE1MTIAAAB3AAAAInNrLWVjZHNhLXNoYTItbmlzdHAyNTZAb3BlbnNzaC5jb20AAABIAAAAIHohGwyy8iKT3zwd1TYA9V/Ioo7h/3zCJUtyq/Qigt/HAAAAIGzidTwq7D/kFa7Xjcp/KkdbIs4MfQpfAW/0OciajlpzARI0Vng=',
  },
];

/** Splits an SSHSIG blob into the message the key signed and the signature in the shape ssh2's server hands over. */
function openSshVector(sshsig: string): { message: Buffer; signature: Buffer; publicBlob: Buffer; flags: number; counter: number } {
  const b = Buffer.from(sshsig, 'base64');
  let pos = 6 + 4; // "SSHSIG", version
  const next = (): Buffer => {
    const len = b.readUInt32BE(pos);
    const out = b.subarray(pos + 4, pos + 4 + len);
    pos += 4 + len;
    return out;
  };
  const [publicBlob, namespace, reserved, hashAlgo, field] = [next(), next(), next(), next(), next()];
  const digest = createHash('sha512').update('This is a test, this is only a test').digest();
  const message = Buffer.concat([Buffer.from('SSHSIG'), wireString(namespace), wireString(reserved), wireString(hashAlgo), wireString(digest)]);
  const typeLen = field.readUInt32BE(0);
  const signature = field.subarray(4 + typeLen + 4);
  return { message, signature, publicBlob, flags: signature[signature.length - 5]!, counter: signature.readUInt32BE(signature.length - 4) };
}

describe('security key signatures', () => {
  for (const vector of OPENSSH_VECTORS) {
    const type = vector.line.split(' ')[0]!;
    it(`verifies a ${type} signature that OpenSSH made, and nothing else`, () => {
      const parsed = parseSecurityKeyLine(vector.line)!;
      const { message, signature, publicBlob, flags, counter } = openSshVector(vector.sshsig);
      expect(parsed.blob.equals(publicBlob)).to.equal(true);
      expect(parsed.key.application.toString()).to.equal('ssh:');
      expect([flags, counter]).to.deep.equal([0x01, 0x12345678]);
      expect(verifySecurityKeySignature(parsed.key, message, signature)).to.deep.equal({ ok: true });
      expect(verifySecurityKeySignature(parsed.key, Buffer.concat([message, Buffer.from('!')]), signature)).to.deep.equal({ ok: false, reason: 'signature does not verify' });
      const otherCounter = Buffer.from(signature);
      otherCounter.writeUInt32BE(counter + 1, otherCounter.length - 4);
      expect(verifySecurityKeySignature(parsed.key, message, otherCounter)).to.deep.equal({ ok: false, reason: 'signature does not verify' });
    });
  }

  for (const kind of [SK_ED25519, SK_ECDSA_P256] as const) {
    it(`refuses a ${kind} signature without the user-presence flag even when it verifies`, () => {
      const key = new SoftSecurityKey(kind);
      const parsed = parseSecurityKeyLine(key.line)!.key;
      const message = Buffer.from('userauth request');
      expect(verifySecurityKeySignature(parsed, message, key.signatureBody(message, { flags: 0x05 }))).to.deep.equal({ ok: true });
      expect(verifySecurityKeySignature(parsed, message, key.signatureBody(message, { flags: 0x04 }))).to.deep.equal({ ok: false, reason: 'security key signature without user presence (no touch)' });
    });

    it(`accepts the ${kind} keys admission accepts, matched by type and blob only`, () => {
      const key = new SoftSecurityKey(kind);
      expect(checkAuthorizedKey(key.line)).to.deep.equal({ ok: true, type: kind });
      expect(parseAuthorizedKey(key.line)?.type).to.equal(kind);
      expect(findAuthorizedKey({ algo: kind, data: key.blob }, ['ssh-ed25519 garbage', new SoftSecurityKey(kind).line, key.line])?.type).to.equal(kind);
      expect(findAuthorizedKey({ algo: kind, data: new SoftSecurityKey(kind).blob }, [key.line])).to.equal(undefined);
      expect(findAuthorizedKey({ algo: kind === SK_ED25519 ? SK_ECDSA_P256 : SK_ED25519, data: key.blob }, [key.line])).to.equal(undefined);
    });
  }

  it('refuses malformed key blobs and signatures', () => {
    const ed = new SoftSecurityKey(SK_ED25519);
    const ec = new SoftSecurityKey(SK_ECDSA_P256);
    expect(parseSecurityKeyBlob(Buffer.concat([ed.blob, Buffer.from([0])]))).to.equal(undefined); // trailing byte
    expect(parseSecurityKeyBlob(ed.blob.subarray(0, ed.blob.length - 1))).to.equal(undefined); // truncated
    const offCurve = Buffer.from(ec.blob);
    offCurve[4 + SK_ECDSA_P256.length + 4 + 8 + 4 + 10] ^= 0xff; // a byte of X
    expect(parseSecurityKeyBlob(offCurve)).to.equal(undefined);
    const wrongCurve = Buffer.concat([wireString(SK_ECDSA_P256), wireString('nistp384'), ec.blob.subarray(4 + SK_ECDSA_P256.length + 4 + 8)]);
    expect(parseSecurityKeyBlob(wrongCurve)).to.equal(undefined);
    expect(parseSecurityKeyLine(`${SK_ED25519} ${ec.blob.toString('base64')}`)).to.equal(undefined); // type and blob disagree

    const message = Buffer.from('m');
    const edKey = parseSecurityKeyBlob(ed.blob)!;
    const ecKey = parseSecurityKeyBlob(ec.blob)!;
    const malformed = { ok: false, reason: 'malformed security key signature' };
    expect(verifySecurityKeySignature(edKey, message, ed.signatureBody(message).subarray(1))).to.deep.equal(malformed);
    const ecSig = ec.signatureBody(message);
    expect(verifySecurityKeySignature(ecKey, message, Buffer.concat([ecSig, Buffer.from([0])]))).to.deep.equal(malformed);
    const negative = Buffer.concat([wireString(Buffer.from([0x80, 1])), ecSig.subarray(4 + ecSig.readUInt32BE(0))]);
    expect(verifySecurityKeySignature(ecKey, message, negative)).to.deep.equal(malformed);
  });
});

describe('gateway login with a security key (ssh2 client)', function () {
  this.timeout(30_000);
  let h: GatewayHarness;

  beforeEach(async () => {
    h = await new GatewayHarness().start();
  });
  afterEach(async () => {
    await h.close();
  });

  /** Connects as `demo` with the agent; resolves with the command's stdout, or rejects with ssh2's error. */
  function login(agent: SecurityKeyAgent): Promise<string> {
    return new Promise((resolve, reject) => {
      const conn = new ssh2.Client();
      conn.on('error', reject);
      conn.on('ready', () => {
        conn.exec('echo touched', (err, stream) => {
          if (err) return reject(err);
          const out: Buffer[] = [];
          stream.on('data', (c: Buffer) => out.push(c));
          stream.stderr.on('data', (c: Buffer) => out.push(c));
          stream.on('close', () => {
            conn.end();
            resolve(Buffer.concat(out).toString('utf8'));
          });
        });
      });
      conn.connect({ host: '127.0.0.1', port: h.port, username: 'demo', agent, readyTimeout: 10_000 });
    });
  }

  const refusals = () => h.logs.filter((l) => l.msg === 'audit' && l.fields?.audit === 'sign-in' && l.fields.outcome === 'failure').map((l) => l.fields?.reason);

  for (const kind of [SK_ED25519, SK_ECDSA_P256] as const) {
    it(`logs in with a listed ${kind} key when the key was touched`, async () => {
      const key = new SoftSecurityKey(kind);
      await h.seed(workspace('demo', [key.line]), pod('demo-0', 'demo'));
      const agent = new SecurityKeyAgent(key);
      expect(await login(agent)).to.equal('touched\n');
      expect(agent.signed).to.equal(1);
      expect(h.logs.some((l) => l.msg === 'audit' && l.fields?.audit === 'sign-in' && l.fields.outcome === 'success')).to.equal(true);
    });

    it(`refuses a ${kind} signature made without a touch`, async () => {
      const key = new SoftSecurityKey(kind);
      await h.seed(workspace('demo', [key.line]), pod('demo-0', 'demo'));
      const err = await login(new SecurityKeyAgent(key, { flags: 0 })).then(() => undefined, (e: Error) => e);
      expect(err?.message).to.equal('All configured authentication methods failed');
      expect(refusals()).to.deep.equal(['security key signature without user presence (no touch)']);
    });

    it(`refuses a ${kind} key whose signature was made by another key`, async () => {
      const key = new SoftSecurityKey(kind);
      await h.seed(workspace('demo', [key.line]), pod('demo-0', 'demo'));
      const err = await login(new SecurityKeyAgent(key, { signer: SoftSecurityKey.other(kind) })).then(() => undefined, (e: Error) => e);
      expect(err?.message).to.equal('All configured authentication methods failed');
      expect(refusals()).to.deep.equal(['signature does not verify']);
    });

    it(`refuses a ${kind} key the workspace does not list, before asking for a signature`, async () => {
      await h.seed(workspace('demo', [new SoftSecurityKey(kind).line]), pod('demo-0', 'demo'));
      const agent = new SecurityKeyAgent(new SoftSecurityKey(kind));
      const err = await login(agent).then(() => undefined, (e: Error) => e);
      expect(err?.message).to.equal('All configured authentication methods failed');
      expect(agent.signed).to.equal(0);
      expect(refusals()).to.deep.equal(['no workspace of that name authorizes this key']);
    });
  }
});
