import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { denCrds } from '../../infra/crds/index.js';
import { DURATION_PATTERN } from '../../infra/crds/schema.js';
import { InstallSettingsError, settingsOfConfig } from '../../infra/install/settings.js';
import { addQuantities, formatQuantity, parseQuantity, QUANTITY_PATTERN, QuantityError } from '../../kube/quantity.js';
import { quantity } from '../../server/api/fields.js';
import { exact, validate } from '../../server/http/validate.js';
import { HttpError } from '../../koa/errors.js';
import { buildGoTool, type GoTool } from '../support/go.js';

// Quantities from k8s.io/apimachinery/pkg/api/resource's TestQuantityParse: what ParseQuantity
// (kube-apiserver, the kubelet) accepts and what it refuses. Go's resource package cannot be
// built from the standard library alone, so its grammar is pinned by its own test cases.
const APIMACHINERY_VALID = [
  '0', '0n', '0u', '0m', '0Ki', '0k', '0Mi', '0M', '0Gi', '0G', '0Ti', '0T', '1', '1Ki', '8Ki', '7Mi', '6Gi', '5Ti', '4Pi', '3Ei', '10Ti', '100Ti',
  '5n', '4u', '3m', '9', '8k', '50k', '7M', '6G', '5T', '40T', '300T', '2P', '1E', '1E-3', '1e3', '1E6', '1e9', '1E12', '1e15', '1E18', '1e14', '1e13',
  '100.035k', '0.001', '0.0005k', '0.005', '0.05', '0.5', '0.00050k', '0.00500', '0.05000', '0.50000', '0.5e0', '0.5e-1', '0.5e-2', '10.035M',
  '1.2e3', '1.3E+6', '1.40e9', '1.53E12', '1.6e15', '1.7E18', '9.01', '8.1k', '7.123456M', '6.987654321G', '5.444T', '40.1T', '300.2T', '2.5P', '1.01E',
  '3.001n', '1.1E-9', '0.0000000001', '0.0000000005', '0.00000000050', '0.5e-9', '0.9n', '0.00000012345', '0.00000012354', '9Ei', '9223372036854775807Ki', '12E',
  '100.035Ki', '0.5Mi', '0.05Gi', '0.025Ti', '0.000000000001Ki', '.001', '.0001k', '1.', '1.G',
];
const APIMACHINERY_INVALID = ['1.1.M', '1+1.0M', '0.1mi', '0.1am', 'aoeu', '.5i', '1i', '-3.01i', '-3.01e-', ' 1', '1 ', '', '1K', '1ki', '1KI', '1KiB', '1Zi', '1e', '1e+', '1e3k', '1E3Ki', '1..5', '1,5', '0x10', 'Inf', 'NaN', '++1', '1-'];

/** Whether the REST schemas take `q` as a quantity field (cpu, memory, storage). */
function restAccepts(q: string): boolean {
  try {
    validate(exact({ cpu: quantity() }), { cpu: q });
    return true;
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) return false;
    throw err;
  }
}

/** Whether an install configuration file may ask for `q` as a process's CPU request. */
function installAccepts(q: string): boolean {
  try {
    settingsOfConfig(`manager:\n  resources:\n    requests:\n      cpu: ${JSON.stringify(q)}\n`, 'den.config.yaml');
    return true;
  } catch (err) {
    if (err instanceof InstallSettingsError) return false;
    throw err;
  }
}

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

describe("schema patterns and quantities, as kube-apiserver's Go code reads them", function () {
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

  it('accepts every quantity apimachinery accepts: in Den, in the CRD pattern, in the REST schema and in the install settings', () => {
    const signed = APIMACHINERY_VALID.flatMap((q) => [q, `-${q}`, `+${q}`]);
    const [answer] = goMatches([{ pattern: QUANTITY_PATTERN, values: signed }]);
    expect(signed.filter((_, i) => !answer!.matches[i]), 'the CRD pattern refuses').to.deep.equal([]);
    const refusedByDen = signed.filter((q) => {
      try {
        parseQuantity(q);
        return false;
      } catch (err) {
        if (err instanceof QuantityError) return true;
        throw err;
      }
    });
    expect(refusedByDen).to.deep.equal([]);
    expect(APIMACHINERY_VALID.filter((q) => !restAccepts(q)), 'the REST schema refuses').to.deep.equal([]);
    expect(APIMACHINERY_VALID.filter((q) => !installAccepts(q)), 'the install settings refuse').to.deep.equal([]);
    const negative = APIMACHINERY_VALID.filter((q) => parseQuantity(q).num !== 0n).map((q) => `-${q}`);
    expect(negative.filter((q) => restAccepts(q) || installAccepts(q)), 'an amount below zero is taken').to.deep.equal([]);
  });

  it('refuses every quantity apimachinery refuses: in Den, in the CRD pattern, in the REST schema and in the install settings', () => {
    const [answer] = goMatches([{ pattern: QUANTITY_PATTERN, values: APIMACHINERY_INVALID }]);
    expect(APIMACHINERY_INVALID.filter((_, i) => answer!.matches[i]), 'the CRD pattern accepts').to.deep.equal([]);
    expect(APIMACHINERY_INVALID.filter((q) => restAccepts(q)), 'the REST schema accepts').to.deep.equal([]);
    expect([...APIMACHINERY_INVALID, '1.2.3'].filter((q) => installAccepts(q)), 'the install settings accept').to.deep.equal([]);
    for (const q of APIMACHINERY_INVALID) expect(() => parseQuantity(q), JSON.stringify(q)).to.throw(QuantityError);
  });

  it('writes sums the CRD pattern accepts and that read back as the same amount', () => {
    const plain = APIMACHINERY_VALID.filter((q) => !q.includes('e') && !q.includes('E') && parseQuantity(q).num >= 0n);
    const sums = plain.flatMap((a, i) => [plain[(i * 7) % plain.length]!, plain[(i * 13 + 5) % plain.length]!].map((b) => addQuantities(parseQuantity(a), parseQuantity(b))));
    const written = sums.map(formatQuantity);
    const [answer] = goMatches([{ pattern: QUANTITY_PATTERN, values: written }]);
    expect(written.filter((_, i) => !answer!.matches[i])).to.deep.equal([]);
    for (const [i, text] of written.entries()) {
      const back = parseQuantity(text);
      expect(back.num * sums[i]!.den, text).to.equal(sums[i]!.num * back.den);
    }
  });
});
