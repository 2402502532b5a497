// The UserSpace hook's input and output (DESIGN.md hook contract), and the shapes of the
// objects it reads. Only the fields the hook uses are typed; everything else passes through.
import type { KubeObject } from '../../kube/client.js';
import type { Condition } from '../loop/conditions.js';
import type { ChildError, HookInput, HookOutput, ObservedChildren } from '../loop/types.js';
import type { UserSpace } from '../../contract/user-space.js';

export type { ChildError, Condition, ObservedChildren, UserSpace };

export type UserSpacePhase = 'Pending' | 'Ready' | 'Failed';

export type UserSpaceStatus = {
  namespace?: string;
  phase: UserSpacePhase;
  observedGeneration?: number;
  conditions: Condition[];
};


/** The `default/kubernetes` Service and its EndpointSlices, as the API server returns them. */
export interface ApiServerObjects {
  service?: KubeObject | null;
  endpointSlices: KubeObject[];
}

export interface UserSpaceRelated {
  apiServer: ApiServerObjects;
  /** Secrets of the manager's namespace labelled `den.dev/pull-secret=true` (others are ignored). */
  pullSecrets: KubeObject[];
}

export interface UserSpaceHookConfig {
  /** Extended resource counted as GPUs (`--gpu-resource`, default `nvidia.com/gpu`). */
  gpuResource: string;
  /** The manager's own namespace (`--namespace`, default `svc-system`). */
  managerNamespace: string;
}


/** The loop's hook contract for a UserSpace (hooks/loop/types.ts). */
export type UserSpaceSyncInput = HookInput<UserSpaceHookConfig, UserSpaceRelated, UserSpace>;

/** A rendered child: always apiVersion, kind and metadata.name; namespace when namespaced. */
export interface ChildObject extends KubeObject {
  apiVersion: string;
  kind: string;
  metadata: NonNullable<KubeObject['metadata']> & { name: string };
}

export type UserSpaceSyncResult = HookOutput<UserSpaceStatus, ChildObject>;
