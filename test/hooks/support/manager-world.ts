// The world of the manager's tests: a fake API server with Den's CRDs, managers started on it
// (stopped after each test), and the objects the tests create.
import { Manager, type ManagerOptions } from '../../../hooks/manager.js';
import { denCrds } from '../../../contract/index.js';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES, type ResourceType } from '../../../kube/resources.js';
import { FakeApiServer } from '../../support/fake-apiserver.js';
import { eventually } from './eventually.js';

export type Obj = KubeObject & { status?: Record<string, any>; spec?: Record<string, any>; data?: Record<string, string>; subjects?: unknown[] };

export function userSpace(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'UserSpace',
    metadata: { name },
    spec: { owner: `${name}@example.com`, quota: { cpu: '4', memory: '8Gi', storage: '50Gi', workspaces: 3 }, networkPolicy: 'Isolated', ...extra },
  };
}

// SPEC 1.2: every child of a UserSpace with its exact name.
export const SPEC_CHILDREN: [ResourceType, string, boolean][] = [
  [RESOURCES.namespace, 'svc-alice', false],
  [RESOURCES.resourceQuota, 'svc-quota', true],
  [RESOURCES.limitRange, 'svc-limits', true],
  [RESOURCES.networkPolicy, 'svc-isolation', true],
  [RESOURCES.serviceAccount, 'workspace', true],
  [RESOURCES.serviceAccount, 'session', true],
  [RESOURCES.serviceAccount, 'session-readonly', true],
  [RESOURCES.role, 'svc-workspace-user', true],
  [RESOURCES.role, 'svc-workspace-reader', true],
  [RESOURCES.roleBinding, 'svc-owner', true],
  [RESOURCES.roleBinding, 'svc-reader', true],
  [RESOURCES.roleBinding, 'svc-workspace-edit', true],
  [RESOURCES.clusterRole, 'svc-userspace-alice', false],
  [RESOURCES.clusterRoleBinding, 'svc-userspace-alice', false],
];

const FAST_LEASE = { durationMs: 1000, renewDeadlineMs: 600, retryPeriodMs: 50 };

/** Registers the world's beforeEach and afterEach in the calling describe; `api` is the current test's server. */
export function managerWorld() {
  let api: FakeApiServer;
  const stops: { stop: AbortController; run: Promise<void> }[] = [];

  function startManager(overrides: Partial<ManagerOptions> = {}, client = api.client()): Manager {
    const manager = new Manager(client, {
      config: { namespace: 'svc-system', gatewayHost: 'den.example.com', gpuResource: 'nvidia.com/gpu', relistIntervalMs: 60_000, idleStop: false },
      leaderElect: false,
      log: () => undefined,
      controller: { backoff: { baseMs: 20, maxMs: 500, jitter: 0.1 } },
      lease: FAST_LEASE,
      ...overrides,
    });
    const stop = new AbortController();
    stops.push({ stop, run: manager.run(stop.signal) });
    return manager;
  }

  const get = (t: ResourceType, name: string, ns?: string) => api.object<Obj>(t, name, ns);

  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.installCrds(denCrds().map((crd) => ({ ...crd })));
  });

  afterEach(async () => {
    for (const { stop, run } of stops.splice(0)) {
      stop.abort();
      await run;
    }
    await api.close();
  });

  /** alice's UserSpace created and reported Ready, so her namespace and its children exist. */
  async function userNamespaceReady() {
    await api.client().create(RESOURCES.userSpace, userSpace('alice'));
    await eventually(() => get(RESOURCES.userSpace, 'alice')?.status?.phase === 'Ready', 'UserSpace Ready');
  }

  return {
    get api() {
      return api;
    },
    stops,
    startManager,
    get,
    userNamespaceReady,
  };
}
