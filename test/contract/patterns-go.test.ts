import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { denCrds } from '../../contract/index.js';
import { DURATION_PATTERN } from '../../contract/schema.js';
import { QUANTITY_PATTERN } from '../../kube/quantity.js';
import { buildGoTool, type GoTool } from '../support/go.js';
import { APIMACHINERY_INVALID, APIMACHINERY_VALID } from '../rules/quantity-cases.js';

/** Every `pattern` in a schema, with the path it is at. */
function patternsOf(schema: unknown, path: string, out: [string, string][]): [string, string][] {
  if (Array.isArray(schema)) schema.forEach((s, i) => patternsOf(s, `${path}[${i}]`, out));
  else if (schema && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'pattern' && typeof v === 'string') out.push([path, v]);
      else patternsOf(v, `${path}.${k}`, out);
    }
  }
  return out;
}

describe("schema patterns, as kube-apiserver's Go code reads them", function () {
  this.timeout(180_000);
  let go: GoTool;
  before(() => {
    go = buildGoTool('regexcheck');
  });
  after(() => go?.dispose());

  /** Go's regexp answer for each pattern and its values; the compile error of a pattern Go refuses. */
  function goMatches(queries: { pattern: string; values: string[] }[]): { error: string; matches: boolean[] }[] {
    return JSON.parse(execFileSync(go.binary, { input: JSON.stringify(queries) }).toString('utf8'));
  }

  // Values the patterns meet: what Den writes (condition reasons) and what people type.
  const SAMPLES: Record<string, string[]> = {
    [QUANTITY_PATTERN]: [...APIMACHINERY_VALID, ...APIMACHINERY_INVALID],
    [DURATION_PATTERN]: ['4h', '90m', '1h30m', '1.5h', '300ms', '2µs', '1us', '10ns', '0s', '1d', 'h', '1 h', '-1h', '1h ', ''],
    '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$': ['APIServerUnresolved', 'ApplyFailed', 'AsExpected', 'ChildrenMissing', 'ChildrenReady', 'Creating', 'DisabledByLabel', 'Enabled', 'ImageNotFound', 'InvalidSpec', 'NamespaceTerminating', 'NoImageRef', 'PodFailed', 'PodNotCreated', 'PodNotReady', 'PodReady', 'PodRestarting', 'PodStarting', 'Resolved', 'Stopping', 'Suspended', 'Unschedulable', 'Bad Reason', '1Ready', ''],
  };

  it('compiles every pattern of the den.dev CRDs with Go, and matches the samples as the fake API server does', () => {
    const found = denCrds().flatMap((crd) => patternsOf(crd.spec, crd.metadata.name, []));
    expect(found.length).to.be.greaterThan(3);
    const queries = found.map(([, pattern]) => ({ pattern, values: SAMPLES[pattern] ?? [] }));
    const answers = goMatches(queries);
    for (const [i, [path, pattern]] of found.entries()) {
      expect(answers[i]!.error, `${path}: Go refuses ${pattern}`).to.equal('');
      const js = queries[i]!.values.map((v) => new RegExp(pattern).test(v));
      expect(js, `${path}: JavaScript and Go disagree on ${pattern}`).to.deep.equal(answers[i]!.matches);
    }
    for (const pattern of Object.keys(SAMPLES)) expect(found.map(([, p]) => p), 'a sampled pattern is no longer in the CRDs').to.include(pattern);
  });
});
