// The controllers `den manager` runs, one per kind, each built from the manager's settings.
// A new kind writes its controller.ts beside its hook and adds one line to CONTROLLERS.
import type { ControllerSpec } from './loop/spec.js';
import type { PullPolicy } from '../contract/schema.js';
import type { DormancyPolicy } from '../contract/dormancy.js';
import { imageRegistrySpec, type RegistrySyncConfig } from './registry/controller.js';
import { userSpaceSpec } from './userspace/controller.js';
import { workspaceSpec } from './workspace/controller.js';

export interface ManagerConfig {
  /** The platform's own namespace: the Lease and the pull Secrets live there. */
  namespace: string;
  gatewayHost: string;
  gpuResource: string;
  relistIntervalMs: number;
  /** Idle auto-stop of Workspaces (off unless the administrator turns it on). */
  idleStop: boolean;
  /** Stop and delete Workspaces unused for long (off unless the administrator sets stopAfterDays; contract/dormancy.ts). */
  dormancy?: DormancyPolicy;
  /** Den's own image, whose `den clone-source` the workspace pods of a spec.source run (`--clone-image`). */
  clone?: { image: string; imagePullPolicy: PullPolicy; imagePullSecrets?: string[] };
  /** Registry sync tuning; the defaults suit production (hooks/registry/controller.ts). */
  registrySync?: RegistrySyncConfig;
}

// `any`: each kind has its own hook config and related shape; the loop only passes them through.
export type ControllerFactory = (config: ManagerConfig) => ControllerSpec<any, any, any, any>;

export const CONTROLLERS: readonly ControllerFactory[] = [userSpaceSpec, workspaceSpec, imageRegistrySpec];
