// A Den with one running workspace whose "pod" is this machine: the fake API server's
// pods/portforward connects pod port 3000 to the test HTTP app and 3001 to the websocket
// echo app (test/server/preview/apps.ts), CLOSED_PORT to a closed loopback port, and any other
// port to the same port of this machine (whose /proc/net/tcp the pod's exec reads).
import { LABELS } from '../../../kube/group.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { FakeExec } from '../../support/fake-exec.js';
import { freePort } from '../../support/loopback.js';
import { startTestApps, type TestApps } from './apps.js';

export const APP_PORT = 3000;
export const WS_PORT = 3001;
export const CLOSED_PORT = 3999;

export function seedRunningWorkspace(api: FakeApiServer, name: string, namespace: string, opts: { apps?: unknown[] } = {}): void {
  api.seed(
    { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'web' }, spec: { displayName: 'Web', image: 'debian:12', shell: '/bin/sh', ...(opts.apps ? { apps: opts.apps } : {}) } },
    {
      apiVersion: 'den.dev/v1alpha1',
      kind: 'Workspace',
      metadata: { name, namespace },
      spec: { imageRef: { name: 'web' }, storage: '1Gi', running: true },
      status: { phase: 'Running', podName: `${name}-0` },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${name}-0`, namespace, labels: { [LABELS.workspace]: name } },
      spec: { containers: [{ name: 'workspace', image: 'debian:12' }] },
      status: { phase: 'Running' },
    },
  );
}

export interface PodWithApps {
  exec: FakeExec;
  apps: TestApps;
  close(): Promise<void>;
}

/** The fake pod's port forward and exec, attached to `api`, with the test apps listening in it. */
export async function podWithApps(api: FakeApiServer, cwd: string): Promise<PodWithApps> {
  const apps = await startTestApps();
  const closed = await freePort();
  const exec = new FakeExec({
    cwd,
    localPort: (port) => (port === APP_PORT ? apps.httpPort : port === WS_PORT ? apps.wsPort : port === CLOSED_PORT ? closed : port),
  });
  exec.attachTo(api);
  return {
    exec,
    apps,
    async close() {
      await exec.close();
      await apps.close();
    },
  };
}
