// The human table of den ls (cli/dev/workspaces.ts), as pure functions.
import { expect } from 'chai';
import { workspaceTable } from '../../../cli/dev/workspaces.js';

const now = Date.parse('2026-01-02T03:00:00Z');
const ws = (name: string, namespace: string, over: Record<string, any> = {}) => ({
  metadata: { name, namespace, creationTimestamp: '2026-01-02T01:00:00Z' },
  spec: { imageRef: { name: 'ubuntu' }, running: true, storage: '10Gi' },
  status: { phase: 'Running', endpoint: `${name}@ssh.example.com` },
  ...over,
});

describe('den ls table', () => {
  it('lines the columns up, without colour codes when colour is off', () => {
    const text = workspaceTable([ws('dev', 'svc-alice'), ws('notebook', 'svc-alice', { spec: { imageRef: { name: 'py' }, running: false }, status: { phase: 'Suspended' } })], now, false);
    expect(text).to.equal(
      [
        'NAME      PHASE      RUNNING  IMAGE   CPU  MEMORY  STORAGE  SSH                  AGE',
        'dev       Running    yes      ubuntu               10Gi     dev@ssh.example.com  2h',
        'notebook  Suspended  no       py                                                 2h',
        '',
      ].join('\n'),
    );
  });

  it("adds whose workspace it is when an administrator's list spans namespaces", () => {
    const lines = workspaceTable([ws('dev', 'svc-alice'), ws('dev', 'svc-bob')], now, false).split('\n');
    expect(lines.map((l) => l.split(/\s+/).slice(0, 2).join(' '))).to.deep.equal(['NAMESPACE NAME', 'svc-alice dev', 'svc-bob dev', '']);
  });

  it('makes the header bold on a colour terminal', () => {
    expect(workspaceTable([ws('dev', 'svc-alice')], now, true).startsWith('\u001b[1mNAME')).to.equal(true);
  });
});
