// A rehearsal of `npm run test:e2e` on a machine without a cluster: starts the local
// platform (test/support/platform.ts), points KUBECONFIG, DEN_E2E_BASE_URL and DEN_E2E_SSH
// at it and runs the e2e suite unchanged. It checks the e2e suite's own wiring (kubeconfig
// flattening, install check, clean-up); it proves nothing about a real cluster.
//   npx tsx test/e2e/rehearse.ts
import { spawn } from 'node:child_process';
import { SYSTEM_NAMESPACE } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { eventually, LocalPlatform, REPO_ROOT } from '../support/platform.js';

const platform = new LocalPlatform();
let code = 1;
try {
  await platform.start();
  const env = {
    ...process.env,
    KUBECONFIG: platform.kubeconfig,
    DEN_E2E_BASE_URL: platform.baseUrl,
    DEN_E2E_SSH: `${platform.ssh.host}:${platform.ssh.port}`,
    DEN_E2E_TIMEOUT: '30',
  };
  const mocha = spawn('npx', ['mocha', '--config', 'test/e2e/.mocharc.json'], { cwd: REPO_ROOT, env, stdio: 'inherit' });
  code = await new Promise<number>((resolve) => mocha.on('exit', (c) => resolve(c ?? 1)));
  // The suite must leave nothing behind on a shared cluster.
  const leftovers = () => [
    ...platform.api.objects(RESOURCES.userSpace).map((o) => `UserSpace ${o.metadata?.name}`),
    ...platform.api.objects(RESOURCES.workspaceImage).map((o) => `WorkspaceImage ${o.metadata?.name}`),
    ...platform.api.objects(RESOURCES.namespace).filter((o) => o.metadata?.name?.startsWith('svc-') && o.metadata.name !== SYSTEM_NAMESPACE).map((o) => `Namespace ${o.metadata?.name}`),
    ...platform.api.objects(RESOURCES.secret, SYSTEM_NAMESPACE).filter((o) => o.metadata?.name?.startsWith('local-user-')).map((o) => `Secret ${o.metadata?.name}`),
  ];
  await eventually(() => leftovers().length === 0, 'the e2e clean-up', 15_000).then(
    () => process.stdout.write('rehearsal: the e2e suite left nothing behind\n'),
    () => {
      process.stderr.write(`rehearsal: the e2e suite left behind: ${leftovers().join(', ')}\n`);
      code = 1;
    },
  );
} catch (err) {
  process.stderr.write(`rehearsal: ${(err as Error).message}\n`);
} finally {
  await platform.stop();
}
process.exitCode = code;
