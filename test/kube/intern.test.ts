import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import { intern, internStrings } from '../../kube/intern.js';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Heap bytes the objects `make` returns hold once collected, measured while they are alive. */
function heldBytes(make: () => unknown[]): number {
  collect();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  collect();
  const after = process.memoryUsage().heapUsed;
  expect(kept).to.have.length.above(0);
  return after - before;
}

// 2,000 objects as 2,000 API responses parse them, each with its own copy of a 10 KiB script.
const SCRIPT = 'kill -TERM -1 2>/dev/null\n'.repeat(400);
const parsed = (i: number) => JSON.parse(JSON.stringify({ metadata: { name: `ws${i}`, resourceVersion: String(i) }, spec: { command: ['sh', '-c', SCRIPT] } })) as { spec: { command: string[] } };

describe('interned strings of cached objects', () => {
  it('keeps one copy of a string that 2,000 parsed objects each carry', () => {
    const apart = heldBytes(() => Array.from({ length: 2000 }, (_, i) => parsed(i)));
    const interned = heldBytes(() => Array.from({ length: 2000 }, (_, i) => internStrings(parsed(i))));
    expect(apart).to.be.above(2000 * SCRIPT.length * 0.9);
    expect(interned).to.be.below(2 * 1024 * 1024);
  });

  it('changes no value: the object is deep-equal to what was parsed, names and numbers included', () => {
    const text = '{"metadata":{"name":"ws1","labels":{"42":"x","__proto__":"p"}},"spec":{"replicas":1,"running":true,"args":["a",["b",null]],"none":null}}';
    expect(internStrings(JSON.parse(text))).to.deep.equal(JSON.parse(text));
    expect(intern('42')).to.equal('42');
    expect(intern('')).to.equal('');
  });
});
