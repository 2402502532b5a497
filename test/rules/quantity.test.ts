// Kubernetes quantities have one home, kube/quantity.ts: its grammar (apimachinery's, the
// CRDs' pattern) and the amount a person may ask for (zero or more, written without a minus
// sign: isNonNegativeQuantity). apimachinery's own cases are fed here to every reader, and
// each must answer as the rule does: the CRD schemas as kube-apiserver (Go) and the fake API
// server (ajv) read them, the REST schemas and the OpenAPI description that states them, the
// install settings, the webhook and the UserSpace hook.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { parseResources } from '../../hooks/admission/workspace-resources.js';
import type { Violation } from '../../hooks/admission/violations.js';
import { planUserSpace } from '../../hooks/userspace/validate.js';
import { addQuantities, formatQuantity, isNonNegativeQuantity, parseQuantity, QUANTITY_PATTERN, tryParseQuantity } from '../../kube/quantity.js';
import { createWorkspaceRequest, quotaRequest } from '../../server/api/schemas.js';
import { userSpace } from '../hooks/userspace/inputs.js';
import { KEY } from '../server/api/support.js';
import { buildGoTool, type GoTool } from '../support/go.js';
import { crdField, disagreements, installAccepts, openApiField, restAccepts, schemaCheck } from './callers.js';
import { APIMACHINERY_INVALID, APIMACHINERY_VALID } from './quantity-cases.js';

const SIGNED_VALID = APIMACHINERY_VALID.flatMap((q) => [q, `-${q}`, `+${q}`]);
/** Every case: apimachinery's, each valid one with either sign, and the `1.2.3` an install setting once took. */
const ALL = [...SIGNED_VALID, ...APIMACHINERY_INVALID, '1.2.3'];
const isQuantity = (v: string) => tryParseQuantity(v) !== undefined;

const webhookAdmits = (value: string | number) => {
  const violations: Violation[] = [];
  parseResources({ requests: { cpu: value } }, violations);
  return violations.length === 0;
};
const hookTakes = (value: string | number) => {
  const plan = planUserSpace(userSpace({ spec: { quota: { cpu: value, memory: '8Gi', storage: '50Gi', gpu: 0, workspaces: 3 } } }), []);
  return plan.ok || !plan.problems.some((p) => p.startsWith('spec.quota.cpu'));
};

describe('Kubernetes quantities, fed alike to every reader of one', function () {
  this.timeout(60_000);
  let go: GoTool;
  before(() => {
    go = buildGoTool('regexcheck');
  });
  after(() => go?.dispose());

  /** Go's regexp (kube-apiserver's) verdict on each value for the CRDs' quantity pattern. */
  function goAccepts(values: string[]): (value: string) => boolean {
    const [answer] = JSON.parse(execFileSync(go.binary, { input: JSON.stringify([{ pattern: QUANTITY_PATTERN, values }]) }).toString('utf8')) as { error: string; matches: boolean[] }[];
    expect(answer!.error, 'Go refuses the pattern').to.equal('');
    return (value) => answer!.matches[values.indexOf(value)]!;
  }

  it('reads as a quantity exactly what apimachinery reads, with either sign', () => {
    expect(SIGNED_VALID.filter((q) => !isQuantity(q)), 'apimachinery accepts, Den refuses').to.deep.equal([]);
    expect([...APIMACHINERY_INVALID, '1.2.3'].filter(isQuantity), 'apimachinery refuses, Den accepts').to.deep.equal([]);
  });

  it('is the pattern of every quantity field of the CRDs, in Go as kube-apiserver reads it and in ajv as the fake API server does', () => {
    expect(disagreements(ALL, isQuantity, goAccepts(ALL)), 'Go').to.deep.equal([]);
    const fields: [string, string[]][] = [
      ['UserSpace', ['spec', 'quota', 'cpu']],
      ['Workspace', ['spec', 'storage']],
      ['Workspace', ['spec', 'resources', 'requests']],
    ];
    for (const [kind, path] of fields) {
      const field = crdField(kind, path) as { additionalProperties?: object };
      const check = schemaCheck(field.additionalProperties ?? field);
      expect(disagreements(ALL, isQuantity, check), `${kind} ${path.join('.')}`).to.deep.equal([]);
    }
  });

  describe('an amount a person asks for: a quantity of zero or more, without a minus sign', () => {
    it('is what the rule says: every unsigned or plus-signed quantity, no minus-signed one, not even -0', () => {
      expect(ALL.filter(isNonNegativeQuantity)).to.deep.equal(SIGNED_VALID.filter((q) => !q.startsWith('-')));
    });

    it('is the cpu, memory and storage REST takes and the OpenAPI description states, for a workspace and a quota', () => {
      const workspace = (cpu: string) => ({ name: 'dev', image: 'ubuntu', storage: '10Gi', cpu, ssh_public_key: KEY });
      expect(disagreements(ALL, isNonNegativeQuantity, (v) => restAccepts(createWorkspaceRequest, workspace(v))), 'REST workspace').to.deep.equal([]);
      expect(disagreements(ALL, isNonNegativeQuantity, (v) => restAccepts(quotaRequest, { cpu: v })), 'REST quota').to.deep.equal([]);
      expect(disagreements(ALL, isNonNegativeQuantity, openApiField('CreateWorkspaceRequest', 'cpu')), 'OpenAPI workspace').to.deep.equal([]);
      expect(disagreements(ALL, isNonNegativeQuantity, openApiField('QuotaRequest', 'storage')), 'OpenAPI quota').to.deep.equal([]);
    });

    it('is what the install settings take as a process’s requests and limits', () => {
      const config = (q: string) => `manager:\n  resources:\n    requests:\n      cpu: ${JSON.stringify(q)}\n`;
      expect(disagreements(ALL, isNonNegativeQuantity, (v) => installAccepts(config(v)))).to.deep.equal([]);
    });

    it('is what the webhook admits in a workspace’s spec.resources', () => {
      expect(disagreements(ALL, isNonNegativeQuantity, webhookAdmits)).to.deep.equal([]);
    });

    it('is what the UserSpace hook takes as a quota', () => {
      expect(disagreements(ALL, isNonNegativeQuantity, hookTakes)).to.deep.equal([]);
    });

    it('is, as a JSON number (int-or-string fields allow one), zero or more, in the rule, the webhook and the hook', () => {
      const numbers = [0, -0, 1, 0.5, 4096, 1e21, -1, -0.5];
      const zeroOrMore = (n: number) => n >= 0;
      expect(disagreements(numbers, zeroOrMore, isNonNegativeQuantity), 'the rule').to.deep.equal([]);
      expect(disagreements(numbers, zeroOrMore, webhookAdmits), 'the webhook').to.deep.equal([]);
      expect(disagreements(numbers, zeroOrMore, hookTakes), 'the UserSpace hook').to.deep.equal([]);
    });
  });

  it('writes sums the CRD pattern accepts and that read back as the same amount', () => {
    const plain = APIMACHINERY_VALID.filter((q) => !q.includes('e') && !q.includes('E') && parseQuantity(q).num >= 0n);
    const sums = plain.flatMap((a, i) => [plain[(i * 7) % plain.length]!, plain[(i * 13 + 5) % plain.length]!].map((b) => addQuantities(parseQuantity(a), parseQuantity(b))));
    const written = sums.map(formatQuantity);
    const goTakes = goAccepts(written);
    expect(written.filter((w) => !goTakes(w))).to.deep.equal([]);
    for (const [i, text] of written.entries()) {
      const back = parseQuantity(text);
      expect(back.num * sums[i]!.den, text).to.equal(sums[i]!.num * back.den);
    }
  });
});
