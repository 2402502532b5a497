// The person's journey through the whole platform, written once and run in two places:
// on this machine against the real `den` processes and a fake API server
// (platform.test.ts) and against a real cluster (test/e2e/platform.e2e.ts). Every step
// asserts what a person notices: an exit code and a line from `den users add`, a REST
// status and message, an object in the cluster, bytes and an exit code over SSH.
// The steps by stage: journey-people.ts, journey-workspace.ts, journey-access.ts,
// journey-lifecycle.ts, sharing the state below; REST and SSH as a script uses them in rest.ts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isNotFound } from '../../kube/errors.js';
import { SYSTEM_NAMESPACE, homeClaimName, userNamespace } from '../../kube/group.js';
import { RESOURCES, type ResourceType } from '../../kube/resources.js';
import type { PlatformEnvironment } from '../support/platform.js';
import { accessSteps } from './journey-access.js';
import { lifecycleSteps } from './journey-lifecycle.js';
import { peopleSteps } from './journey-people.js';
import { workspaceSteps } from './journey-workspace.js';
import { Rest } from './rest.js';
import { journeyNames, type Json, type JourneyNames, type JourneyState } from './journey-state.js';

export { journeyNames, type JourneyNames, type JourneyState } from './journey-state.js';

const execFileAsync = promisify(execFile);

/**
 * Defines the journey's steps (mocha `it`s, in order, each relying on the ones before) in
 * the caller's `describe`. `getEnv` is called once the caller's `before` has run.
 */
export function platformJourney(getEnv: () => PlatformEnvironment): void {
  let keys = '';
  const s = {
    cluster: <T = Json>(t: ResourceType, name: string, namespace?: string) => s.env.admin.get<T>(t, name, namespace),
    aliceNs: () => userNamespace(s.names.alice),
    diagnose: async (step: () => Promise<void>) => {
      try {
        await step();
      } catch (err) {
        const said = await s.env.diagnostics().catch((e: Error) => `(could not collect: ${e.message})`);
        if (said && err instanceof Error) err.message += `\n--- what the platform said ---\n${said}`;
        throw err;
      }
    },
  } as JourneyState;

  before(async () => {
    s.env = getEnv();
    s.names = journeyNames(s.env.suffix);
    s.rest = new Rest(s.env.baseUrl);
    keys = await mkdtemp(join(tmpdir(), 'den-journey-keys-'));
    const keygen = async (name: string) => {
      const file = join(keys, name);
      await execFileAsync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${name}@journey`, '-f', file]);
      return { file, publicKey: (await readFile(`${file}.pub`, 'utf8')).trim() };
    };
    s.aliceKey = await keygen('alice');
    s.otherKey = await keygen('other');
  });

  after(async () => {
    if (keys) await rm(keys, { recursive: true, force: true });
  });

  // Each step stands on the ones before: after the first failure the rest would only repeat
  // it (each after a full wait), so they are skipped and the first failure stays readable.
  let failedStep: string | undefined;
  let toldWhy = false;
  beforeEach(function () {
    if (!failedStep) return;
    if (!toldWhy) console.log(`    (the steps below are skipped: "${failedStep}" failed)`);
    toldWhy = true;
    this.skip();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failedStep ??= this.currentTest.title;
  });

  peopleSteps(s);
  workspaceSteps(s);
  accessSteps(s);
  lifecycleSteps(s);
}

/** Removes what a journey created (for real clusters; best effort, each failure reported). */
export async function cleanUpJourney(env: PlatformEnvironment, names: JourneyNames): Promise<string[]> {
  const problems: string[] = [];
  const attempt = async (what: string, op: () => Promise<unknown>) => {
    try {
      await op();
    } catch (err) {
      if (!isNotFound(err)) problems.push(`${what}: ${(err as Error).message}`);
    }
  };
  const ns = userNamespace(names.alice);
  for (const ws of [names.workspace, `${names.workspace}-bad`, `${names.workspace}-big`, `${names.workspace}-ro`, `${names.workspace}-broken`]) {
    await attempt(`Workspace ${ws}`, () => env.admin.delete(RESOURCES.workspace, ws, ns));
    await attempt(`PVC ${homeClaimName(ws)}`, () => env.admin.delete(RESOURCES.persistentVolumeClaim, homeClaimName(ws), ns));
  }
  for (const entry of [names.image, `${names.image}-broken`]) {
    await attempt(`WorkspaceImage ${entry}`, () => env.admin.delete(RESOURCES.workspaceImage, entry));
  }
  for (const person of [names.admin, names.alice, names.bob]) {
    await attempt(`UserSpace ${person}`, () => env.admin.delete(RESOURCES.userSpace, person));
    await attempt(`local user ${person}`, () => env.admin.delete(RESOURCES.secret, `local-user-${person}`, SYSTEM_NAMESPACE));
  }
  return problems;
}
