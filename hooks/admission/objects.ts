// The fields of Den's objects the admission rules read. Objects arrive from the API server
// as JSON the CRD schema has checked, but every rule still reads them defensively.
import type { KubeObject } from '../../kube/client.js';

export type ResourceList = Record<string, string | number>;

export interface ResourceRequirements {
  requests?: ResourceList;
  limits?: ResourceList;
}

// One Workspace and one WorkspaceImage type for every reader, beside their CRDs.
export type { Workspace } from '../../contract/workspace.js';
export type { WorkspaceImage } from '../../contract/workspace-image.js';

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
