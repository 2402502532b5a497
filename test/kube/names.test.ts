import { expect } from 'chai';
import { ANNOTATIONS, LABELS } from '../../kube/group.js';
import { byCodePoint, dns1035LabelProblems, dns1123LabelProblems, labelValueProblems, metadataProblems, qualifiedNameProblems } from '../../kube/names.js';
import { POD_SECURITY_LABELS } from '../../hooks/userspace/children/namespace.js';
import { commonLabels, componentLabels, selectorLabels } from '../../contract/names.js';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';
import { renderInstall } from '../../infra/install/synth.js';
import { STATE_KIND_LABEL } from '../../server/auth/state.js';

// The good and bad values of k8s.io/apimachinery/pkg/util/validation's own tests
// (TestIsQualifiedName, TestIsValidLabelValue, TestIsDNS1035Label).
describe('Kubernetes names and labels, as kube-apiserver checks them', () => {
  const qualifiedGood = ['simple', 'now-with-dashes', '1-starts-with-num', '1234', 'simple/simple', 'now-with-dashes/simple', 'now-with-dashes/now-with-dashes', 'now.with.dots/simple', 'now-with.dashes-and.dots/simple', '1-num.2-num/3-num', '1234/5678', '1.2.3.4/5678', 'Uppercase_Is_OK_123', 'example.com/Uppercase_Is_OK_123', 'requests.storage-foo', 'a'.repeat(63), `${'a'.repeat(253)}/${'b'.repeat(63)}`];
  const qualifiedBad = ['nospecialchars%^=@', 'cantendwithadash-', '-cantstartwithadash-', 'only/one/slash', 'Example.com/abc', 'example_com/abc', 'example.com/', '/simple', 'a'.repeat(64), `${'a'.repeat(254)}/abc`];
  for (const key of qualifiedGood) it(`accepts the key ${JSON.stringify(key.length > 40 ? `${key.slice(0, 20)}…` : key)}`, () => expect(qualifiedNameProblems(key)).to.deep.equal([]));
  for (const key of qualifiedBad) it(`refuses the key ${JSON.stringify(key.length > 40 ? `${key.slice(0, 20)}…` : key)}`, () => expect(qualifiedNameProblems(key)).to.not.deep.equal([]));

  const valueGood = ['simple', 'now-with-dashes', '1-starts-with-num', 'end-with-num-1', '1234', 'a'.repeat(63), '', 'A.B.C', 'a-b_c.d'];
  const valueBad = ['nospecialchars%^=@', 'Tama-nui-te-rā.is.Māori.sun', '\\backslashes\\are\\bad', '-starts-with-dash', 'ends-with-dash-', '.starts.with.dot', 'ends.with.dot.', 'a'.repeat(64), 'alice@example.com'];
  for (const value of valueGood) it(`accepts the label value ${JSON.stringify(value)}`, () => expect(labelValueProblems(value)).to.deep.equal([]));
  for (const value of valueBad) it(`refuses the label value ${JSON.stringify(value.slice(0, 30))}`, () => expect(labelValueProblems(value)).to.not.deep.equal([]));

  it('tells a Service name (DNS-1035, a letter first) from a namespace name (DNS-1123)', () => {
    for (const good of ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', 'a'.repeat(63)]) expect(dns1035LabelProblems(good), good).to.deep.equal([]);
    for (const bad of ['0', '01', '012', '1a', '1-1', 'a.a', 'A', 'a-', '-a', 'a'.repeat(64)]) expect(dns1035LabelProblems(bad), bad).to.not.deep.equal([]);
    expect(dns1123LabelProblems('1dev')).to.deep.equal([]);
    expect(dns1035LabelProblems('1dev')).to.deep.equal([
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });

  it('words a refusal as kube-apiserver does, field and value first', () => {
    expect(metadataProblems({ labels: { 'den.dev/owner': 'alice@example.com' } })).to.deep.equal([
      `metadata.labels: Invalid value: "alice@example.com": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ]);
    expect(metadataProblems({ annotations: { 'den.dev/requester': 'alice@example.com', 'bad key': 'x' } })).to.have.length(1);
    expect(metadataProblems({ annotations: { big: 'x'.repeat(256 * 1024) } })).to.deep.equal(['metadata.annotations: Too long: must have at most 262144 bytes']);
  });

  it('accepts every label and annotation key Den writes, and the label values it writes as constants', () => {
    const labels = { ...commonLabels(), ...componentLabels('manager', '1.2.3'), ...selectorLabels('gateway'), ...POD_SECURITY_LABELS };
    expect(metadataProblems({ labels })).to.deep.equal([]);
    for (const key of [...Object.values(LABELS), STATE_KIND_LABEL]) expect(qualifiedNameProblems(key), key).to.deep.equal([]);
    for (const key of Object.values(ANNOTATIONS)) expect(qualifiedNameProblems(key), key).to.deep.equal([]);
  });

  it('accepts the labels and annotations of every object in the install chart', () => {
    for (const obj of renderInstall(DEFAULT_SETTINGS) as { kind: string; metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> } }[]) {
      expect(metadataProblems(obj.metadata), `${obj.kind} ${obj.metadata.name}`).to.deep.equal([]);
    }
  });
});

describe('byCodePoint', () => {
  it('orders as Go\'s sort.Strings does: by code point, capitals before small letters, punctuation before digits', () => {
    expect(['b', 'a1', 'B', 'a.1', 'a-1', 'svc-ws10/ws10', 'svc-ws1/ws1'].sort(byCodePoint)).to.deep.equal(['B', 'a-1', 'a.1', 'a1', 'b', 'svc-ws1/ws1', 'svc-ws10/ws10']);
    expect(byCodePoint('same', 'same')).to.equal(0);
  });
});
