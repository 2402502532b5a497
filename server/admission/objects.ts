// The fields of Den's objects the admission rules read. Objects arrive from the API server
// as JSON the CRD schema has checked, but every rule still reads them defensively.
import type { KubeObject } from '../../kube/client.js';

export type ResourceList = Record<string, string | number>;

export interface ResourceRequirements {
  requests?: ResourceList;
  limits?: ResourceList;
}

export interface Volume {
  name?: string;
  [source: string]: unknown;
}

export interface VolumeMount {
  name?: string;
  mountPath?: string;
  subPath?: string;
  readOnly?: boolean;
}

export interface Workspace extends KubeObject {
  spec?: {
    imageRef?: { name?: string };
    resources?: ResourceRequirements;
    volumes?: Volume[];
    volumeMounts?: VolumeMount[];
    storage?: string | number;
    sshAuthorizedKeys?: string[];
    running?: boolean;
    [field: string]: unknown;
  };
}

export interface WorkspaceImage extends KubeObject {
  spec?: {
    deprecated?: boolean;
    deprecateAt?: string;
    homePath?: string;
    runAsUser?: number;
    allowRoot?: boolean;
    [field: string]: unknown;
  };
}

export interface UserSpaceQuota {
  cpu?: string | number;
  memory?: string | number;
  storage?: string | number;
  gpu?: number;
  workspaces?: number;
}

export interface UserSpace extends KubeObject {
  spec?: {
    owner?: string;
    quota?: UserSpaceQuota;
    networkPolicy?: string;
    sshAuthorizedKeys?: string[];
    [field: string]: unknown;
  };
}

export interface PersistentVolumeClaim extends KubeObject {
  spec?: { resources?: { requests?: ResourceList } };
  status?: { capacity?: ResourceList };
}

/** SPEC 2.5: `spec.running` defaults to true. */
export function isRunning(ws: Workspace): boolean {
  return ws.spec?.running !== false;
}
