// mocha global fixtures (.mocharc `require`): the run's main process serves the shared real API
// server to the workers and stops it when the run ends.
import { COORDINATOR_ENV, serveCoordinator, sharedHolder } from './shared.js';

const holder = sharedHolder();
let coordinator: { close(): Promise<void> } | undefined;

export async function mochaGlobalSetup(): Promise<void> {
  const served = await serveCoordinator(holder);
  coordinator = served;
  process.env[COORDINATOR_ENV] = served.url;
}

export async function mochaGlobalTeardown(): Promise<void> {
  await holder.stop();
  await coordinator?.close();
}
