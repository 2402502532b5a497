// The same journey as test/integration/platform.test.ts, against the real cluster named by
// KUBECONFIG (docs/testing.md lists what it needs). Skipped, and says so, without one.
import { cleanUpJourney, journeyNames, platformJourney } from '../integration/journey.js';
import { ClusterEnvironment, readE2eSettings } from './cluster.js';

describe('Den on the cluster named by KUBECONFIG: a person from sign-up to SSH and back', function () {
  let env: ClusterEnvironment | undefined;

  before(async function () {
    if (!process.env.KUBECONFIG) {
      console.log('e2e skipped: KUBECONFIG is not set');
      this.skip();
    }
    env = await new ClusterEnvironment(readE2eSettings(process.env)).connect();
    console.log(`  run suffix ${env.suffix}; server ${env.baseUrl}; gateway ${env.ssh.host}:${env.ssh.port}; image ${env.workspaceImage}`);
  });

  after(async function () {
    if (!env) return;
    if (env.settings.keep) console.log(`  DEN_E2E_KEEP: left the objects of run ${env.suffix} in the cluster`);
    else {
      const problems = await cleanUpJourney(env, journeyNames(env.suffix));
      for (const p of problems) console.log(`  clean-up: ${p}`);
    }
    await env.close();
  });

  platformJourney(() => env!);
});
