import { expect } from 'chai';
import { constantTimeEqual, looksLikeApiToken, newApiToken, sha256Hex } from '../../../server/auth/secrets.js';
import { DUMMY_PASSWORD_HASH, decodePasswordHash, hashPassword, verifyPassword, type ScryptParams } from '../../../server/auth/passwords.js';

// Cheap parameters keep the suite fast; the encoded hash carries them, so verification follows.
const FAST: ScryptParams = { N: 1024, r: 8, p: 1 };

describe('API tokens', () => {
  it('are svc_ followed by 32 random bytes in base64url', () => {
    const token = newApiToken();
    expect(token).to.match(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice(4), 'base64url')).to.have.length(32);
    expect(looksLikeApiToken(token)).to.equal(true);
  });

  it('never repeat', () => {
    const seen = new Set(Array.from({ length: 200 }, newApiToken));
    expect(seen.size).to.equal(200);
  });

  it('are told apart from anything else shaped differently', () => {
    for (const bad of ['', 'svc_', 'svc_short', `tok_${'a'.repeat(43)}`, `svc_${'a'.repeat(42)}!`, `svc_${'a'.repeat(44)}`]) {
      expect(looksLikeApiToken(bad), bad).to.equal(false);
    }
  });
});

describe('constantTimeEqual', () => {
  it('is true only for equal strings, whatever their lengths', () => {
    expect(constantTimeEqual('abc', 'abc')).to.equal(true);
    expect(constantTimeEqual('abc', 'abd')).to.equal(false);
    expect(constantTimeEqual('abc', 'abcd')).to.equal(false);
    expect(constantTimeEqual('', '')).to.equal(true);
  });

  it('hashes with SHA-256 for stored token names', () => {
    expect(sha256Hex('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('password hashes', () => {
  it('verify the password they were made from and no other', async () => {
    const hash = await hashPassword('correct horse', FAST);
    expect(await verifyPassword('correct horse', hash)).to.equal(true);
    expect(await verifyPassword('correct horsf', hash)).to.equal(false);
    expect(await verifyPassword('', hash)).to.equal(false);
  });

  it('use a fresh salt each time, so equal passwords give different hashes', async () => {
    const a = await hashPassword('same password', FAST);
    const b = await hashPassword('same password', FAST);
    expect(a).to.not.equal(b);
    expect(decodePasswordHash(a)!.salt.equals(decodePasswordHash(b)!.salt)).to.equal(false);
  });

  it('carry their scrypt parameters', async () => {
    const hash = await hashPassword('pw123456', FAST);
    expect(hash).to.match(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(decodePasswordHash(hash)!.params).to.deep.equal(FAST);
  });

  it('never match when malformed, and refuse parameters that would exhaust memory', async () => {
    expect(await verifyPassword('x', 'plaintext')).to.equal(false);
    expect(await verifyPassword('x', 'scrypt$abc$8$1$c2FsdA$a2V5')).to.equal(false);
    expect(decodePasswordHash('scrypt$4194304$8$1$c2FsdA$a2V5')).to.equal(undefined);
  });

  it('keep a well-formed dummy hash nobody can match', async () => {
    expect(decodePasswordHash(DUMMY_PASSWORD_HASH)).to.not.equal(undefined);
    expect(await verifyPassword('', DUMMY_PASSWORD_HASH)).to.equal(false);
  });
});
