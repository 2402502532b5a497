// The controllers `den manager` runs: which caches each hook reads, how a change to a child,
// a pod, an image or a cluster object finds the parents it concerns, and leader election
// around all of it (webhooks are not here: every replica serves them).
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { KubeClient, KubeObject } from '../kube/client.js';
import { isNotFound } from '../kube/errors.js';
import { defaultPodName, GROUP, LABELS, userNamespace } from '../kube/group.js';
import type { Informer } from '../kube/informer.js';
import { RESOURCES } from '../kube/resources.js';
import { LEADER_LEASE } from '../infra/install/names.js';
import type { Log } from '../process/role.js';
import { Controller, startDeletion, type ControllerOptions, type ControllerSpec } from './loop/controller.js';
import { isControlledBy, keyOf } from './loop/keys.js';
import { LeaderElector } from './loop/leader.js';
import { syncUserSpace } from './userspace/sync.js';
import type { UserSpace, UserSpaceHookConfig, UserSpaceRelated } from './userspace/types.js';
import { syncWorkspace, workspaceOfPod, workspacesUsingImage } from './workspace/sync.js';
import type { WorkspaceHookConfig, WorkspaceRelated } from './workspace/types.js';

/** UserSpace finalizer: the namespace's deletion is started before the UserSpace goes (SPEC 3.4). */
export const NAMESPACE_FINALIZER = `${GROUP}/namespace`;

export interface ManagerConfig {
  /** The platform's own namespace: the Lease and the pull Secrets live there. */
  namespace: string;
  gatewayHost: string;
  gpuResource: string;
  relistIntervalMs: number;
}

function allParents(_obj: KubeObject, parents: Informer<KubeObject>): string[] {
  return parents.list().map((p) => p.metadata?.name ?? '');
}

/** UserSpace: SPEC 1.2 children; re-rendered when the API server's addresses or the pull Secrets change. */
export function userSpaceSpec(config: ManagerConfig): ControllerSpec<UserSpaceHookConfig, UserSpaceRelated> {
  return {
    name: 'userspace',
    parent: RESOURCES.userSpace,
    children: [
      RESOURCES.namespace, RESOURCES.resourceQuota, RESOURCES.limitRange, RESOURCES.networkPolicy, RESOURCES.serviceAccount,
      RESOURCES.role, RESOURCES.roleBinding, RESOURCES.clusterRole, RESOURCES.clusterRoleBinding, RESOURCES.secret,
    ],
    parentLabel: LABELS.userSpace,
    hook: (input) => syncUserSpace({ ...input, parent: input.parent as UserSpace }),
    config: { gpuResource: config.gpuResource, managerNamespace: config.namespace },
    relatedSources: [
      { name: 'apiService', resource: RESOURCES.service, namespace: 'default', fieldSelector: 'metadata.name=kubernetes', parentsOf: allParents },
      { name: 'apiEndpoints', resource: RESOURCES.endpointSlice, namespace: 'default', labelSelector: 'kubernetes.io/service-name=kubernetes', parentsOf: allParents },
      { name: 'pullSecrets', resource: RESOURCES.secret, namespace: config.namespace, labelSelector: `${LABELS.pullSecret}=true`, parentsOf: allParents },
    ],
    related: (_parent, caches) => ({
      apiServer: { service: caches.apiService!.get('kubernetes', 'default') ?? null, endpointSlices: caches.apiEndpoints!.list() },
      pullSecrets: caches.pullSecrets!.list(),
    }),
    finalizer: {
      name: NAMESPACE_FINALIZER,
      // Cluster-scoped children (the namespace, the ClusterRole and its binding) are deleted
      // here rather than left to garbage collection, so the person's cluster-wide rights end
      // with the UserSpace; everything namespaced goes with the namespace.
      async finalize(parent, { client, children, log }) {
        const uid = parent.metadata?.uid ?? '';
        const clusterScoped = children.filter((c) => c.kind === 'Namespace' || c.kind === 'ClusterRole' || c.kind === 'ClusterRoleBinding');
        if (!clusterScoped.some((c) => c.kind === 'Namespace')) {
          const namespace = await getIfExists(client, userNamespace(parent.metadata?.name ?? ''));
          if (namespace && isControlledBy(namespace, uid)) clusterScoped.push(namespace);
        }
        await startDeletion(client, clusterScoped);
        log('userspace deleted: removal of its namespace started', { userspace: parent.metadata?.name, namespace: userNamespace(parent.metadata?.name ?? '') });
      },
    },
  };
}

async function getIfExists(client: KubeClient, namespace: string): Promise<KubeObject | undefined> {
  try {
    return await client.get(RESOURCES.namespace, namespace);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Workspace: Service and StatefulSet; re-reconciled when its pod or its WorkspaceImage changes. */
export function workspaceSpec(config: ManagerConfig): ControllerSpec<WorkspaceHookConfig, WorkspaceRelated> {
  return {
    name: 'workspace',
    parent: RESOURCES.workspace,
    children: [RESOURCES.service, RESOURCES.statefulSet],
    parentLabel: LABELS.workspace,
    hook: syncWorkspace,
    config: { gatewayHost: config.gatewayHost },
    relatedSources: [
      {
        name: 'images',
        resource: RESOURCES.workspaceImage,
        parentsOf: (image, parents) => workspacesUsingImage(image.metadata?.name ?? '', parents.list()).map((ref) => keyOf(RESOURCES.workspace, ref)),
      },
      {
        name: 'pods',
        resource: RESOURCES.pod,
        labelSelector: LABELS.workspace,
        parentsOf: (pod) => {
          const ref = workspaceOfPod(pod);
          return ref ? [keyOf(RESOURCES.workspace, ref)] : [];
        },
      },
    ],
    related: (parent, caches) => {
      const imageName = (parent.spec as { imageRef?: { name?: string } } | undefined)?.imageRef?.name;
      const namespace = parent.metadata?.namespace;
      const name = parent.metadata?.name;
      return {
        image: imageName ? caches.images!.get(imageName) ?? null : null,
        // Only the StatefulSet's pod counts (hooks/workspace/pod.ts): one keyed lookup, not a scan of every cached pod.
        pods: [caches.pods!.get(defaultPodName(name ?? ''), namespace)].filter((pod): pod is KubeObject => pod !== undefined),
      };
    },
    // The gateway records activity in status; the loop never overwrites it.
    foreignStatusFields: ['lastActivityTime'],
  };
}

export interface ManagerControllers {
  userSpaces: Controller<UserSpaceHookConfig, UserSpaceRelated>;
  workspaces: Controller<WorkspaceHookConfig, WorkspaceRelated>;
}

export interface ManagerOptions {
  config: ManagerConfig;
  leaderElect: boolean;
  log: Log;
  /** Identity in the Lease; default `<hostname>_<random>` like client-go. */
  identity?: string;
  controller?: ControllerOptions;
  lease?: { durationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
}

/** The reconcile side of `den manager`: both controllers, run only while this replica leads. */
export class Manager {
  readonly identity: string;
  private active: ManagerControllers | undefined;
  private readonly elector: LeaderElector | undefined;

  constructor(private readonly client: KubeClient, private readonly opts: ManagerOptions) {
    this.identity = opts.identity ?? `${hostname()}_${randomUUID().slice(0, 8)}`;
    this.elector = opts.leaderElect
      ? new LeaderElector(client, {
          namespace: opts.config.namespace,
          name: LEADER_LEASE,
          identity: this.identity,
          leaseDurationMs: opts.lease?.durationMs,
          renewDeadlineMs: opts.lease?.renewDeadlineMs,
          retryPeriodMs: opts.lease?.retryPeriodMs,
          log: opts.log,
        })
      : undefined;
  }

  get leading(): boolean {
    return this.elector ? this.elector.isLeader : true;
  }

  /** True when this replica is not leading, or leads with every cache synced. */
  get ready(): boolean {
    return !this.leading || (!!this.active && this.active.userSpaces.synced && this.active.workspaces.synced);
  }

  /** The running controllers while this replica leads, for tests and benchmarks. */
  get controllers(): ManagerControllers | undefined {
    return this.active;
  }

  /** Runs until `signal` aborts; then in-flight reconciles finish (bounded) and the Lease is released. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.elector) await this.elector.run(signal, (leading) => this.runControllers(leading));
    else await this.runControllers(signal);
  }

  /**
   * A replica that lost the Lease stops at most renewDeadline after its last renewal; its
   * reconciles in flight may finish for the rest of the lease duration, after which a
   * successor may take over. So the two never act at once.
   */
  private shutdownGraceMs(): number {
    if (!this.elector) return 10_000;
    return (this.opts.lease?.durationMs ?? 15_000) - (this.opts.lease?.renewDeadlineMs ?? 10_000);
  }

  private async runControllers(signal: AbortSignal): Promise<void> {
    const options: ControllerOptions = { relistIntervalMs: this.opts.config.relistIntervalMs, log: this.opts.log, shutdownGraceMs: this.shutdownGraceMs(), ...this.opts.controller };
    const userSpaces = new Controller(this.client, userSpaceSpec(this.opts.config), options);
    const workspaces = new Controller(this.client, workspaceSpec(this.opts.config), options);
    this.active = { userSpaces, workspaces };
    try {
      await Promise.all([userSpaces.run(signal), workspaces.run(signal)]);
    } finally {
      this.active = undefined;
    }
  }
}
