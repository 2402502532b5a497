import { expect } from 'chai';
import { CachingMemo, DIRECT } from '../../../hooks/admission/memo.js';
import { generateTestKeys, type TestKeys } from './keys.js';
import { workspace } from './world.js';

describe('decision memo', () => {
  let keys: TestKeys;
  before(() => {
    keys = generateTestKeys();
  });

  it('answers key checks exactly as the direct check does', () => {
    const memo = new CachingMemo();
    for (const entry of [keys.ed25519, keys.rsa, keys.dsa, 'ssh-ed25519 AAAA', 42, keys.ed25519]) {
      expect(memo.checkKey(entry)).to.deep.equal(DIRECT.checkKey(entry));
    }
  });

  it('forgets the oldest key when full', () => {
    const memo = new CachingMemo(2);
    const first = memo.checkKey(keys.ed25519);
    memo.checkKey(keys.rsa);
    memo.checkKey(keys.ecdsa256);
    expect(memo.checkKey(keys.ed25519)).to.not.equal(first);
    expect(memo.checkKey(keys.ed25519)).to.deep.equal(first);
  });

  it('parses a cached object once and a replaced object again', () => {
    const memo = new CachingMemo();
    const ws = workspace('a', { resources: { requests: { cpu: '1' } } });
    expect(memo.resourcesOf(ws)).to.equal(memo.resourcesOf(ws));
    const replaced = workspace('a', { resources: { requests: { cpu: '2' } } });
    expect(memo.resourcesOf(replaced).requests.get('cpu')).to.deep.equal(DIRECT.resourcesOf(replaced).requests.get('cpu'));
    expect(memo.resourcesOf(replaced)).to.not.equal(memo.resourcesOf(ws));
  });
});
