import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import { intern, internObject } from '../../kube/intern.js';

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
    const interned = heldBytes(() => Array.from({ length: 2000 }, (_, i) => internObject(parsed(i))));
    expect(apart).to.be.above(2000 * SCRIPT.length * 0.9);
    expect(interned).to.be.below(2 * 1024 * 1024);
  });

  it('leaves no copy behind the interned string: the object holds the one copy, not a forward to it', async function () {
    this.timeout(30_000);
    // V8 turns a string it internalizes into a forward to the table's copy (a ThinString) that
    // keeps its own heap object; a property still holding the forward keeps that object alive.
    const script = [
      "const { internObject } = await import('./kube/intern.ts');",
      "const { getHeapSnapshot } = await import('node:v8');",
      "const text = (i) => JSON.stringify({ apiVersion: ['den.dev', 'v1alpha1-intern-probe'].join('/'), metadata: { name: `ws${i}` } });",
      'let previous;',
      // One list page of 2,000 items parsed at once, as the informer reads a page.
      "const page = JSON.parse(`[${Array.from({ length: 2000 }, (_, i) => text(i)).join(',')}]`);",
      // By the time a large page is cached, the collector has moved its strings out of the young generation.
      'gc();',
      'globalThis.kept = page.map((item, i) => (previous = internObject(item, i % 2 ? previous : undefined)));',
      'const chunks = [];',
      'for await (const chunk of getHeapSnapshot()) chunks.push(chunk);',
      'const snap = JSON.parse(Buffer.concat(chunks).toString());',
      'const { node_fields, node_types } = snap.snapshot.meta;',
      "const [F, T, N] = [node_fields.length, node_fields.indexOf('type'), node_fields.indexOf('name')];",
      'let copies = 0;',
      "for (let i = 0; i < snap.nodes.length; i += F) if (node_types[0][snap.nodes[i + T]] === 'string' && snap.strings[snap.nodes[i + N]] === 'den.dev/v1alpha1-intern-probe') copies++;",
      'process.stdout.write(JSON.stringify({ copies, kept: globalThis.kept.length }));',
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], { cwd: new URL('../../', import.meta.url), maxBuffer: 1 << 20 });
    expect(JSON.parse(stdout)).to.deep.equal({ copies: 1, kept: 2000 });
  });

  it('changes no value: the object is deep-equal to what was parsed, names and numbers included', () => {
    const text = '{"metadata":{"name":"ws1","labels":{"42":"x","__proto__":"p"}},"spec":{"replicas":1,"running":true,"args":["a",["b",null]],"none":null,"odd":{"__proto__":{"polluted":true}}}}';
    const kept = internObject(JSON.parse(text) as Record<string, unknown>, JSON.parse(text));
    expect(kept).to.deep.equal(JSON.parse(text));
    expect(Object.getPrototypeOf((kept.metadata as { labels: object }).labels)).to.equal(Object.prototype);
    expect(Object.getPrototypeOf((kept.spec as { odd: object }).odd)).to.equal(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).to.equal(undefined);
    expect(intern('42')).to.equal('42');
    expect(intern('')).to.equal('');
  });
});

describe('cached objects sharing their equal parts', () => {
  // 2,000 StatefulSets as a list parses them: the same template but for the name.
  const statefulSet = (i: number) =>
    JSON.parse(
      JSON.stringify({
        metadata: { name: `ws${i}`, labels: { app: 'den' } },
        spec: { template: { spec: { containers: [{ name: 'dev', image: 'den/dev:1', env: Array.from({ length: 40 }, (_, e) => ({ name: `VAR_${e}`, value: `value ${e}` })) }] } } },
      }),
    ) as { metadata: { name: string; labels: object }; spec: { template: { spec: { containers: { env: object[] }[] } } } };

  it('hold what 2,000 objects have in common once when each is kept beside the one before it', () => {
    const apart = heldBytes(() => Array.from({ length: 2000 }, (_, i) => internObject(statefulSet(i))));
    const sharing = heldBytes(() => {
      const kept: unknown[] = [];
      for (let i = 0; i < 2000; i++) kept.push(internObject(statefulSet(i), kept[i - 1]));
      return kept;
    });
    expect(apart).to.be.above(2000 * 40 * 40);
    expect(sharing).to.be.below(apart / 5);
  });

  it('share the parts that are equal and keep those that differ', () => {
    const first = internObject(statefulSet(1));
    const second = internObject(statefulSet(2), first);
    expect(second.spec).to.equal(first.spec);
    expect(second.metadata.labels).to.equal(first.metadata.labels);
    expect(second.metadata).not.to.equal(first.metadata);
    expect(second.metadata.name).to.equal('ws2');
    const changed = statefulSet(1);
    changed.spec.template.spec.containers[0]!.env.push({ name: 'ONE_MORE', value: '1' });
    const third = internObject(changed, first);
    expect(third.spec.template.spec.containers[0]!.env).to.have.length(41);
    expect(third.spec.template.spec.containers[0]!.env[0]).to.equal(first.spec.template.spec.containers[0]!.env[0]);
    expect(internObject(statefulSet(1), first)).to.equal(first);
  });

  it('take a part a transform reused, from a cached object or twice in one object, as it is', () => {
    const cached = internObject(statefulSet(1));
    const twice = { tier: 'dev' };
    const reusing = { metadata: { name: 'ws2' }, spec: cached.spec, first: twice, second: twice };
    const kept = internObject(reusing, cached);
    expect(kept.spec).to.equal(cached.spec);
    expect(kept.second).to.equal(kept.first);
    expect(kept.first).to.deep.equal({ tier: 'dev' });
    expect(Object.isFrozen(kept.first)).to.equal(true);
  });

  it('are frozen: a reader that changes one in place fails at once instead of changing every object that shares it', () => {
    const kept = internObject(statefulSet(1));
    expect(() => {
      kept.metadata.name = 'other';
    }).to.throw(TypeError);
    expect(() => kept.spec.template.spec.containers[0]!.env.push({})).to.throw(TypeError);
    expect(kept.metadata.name).to.equal('ws1');
  });
});
