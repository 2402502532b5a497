import { expect } from 'chai';
import { dormancyStep } from '../../../hooks/workspace/dormancy.js';
import { dormancyNotice } from '../../../contract/dormancy.js';
import { syncWorkspace } from '../../../hooks/workspace/sync.js';
import type { Workspace } from '../../../hooks/workspace/types.js';
import { input, NOW, workspace } from './inputs.js';

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z');
const POLICY = { stopAfterDays: 14, deleteAfterDays: 7, home: 'Keep' as const };

/** A Workspace created 60 days ago whose last SSH session or terminal was `unusedDays` ago. */
function unused(unusedDays: number, running: boolean): Workspace {
  const base = workspace({ running });
  return { ...base, metadata: { ...base.metadata, creationTimestamp: daysAgo(60) }, status: { phase: running ? 'Running' : 'Suspended', lastActivityTime: daysAgo(unusedDays), dormancy: POLICY } } as Workspace;
}

describe('dormancy: workspaces unused for long are stopped, then deleted', () => {
  it('leaves a workspace used 10 days ago alone, and looks again by the time it is due', () => {
    const step = dormancyStep(unused(10, true), POLICY, NOW);
    expect(step.parentChange).to.equal(undefined);
    expect(step.parentDeletion).to.equal(undefined);
    expect(step.resyncAfterMs).to.equal(6 * 3_600_000);
  });

  it('stops a running workspace unused for 14 days, saying why and when it will be deleted', () => {
    const step = dormancyStep(unused(14, true), POLICY, NOW);
    expect(step.parentChange?.spec).to.deep.equal({ running: false });
    expect(step.parentChange?.annotations).to.deep.equal({ 'den.dev/stopped-by': 'dormancy' });
    expect(step.parentChange?.events?.[0]?.message).to.equal(
      'Stopped: unused for 14 days (no SSH session or browser terminal since 8 Nov 2026 (UTC)); this installation stops workspaces unused for 14 days. It will be deleted on 29 Nov 2026 (UTC) unless started before then. The home volume is kept.',
    );
  });

  it('deletes a stopped workspace unused for 21 days and keeps its home, or deletes the home where the policy says so', () => {
    const kept = dormancyStep(unused(21, false), POLICY, NOW);
    expect(kept.parentDeletion?.claims).to.deep.equal([]);
    expect(kept.parentDeletion?.events?.[0]?.message).to.match(/^Deleted workspace alice-dev: unused for 21 days .*Its home volume home-alice-dev-0 is kept: a new workspace named alice-dev finds it\.$/);
    const gone = dormancyStep(unused(21, false), { ...POLICY, home: 'Delete' }, NOW);
    expect(gone.parentDeletion?.claims).to.deep.equal(['home-alice-dev-0']);
  });

  it('stops before it deletes: a workspace still running after 21 days is stopped first', () => {
    expect(dormancyStep(unused(21, true), POLICY, NOW).parentChange?.spec).to.deep.equal({ running: false });
  });

  it('does nothing without a policy, and never deletes without deleteAfterDays', () => {
    expect(dormancyStep(unused(400, true), undefined, NOW)).to.deep.equal({});
    expect(dormancyStep(unused(400, false), { stopAfterDays: 14 }, NOW)).to.deep.equal({});
  });

  it('tells the person on the page a week beforehand', () => {
    expect(dormancyNotice(unused(6, true), NOW.getTime())).to.equal(undefined);
    expect(dormancyNotice(unused(12, true), NOW.getTime())).to.equal('Unused for 12 days; will be stopped on 24 Nov 2026 (UTC) unless used (open an SSH session or the browser terminal).');
    expect(dormancyNotice(unused(16, false), NOW.getTime())).to.equal('Unused for 16 days; will be deleted on 27 Nov 2026 (UTC) (its home volume is kept) unless started before then.');
  });

  it('the hook writes the policy into status.dormancy, and a stop comes out of the sync as a parent change', () => {
    const run = syncWorkspace({ ...input({ parent: unused(15, true) }), config: { gatewayHost: 'den.example.com', idleStop: false, dormancy: POLICY } });
    expect(run.parentChange?.spec).to.deep.equal({ running: false });
    const fresh = syncWorkspace({ ...input({ parent: unused(1, true) }), config: { gatewayHost: 'den.example.com', idleStop: false, dormancy: POLICY } });
    expect(fresh.status.dormancy).to.deep.equal(POLICY);
  });
});
