// Builders for the UserSpace hook's input: a parent as the API server returns it, the recorded
// `default/kubernetes` Service and EndpointSlices, and children "observed" after an apply.
import type { KubeObject } from '../../../kube/client.js';
import { objectKey } from '../../../kube/informer.js';
import { childKey } from '../../../kube/resources.js';
import type { ObservedChildren, UserSpace, UserSpaceHookConfig, UserSpaceRelated, UserSpaceSyncInput } from '../../../hooks/userspace/types.js';
import { fixture } from '../../support/fixtures.js';

export const CONFIG: UserSpaceHookConfig = { gpuResource: 'nvidia.com/gpu', managerNamespace: 'svc-system' };
export const NOW = new Date('2026-11-22T10:00:00.250Z');
export const NOW_TEXT = '2026-11-22T10:00:00Z';

export function userSpace(opts: { name?: string; labels?: Record<string, string>; spec?: Record<string, unknown>; status?: UserSpace['status']; generation?: number } = {}): UserSpace {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'UserSpace',
    metadata: {
      name: opts.name ?? 'alice',
      uid: '5a3e4c2e-8d1b-4c1e-9a57-3f0d2b8e6a10',
      resourceVersion: '812',
      generation: opts.generation ?? 1,
      creationTimestamp: '2026-11-22T09:59:58Z',
      labels: opts.labels ?? {},
    },
    spec: {
      owner: 'alice@example.com',
      quota: { cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 0, workspaces: 3 },
      networkPolicy: 'Isolated',
      ...opts.spec,
    },
    ...(opts.status ? { status: opts.status } : {}),
  };
}

export function recordedService(): KubeObject {
  return fixture('service-kubernetes.json').body as KubeObject;
}

export function recordedSlices(): KubeObject[] {
  return (fixture('endpointslices-kubernetes.json').body as { items: KubeObject[] }).items;
}

export function pullSecret(name: string, opts: { namespace?: string; labels?: Record<string, string>; type?: string; data?: Record<string, string> } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: opts.namespace ?? 'svc-system',
      uid: `uid-${name}`,
      resourceVersion: '41',
      creationTimestamp: '2026-11-22T09:00:00Z',
      labels: opts.labels ?? { 'den.dev/pull-secret': 'true' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"secret":"not to be copied"}' },
    },
    type: opts.type ?? 'kubernetes.io/dockerconfigjson',
    data: opts.data ?? { '.dockerconfigjson': 'eyJhdXRocyI6e319' },
  };
}

export function related(opts: Partial<UserSpaceRelated> = {}): UserSpaceRelated {
  return {
    apiServer: opts.apiServer ?? { service: recordedService(), endpointSlices: recordedSlices() },
    pullSecrets: opts.pullSecrets ?? [],
  };
}

export function input(parent: UserSpace, opts: Partial<Omit<UserSpaceSyncInput, 'parent'>> = {}): UserSpaceSyncInput {
  return { parent, children: opts.children ?? {}, related: opts.related ?? related(), now: opts.now ?? NOW, config: opts.config ?? CONFIG, ...(opts.errors ? { errors: opts.errors } : {}) };
}

/**
 * The children as the loop would report them after applying: keyed like the contract says,
 * with the bookkeeping the API server adds (uid, resourceVersion, managedFields, status), and
 * the ResourceQuota counted by the quota controller (status.hard and status.used for every key).
 */
export function observe(children: KubeObject[]): ObservedChildren {
  const observed: ObservedChildren = {};
  children.forEach((child, i) => {
    const stored: KubeObject = structuredClone(child);
    stored.metadata = {
      ...stored.metadata,
      uid: `child-uid-${i}`,
      resourceVersion: String(900 + i),
      creationTimestamp: '2026-11-22T10:00:01Z',
      managedFields: [{ manager: 'den-manager', operation: 'Apply' }],
    };
    if (child.kind === 'Namespace') {
      stored.spec = { finalizers: ['kubernetes'] };
      stored.status = { phase: 'Active' };
      stored.metadata.labels = { ...stored.metadata.labels, 'kubernetes.io/metadata.name': child.metadata!.name! };
    }
    if (child.kind === 'ResourceQuota') {
      const hard = (child.spec as { hard: Record<string, string> }).hard;
      stored.status = { hard: { ...hard }, used: Object.fromEntries(Object.keys(hard).map((k) => [k, '0'])) };
    }
    const key = childKey({ apiVersion: child.apiVersion!, kind: child.kind! });
    (observed[key] ??= {})[objectKey(child)] = stored;
  });
  return observed;
}

/** The one child of this kind and name. */
export function childOf<T extends KubeObject = KubeObject>(children: KubeObject[], kind: string, name: string): T {
  const found = children.filter((c) => c.kind === kind && c.metadata?.name === name);
  if (found.length !== 1) throw new Error(`expected exactly one ${kind}/${name}, found ${found.length}`);
  return found[0] as T;
}
