// The hook contract the loop runs (DESIGN.md): observed state in, desired state out. One shape
// for every kind: a kind names its config, its related objects, its parent type and status.
import type { KubeObject } from '../../kube/client.js';

/**
 * Observed children keyed by `Kind.apiVersion` (`childKey()`), then by the informer's
 * `objectKey()`: `namespace/name` for namespaced objects, `name` for cluster-scoped ones.
 */
export type ObservedChildren = Record<string, Record<string, KubeObject>>;

/** A child the loop failed to apply or delete: `child` is `Kind/name`, `message` the API server's. */
export interface ChildError {
  child: string;
  message: string;
}

export interface HookInput<Config, Related, Parent extends KubeObject = KubeObject> {
  /** The parent as the informer holds it; the hook checks every field it reads. */
  parent: Parent;
  children: ObservedChildren;
  related: Related;
  now: Date;
  config: Config;
  /** Failures of the children the previous pass of this reconcile tried to write. */
  errors?: ChildError[];
}

export interface HookOutput<Status extends Record<string, unknown> = Record<string, unknown>, Child extends KubeObject = KubeObject> {
  status: Status;
  children: Child[];
  /**
   * Run this parent again after this many milliseconds even if nothing in the cluster changes:
   * for a parent that mirrors an outside source the loop polls (docs/manager.md). Each run's
   * answer replaces the last; any run, for whatever reason, restarts the count.
   */
  resyncAfterMs?: number;
  /**
   * A change to the parent itself, for a hook that decides the parent's own fate (idle stop).
   * The loop writes it instead of the children and status of this run, emits the events once
   * it is written, and the parent's own watch event brings the next run.
   */
  parentChange?: ParentChange;
  /**
   * Delete the parent itself (dormancy), guarded by the uid and resourceVersion the hook saw,
   * instead of writing its children and status; then the named claims and the events.
   */
  parentDeletion?: ParentDeletion;
  /** Kubernetes Events about the parent, recorded once this run's children are written (a resize). */
  events?: ParentEvent[];
}

export interface ParentChange {
  /** Merged into metadata.annotations; null removes the annotation. */
  annotations?: Record<string, string | null>;
  /** Merged into spec (a JSON merge patch). */
  spec?: Record<string, unknown>;
  /** Kubernetes Events about the parent, as `kubectl describe` and the web UI show them. */
  events?: ParentEvent[];
  /**
   * Written instead when the API server refuses this change (400, 403, 422: an admission
   * webhook, quota), each of its events' messages followed by the cluster's words: a start the
   * cluster refuses is recorded and said, not retried until the reconcile loop gives up.
   */
  onRefusal?: ParentChange;
}

export interface ParentDeletion {
  /** PersistentVolumeClaims in the parent's namespace deleted after it (its home volume). */
  claims: string[];
  /** Events about the deleted parent: they stay in its namespace after it is gone. */
  events: ParentEvent[];
}

export interface ParentEvent {
  type: 'Normal' | 'Warning';
  /** UpperCamelCase, as Kubernetes' own reasons. */
  reason: string;
  message: string;
  /** Den's Event annotations (kube/den-events.ts: den.dev/kind, den.dev/person, …). */
  annotations?: Record<string, string>;
}

export type SyncHook<Config, Related, Parent extends KubeObject = KubeObject> = (input: HookInput<Config, Related, Parent>) => HookOutput;
