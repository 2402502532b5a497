// Every `den` process exits 0 soon after SIGTERM when it has nothing left to finish, as a
// Deployment rollout or a developer's Ctrl-C expects (a pending grace timer once kept
// `den server` alive for its full 10 s shutdown grace).
import { expect } from 'chai';
import { eventually, LocalPlatform, type DenProcess } from '../support/platform.js';

// Well under the 10 s shutdown grace that a pending timer would make it wait.
const PROMPT_EXIT_MS = 8_000;

/** A platform started before the suite's tests and stopped after them. */
function platformFor(suffix: string): LocalPlatform {
  const platform = new LocalPlatform();
  before(async () => {
    platform.suffix = suffix;
    await platform.start();
  });
  after(async () => {
    await platform.stop();
  });
  return platform;
}

async function expectPromptExit(proc: DenProcess): Promise<void> {
  const started = Date.now();
  const code = await proc.stop();
  const took = Date.now() - started;
  expect(code, proc.tail()).to.equal(0);
  expect(took, `den ${proc.name} took ${took} ms to exit`).to.be.below(PROMPT_EXIT_MS);
}

describe('Den processes on SIGTERM', function () {
  this.timeout(60_000);
  const platform = platformFor('sd');

  for (const role of ['manager', 'server', 'gateway'] as const) {
    it(`den ${role} exits 0 within ${PROMPT_EXIT_MS / 1000} s of SIGTERM when idle, every replica`, async () => {
      for (const proc of platform.replicasOf(role)) await expectPromptExit(proc);
    });
  }
});

describe('den manager on SIGTERM while the API server holds its lists unanswered', function () {
  this.timeout(60_000);
  const platform = platformFor('sl');

  it(`exits 0 within ${PROMPT_EXIT_MS / 1000} s, abandoning the lists rather than waiting out their 30 s timeout`, async () => {
    const { api } = platform;
    const heldLists = () => api.requests.filter((r) => r.method === 'GET' && r.user.includes('den-manager') && /[?&]limit=/.test(r.query) && !/[?&]watch=/.test(r.query)).length;
    const before = heldLists();
    api.slowDown('GET', /[?&]limit=(?!.*[?&]watch=)/, 60_000);
    // Watches ended and their resourceVersion compacted away: every cache lists again.
    api.compact();
    api.dropWatches();
    await eventually(() => heldLists() >= before + 2, 'the manager listing again after its watches ended', 10_000, 50);
    for (const proc of platform.replicasOf('manager')) await expectPromptExit(proc);
  });
});
