// Every `den` process exits 0 soon after SIGTERM when it has nothing left to finish, as a
// Deployment rollout or a developer's Ctrl-C expects (a pending grace timer once kept
// `den server` alive for its full 10 s shutdown grace).
import { expect } from 'chai';
import { LocalPlatform } from '../support/platform.js';

// Well under the 10 s shutdown grace that a pending timer would make it wait.
const PROMPT_EXIT_MS = 8_000;

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
    it(`den ${role} exits 0 within ${PROMPT_EXIT_MS / 1000} s of SIGTERM when idle, every replica`, async () => {
      for (const proc of platform.replicasOf(role)) {
        const started = Date.now();
        const code = await proc.stop();
        const took = Date.now() - started;
        expect(code, proc.tail()).to.equal(0);
        expect(took, `den ${proc.name} took ${took} ms to exit`).to.be.below(PROMPT_EXIT_MS);
      }
    });
  }
});
