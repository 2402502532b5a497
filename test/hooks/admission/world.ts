// One small cluster for the admission tests: a catalog, alice's UserSpace with its quota,
// two existing workspaces and their home PVCs, and a retained PVC of a deleted workspace.
import type { PersistentVolumeClaim, UserSpace, Workspace, WorkspaceImage } from '../../../hooks/admission/objects.js';

export const NOW = new Date('2026-06-01T12:00:00Z');
export const GPU = 'nvidia.com/gpu';

export function image(name: string, spec: WorkspaceImage['spec'] = {}): WorkspaceImage {
  return { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name }, spec: { displayName: name, image: `registry.example.com/${name}:1`, ...spec } };
}

export const IMAGES: WorkspaceImage[] = [
  image('python'),
  image('custom-home', { homePath: '/work' }),
  image('retired', { deprecated: true }),
  image('sunset', { deprecateAt: '2026-05-01T00:00:00Z' }),
  image('sunrise', { deprecateAt: '2026-09-01T00:00:00Z' }),
  image('rooty', { runAsUser: 0 }),
  image('root-allowed', { runAsUser: 0, allowRoot: true }),
];

export function userSpace(name: string, keys: string[], quota: NonNullable<UserSpace['spec']>['quota'] = { cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 1, workspaces: 3 }): UserSpace {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'UserSpace',
    metadata: { name, labels: { 'den.dev/role': 'user' } },
    spec: { owner: `${name}@example.com`, quota, networkPolicy: 'Isolated', sshAuthorizedKeys: keys },
  };
}

export function workspace(name: string, spec: Workspace['spec'] = {}, namespace = 'svc-alice'): Workspace {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'Workspace',
    metadata: { name, namespace },
    spec: { imageRef: { name: 'python' }, storage: '10Gi', running: true, ...spec },
  };
}

export function claim(name: string, storage: string, namespace = 'svc-alice'): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace },
    spec: { resources: { requests: { storage } } },
  } as PersistentVolumeClaim;
}

/** alice holds 1 CPU and 2Gi running, 25Gi of storage (10 + 10 + a retained 5), 2 of 3 workspaces. */
export function aliceWorld(key: string) {
  return {
    images: IMAGES,
    userSpaces: [userSpace('alice', [key])],
    workspaces: [
      workspace('one', { sshAuthorizedKeys: [key], resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '2', memory: '2Gi' } } }),
      workspace('two', { sshAuthorizedKeys: [key], running: false, resources: { requests: { cpu: '2', memory: '4Gi' } } }),
      workspace('elsewhere', { sshAuthorizedKeys: [key], resources: { requests: { cpu: '30' } }, storage: '900Gi' }, 'svc-bob'),
    ],
    claims: [claim('home-one-0', '10Gi'), claim('home-gone-0', '5Gi'), claim('home-x-0', '900Gi', 'svc-bob')],
  };
}
