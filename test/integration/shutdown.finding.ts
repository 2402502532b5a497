// FINDING (not in `npm test`; run with `npx mocha test/integration/shutdown.finding.ts`):
// every `den` process should exit 0 soon after SIGTERM when it has nothing left to finish,
// as a Deployment rollout or a developer's Ctrl-C expects. `den server` logs "stopped" at
// once but the process lingers for SHUTDOWN_GRACE_MS (10 s): server/role.ts races
// `closed` against `sleep(SHUTDOWN_GRACE_MS)` without a signal, and the pending timer keeps
// the event loop alive after everything else has closed.
import { expect } from 'chai';
import { LocalPlatform } from '../support/platform.js';

const PROMPT_EXIT_MS = 3_000;

describe('Den processes on SIGTERM', function () {
  this.timeout(60_000);
  const platform = new LocalPlatform();

  before(async () => {
    platform.suffix = 'sd';
    await platform.start();
  });

  after(async () => {
    await platform.stop();
  });

  for (const role of ['manager', 'server', 'gateway'] as const) {
    it(`den ${role} exits 0 within ${PROMPT_EXIT_MS / 1000} s of SIGTERM when idle`, async () => {
      const proc = platform.processes[role]!;
      const started = Date.now();
      const code = await proc.stop();
      const took = Date.now() - started;
      expect(code, proc.tail()).to.equal(0);
      expect(took, `den ${role} took ${took} ms to exit`).to.be.below(PROMPT_EXIT_MS);
    });
  }
});
