// The Workspace hook's input and output (DESIGN.md hook contract) and the shapes of the objects
// it reads. Objects arrive as the API server sent them, so only the fields the hook reads are
// typed, and every read is checked before it is trusted.
import type { V1Toleration } from '@kubernetes/client-node';
import type { KubeObject } from '../../kube/client.js';
import type { WorkspacePhase } from '../../contract/workspace.js';
import type { PullPolicy } from '../../contract/schema.js';
import type { DevcontainerSummary, DotfilesReport } from '../../contract/devcontainer.js';
import type { Condition as LoopCondition, ConditionInput as LoopConditionInput } from '../loop/conditions.js';
import type { ChildError, HookInput, HookOutput } from '../loop/types.js';
import type { DormancyPolicy } from '../../contract/dormancy.js';

// One Workspace and one WorkspaceImage type for every reader, beside their CRDs.
export type { Workspace, WorkspacePhase, WorkspaceSpec } from '../../contract/workspace.js';
export type { WorkspaceImage, WorkspaceImageSpec } from '../../contract/workspace-image.js';

export interface ContainerStateJson {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { exitCode?: number; reason?: string; message?: string };
}

export interface ContainerStatusJson {
  name: string;
  image?: string;
  ready?: boolean;
  restartCount?: number;
  state?: ContainerStateJson;
  lastState?: ContainerStateJson;
}

export interface PodConditionJson {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** A pod as the informer holds it: only what status is computed from. */
export interface ObservedPod extends KubeObject {
  metadata: NonNullable<KubeObject['metadata']>;
  spec?: { containers?: { name: string; image?: string }[] };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: PodConditionJson[];
    containerStatuses?: ContainerStatusJson[];
    initContainerStatuses?: ContainerStatusJson[];
  };
}


export type ConditionType = 'Ready' | 'Degraded' | 'ImageResolved' | 'Cloned' | 'Devcontainer' | 'Lifecycle' | 'Dotfiles';

export type Condition = LoopCondition<ConditionType>;
export type ConditionInput = LoopConditionInput<ConditionType>;

// A type alias, not an interface, so it fits the loop's `Record<string, unknown>` status.
export type WorkspaceStatus = {
  phase: WorkspacePhase;
  endpoint: string;
  podName: string;
  observedGeneration?: number;
  conditions: Condition[];
  /** The installation's dormancy policy as this manager applies it (contract/dormancy.ts), for the page. */
  dormancy?: DormancyPolicy;
  /** Owned by the gateway; carried over untouched because the loop writes the whole status. */
  lastActivityTime?: string;
  /** What the clone step read of the repository's devcontainer.json (contract/devcontainer.ts). */
  devcontainer?: DevcontainerSummary;
  /** The person's dotfiles repository as the clone step left it. */
  dotfiles?: DotfilesReport;
};

export interface WorkspaceHookConfig {
  /** Host part of `status.endpoint` (`--gateway-host`). */
  gatewayHost: string;
  /** Stop running Workspaces idle for longer than spec.idleTimeout (`--idle-stop`; hooks/workspace/idle.ts). */
  idleStop: boolean;
  /** Stop and delete workspaces unused for long (`--dormant-stop-days`, `--dormant-delete-days`, `--dormant-delete-home`; hooks/workspace/dormancy.ts); off when absent. */
  dormancy?: DormancyPolicy;
  /** The image whose `den clone-source` clones spec.source (Den's own; `--clone-image`); Den's release image when absent. */
  clone?: { image: string; imagePullPolicy: PullPolicy; imagePullSecrets?: string[] };
}

export interface WorkspaceRelated {
  /** The WorkspaceImage named by `spec.imageRef.name`; absent or null when it does not exist. */
  image?: KubeObject | null;
  /**
   * The catalog entries whose spec.image is this image: devcontainer.json's image is used only
   * where one offers it. Asked only when devcontainer.json names an image other than the entry's.
   */
  offering?: (image: string) => KubeObject[];
  /** Pods of the Workspace's namespace labelled `den.dev/workspace=<name>`. */
  pods: KubeObject[];
  /** The UserSpace of the Workspace's namespace, for its spec.schedules; absent or null when there is none. */
  userSpace?: KubeObject | null;
  /** The StatefulSet controller's FailedCreate Events about the Workspace's StatefulSet (hooks/workspace/refusal.ts). */
  refusals?: KubeObject[];
}

export type WorkspaceHookInput = HookInput<WorkspaceHookConfig, WorkspaceRelated>;
export type WorkspaceHookOutput = HookOutput;
export type { ChildError };
