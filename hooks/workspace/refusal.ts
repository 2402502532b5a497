// When the API server refuses the pod or the home volume a Workspace's StatefulSet asks for
// (its quota or LimitRange, whatever else runs in the namespace), the StatefulSet controller
// only records a FailedCreate Event and tries again later. The Workspace says what was refused
// and what to do about it instead of waiting for a pod that does not come.
import type { KubeObject } from '../../kube/client.js';
import { overrunInWords, quotaOverrunOf } from '../../kube/quota-refusal.js';

/** The Events the Workspace controller watches: the StatefulSet controller's refusals, nothing else. */
export const REFUSAL_FIELD_SELECTOR = 'involvedObject.kind=StatefulSet,reason=FailedCreate';

interface RefusalEvent extends KubeObject {
  involvedObject?: { name?: string; uid?: string };
  message?: string;
  lastTimestamp?: string | null;
  firstTimestamp?: string | null;
  eventTime?: string | null;
  series?: { lastObservedTime?: string | null } | null;
}

/** The StatefulSet an Event is about (a Workspace's has the Workspace's name). */
export function statefulSetOf(event: KubeObject): string | undefined {
  return (event as RefusalEvent).involvedObject?.name;
}

/** The cluster's refusal: the controller's words and when it last said them. */
export interface CreateRefusal {
  message: string;
  at: string;
}

/** What the refusals cache keeps of an Event: which StatefulSet, what was said, when. */
export function refusalAsRead(obj: KubeObject): KubeObject {
  const event = obj as RefusalEvent;
  const { name, namespace, resourceVersion } = event.metadata ?? {};
  return {
    apiVersion: event.apiVersion,
    kind: event.kind,
    metadata: { name, namespace, resourceVersion },
    involvedObject: { name: event.involvedObject?.name, uid: event.involvedObject?.uid },
    message: event.message,
    lastTimestamp: event.lastTimestamp,
    firstTimestamp: event.firstTimestamp,
    eventTime: event.eventTime,
    series: event.series ? { lastObservedTime: event.series.lastObservedTime } : undefined,
  } as KubeObject;
}

function timeOf(event: RefusalEvent): string {
  return event.series?.lastObservedTime || event.lastTimestamp || event.eventTime || event.firstTimestamp || '';
}

/** The newest refusal recorded against this StatefulSet (by UID: not one of a deleted namesake). */
export function latestRefusal(events: readonly KubeObject[], statefulSet: { name: string; uid?: string }): CreateRefusal | undefined {
  let latest: RefusalEvent | undefined;
  for (const event of events as readonly RefusalEvent[]) {
    if (statefulSetOf(event) !== statefulSet.name) continue;
    if (statefulSet.uid && event.involvedObject?.uid && event.involvedObject.uid !== statefulSet.uid) continue;
    if (!latest || timeOf(event) > timeOf(latest)) latest = event;
  }
  return latest && typeof latest.message === 'string' ? { message: latest.message, at: timeOf(latest) } : undefined;
}

const REFUSED = /^create (Pod|Claim) (\S+)(?: for Pod \S+)? in StatefulSet \S+ failed error: (.*)$/s;

function clock(at: string): string {
  const match = /T(\d\d:\d\d:\d\d)/.exec(at);
  return match ? ` at ${match[1]} UTC` : '';
}

/** The Ready condition's reason and message for a refusal of the workspace's pod or home volume. */
export function refusalCondition(refusal: CreateRefusal, namespace: string): { reason: string; message: string } {
  const parsed = REFUSED.exec(refusal.message);
  const what = parsed ? (parsed[1] === 'Pod' ? `Pod ${parsed[2]}` : `Home volume ${parsed[2]}`) : 'The pod';
  const error = (parsed ? parsed[3]! : refusal.message).trim();
  const when = clock(refusal.at);
  const overrun = quotaOverrunOf(error);
  if (overrun) {
    const free = parsed?.[1] === 'Claim' ? 'delete a workspace you no longer need together with its home volume' : 'stop a workspace or delete pods you no longer need';
    return {
      reason: 'QuotaExceeded',
      message:
        `${what} cannot be created: the cluster refused it${when} because namespace ${namespace} has no room left in its quota (ResourceQuota ${overrun.quota}): ` +
        `it needs ${overrunInWords(overrun)}. The quota counts everything in the namespace, also what was started from inside a workspace. ` +
        `To start it, ${free}, or ask an administrator for a larger quota; Kubernetes tries again on its own.`,
    };
  }
  return {
    reason: 'CreateRefused',
    message: `${what} cannot be created: the cluster refused it${when}: ${error.replace(/\.?$/, '.')} Check the workspace's resources and volumes against what the namespace allows; Kubernetes tries again on its own.`,
  };
}
