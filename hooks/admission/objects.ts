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

// One UserSpace type for every reader, beside its CRD.
export type { UserSpace, UserSpaceQuota } from '../../contract/user-space.js';

export interface PersistentVolumeClaim extends KubeObject {
  spec?: { resources?: { requests?: ResourceList } };
  status?: { capacity?: ResourceList };
}
