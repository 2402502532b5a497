// Reading a workspace pod as the kubelet reports it: is it ready, is it stuck, and what would
// a person have to do about it.
import type { KubeObject } from '../../kube/client.js';
import { LABELS, defaultPodName } from '../../kube/group.js';
import { stuckKindOf, type StuckKind } from '../../kube/pod-reasons.js';
import type { ContainerStatusJson, ObservedPod } from './types.js';

/** Longest piece of a kubelet or scheduler message quoted into a condition. */
const QUOTE_LIMIT = 600;


/** What the pod's trouble is and which part of the configuration it points at. */
export interface PodTrouble {
  /** The kubelet's reason (`ImagePullBackOff`, ...) or `PodFailed`. */
  reason: string;
  kind: StuckKind | 'failed';
  /** The image the kubelet tried, for image trouble. */
  image?: string;
  /** The kubelet's own words, shortened. */
  detail?: string;
  /** `exit code 1, Error` of the last run, for crash loops. */
  lastExit?: string;
}

function quote(text: string | undefined): string | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > QUOTE_LIMIT ? `${flat.slice(0, QUOTE_LIMIT)}…` : flat;
}

export function isTerminating(obj: KubeObject): boolean {
  return typeof obj.metadata?.deletionTimestamp === 'string';
}

/**
 * The workspace's pod among the related pods: the StatefulSet's one pod, `<name>-0`, of its
 * namespace and carrying its label. Another pod with the label (a `kubectl debug --copy-to`
 * copy, a pod made from inside the namespace) is not the workspace: it must neither make the
 * phase nor become `status.podName`, the pod the gateway connects to.
 */
/**
 * What the Workspace controller's pod cache keeps of a pod: the fields this file reads (its
 * metadata without managedFields, its status, its containers' names and images). A pod's spec
 * is most of its size, and the cache holds one pod per running Workspace.
 */
export function podAsRead(pod: KubeObject): KubeObject {
  const spec = pod.spec as { containers?: { name?: string; image?: string }[]; initContainers?: { name?: string; image?: string }[] } | undefined;
  const images = (containers: { name?: string; image?: string }[] | undefined) => containers?.map(({ name, image }) => ({ name, image }));
  const { managedFields: _dropped, ...metadata } = pod.metadata ?? {};
  return { apiVersion: pod.apiVersion, kind: pod.kind, metadata, spec: { containers: images(spec?.containers), initContainers: images(spec?.initContainers) }, status: pod.status };
}

export function workspacePod(name: string, namespace: string, pods: KubeObject[]): ObservedPod | undefined {
  return pods.find(
    (p): p is ObservedPod =>
      p.metadata?.name === defaultPodName(name) && p.metadata.namespace === namespace && p.metadata.labels?.[LABELS.workspace] === name,
  );
}

export function isPodReady(pod: ObservedPod): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function lastExit(status: ContainerStatusJson): string | undefined {
  const terminated = status.lastState?.terminated;
  if (terminated?.exitCode === undefined) return undefined;
  return terminated.reason ? `exit code ${terminated.exitCode}, ${terminated.reason}` : `exit code ${terminated.exitCode}`;
}

function imageOf(pod: ObservedPod, status: ContainerStatusJson): string | undefined {
  // The kubelet reports the spec's image in the status while it cannot pull it; the spec is
  // the fallback for statuses that leave it out.
  return status.image || pod.spec?.containers?.find((c) => c.name === status.name)?.image;
}

/** Why the pod cannot start, or undefined when nothing says it is stuck. */
export function podTrouble(pod: ObservedPod): PodTrouble | undefined {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  for (const status of statuses) {
    const reason = status.state?.waiting?.reason;
    const kind = reason === undefined ? undefined : stuckKindOf(reason);
    if (reason === undefined || kind === undefined) continue;
    return {
      reason,
      kind,
      image: kind === 'image' ? imageOf(pod, status) : undefined,
      detail: quote(status.state?.waiting?.message),
      lastExit: kind === 'crash' ? lastExit(status) : undefined,
    };
  }
  if (pod.status?.phase === 'Failed') {
    return { reason: 'PodFailed', kind: 'failed', detail: quote([pod.status.reason, pod.status.message].filter(Boolean).join(': ')) };
  }
  return undefined;
}

/** How far a pod that is neither ready nor stuck has come, in a person's words. */
export function podProgress(pod: ObservedPod): { reason: string; message: string } {
  const podName = pod.metadata.name ?? '';
  const scheduled = (pod.status?.conditions ?? []).find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False') {
    const why = quote(scheduled.message);
    return {
      reason: 'Unschedulable',
      message:
        `No node can run pod ${podName} yet${why ? `: ${why}` : ''}. It starts when a node with room frees up; ` +
        'if it stays here, ask an administrator whether the requested resources, nodeSelector and tolerations can be met.',
    };
  }
  const waiting = (pod.status?.containerStatuses ?? []).find((s) => s.state?.waiting)?.state?.waiting?.reason;
  if (pod.status?.phase === 'Running') {
    return { reason: 'PodNotReady', message: `Pod ${podName} is running but not ready yet.` };
  }
  return {
    reason: 'PodStarting',
    message: `Pod ${podName} is starting (${waiting ?? pod.status?.phase ?? 'Pending'}); the first start on a node includes pulling the image.`,
  };
}
