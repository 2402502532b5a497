// People as the manager leaves them, for tests that need a person's namespace and identities.
import { syncUserSpace } from '../../hooks/userspace/sync.js';
import type { UserSpace } from '../../hooks/userspace/types.js';
import { DEFAULT_GPU_RESOURCE, SYSTEM_NAMESPACE } from '../../kube/group.js';
import type { FakeApiServer } from './fake-apiserver.js';
import { fixture } from './fixtures.js';

/** A UserSpace and the children its hook renders (namespace, ServiceAccounts, Roles, bindings). */
export function provision(api: FakeApiServer, name: string, owner: string, opts: { admin?: boolean; disabled?: boolean } = {}): void {
  const labels: Record<string, string> = {};
  if (opts.admin) labels['den.dev/role'] = 'admin';
  if (opts.disabled) labels['den.dev/disabled'] = 'true';
  const [parent] = api.seed({
    apiVersion: 'den.dev/v1alpha1',
    kind: 'UserSpace',
    metadata: { name, labels },
    spec: { owner, quota: { cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 0, workspaces: 3 }, networkPolicy: 'Isolated' },
  });
  const { children } = syncUserSpace({
    parent: parent as UserSpace,
    children: {},
    related: { apiServer: { service: fixture('service-kubernetes.json').body, endpointSlices: fixture('endpointslices-kubernetes.json').body.items }, pullSecrets: [] },
    now: new Date(),
    config: { gpuResource: DEFAULT_GPU_RESOURCE, managerNamespace: SYSTEM_NAMESPACE },
  });
  api.seed(...children);
}
