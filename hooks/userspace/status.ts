// UserSpace status from what was observed (DESIGN.md): the phase, and the Ready and Disabled
// conditions, whose lastTransitionTime moves only when their status does.
import type { KubeObject } from '../../kube/client.js';
import { LABELS } from '../../kube/group.js';
import { withTransitionTimes } from '../loop/conditions.js';
import { childName } from '../loop/keys.js';
import { byCodePoint } from '../../kube/names.js';
import { isPresent, observedOf } from './observed.js';
import type { ChildError, ChildObject, ObservedChildren, UserSpace, UserSpacePhase, UserSpaceStatus } from './types.js';

const MAX_LISTED = 8;

type Verdict = { phase: UserSpacePhase; reason: string; message: string };

export interface StatusInput {
  parent: UserSpace;
  namespace: string;
  observed: ObservedChildren;
  /** Children this sync wants; empty when the spec could not be rendered. */
  desired: ChildObject[];
  problems: string[];
  errors: ChildError[];
  apiServerResolved: boolean;
  disabled: boolean;
  now: Date;
}

function listed(refs: string[]): string {
  const shown = refs.slice(0, MAX_LISTED).join(', ');
  return refs.length > MAX_LISTED ? `${shown} and ${refs.length - MAX_LISTED} more` : shown;
}

function isTerminating(ns: KubeObject | undefined): boolean {
  return !!ns && (!!ns.metadata?.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating');
}

function verdict(input: StatusInput, namespaceObject: KubeObject | undefined): Verdict {
  if (input.problems.length) {
    return { phase: 'Failed', reason: 'InvalidSpec', message: `${input.problems.join('; ')}; the existing children are kept as they are` };
  }
  if (input.errors.length) {
    return { phase: 'Failed', reason: 'ApplyFailed', message: input.errors.map((e) => `${e.child}: ${e.message}`).join('; ') };
  }
  if (isTerminating(namespaceObject)) {
    return {
      phase: 'Pending',
      reason: 'NamespaceTerminating',
      message: `Namespace/${input.namespace} is being deleted; it is created again once it is gone`,
    };
  }
  const missing = input.desired.filter((c) => !isPresent(observedOf(input.observed, c))).map(childName);
  if (missing.length) {
    return {
      phase: 'Pending',
      reason: 'ChildrenMissing',
      message: `waiting for ${missing.length} of ${input.desired.length} children: ${listed(missing)}`,
    };
  }
  if (!input.apiServerResolved) {
    return {
      phase: 'Pending',
      reason: 'APIServerUnresolved',
      message: `no API server address is known yet (Service default/kubernetes and its EndpointSlices), so NetworkPolicy/svc-isolation allows no egress to it`,
    };
  }
  const quota = input.desired.find((c) => c.kind === 'ResourceQuota');
  const uncounted = quota ? uncountedQuotaKeys(observedOf(input.observed, quota)!) : [];
  if (quota && uncounted.length) {
    return {
      phase: 'Pending',
      reason: 'QuotaNotCounted',
      message:
        `${childName(quota)} has not yet counted ${listed(uncounted)}: Kubernetes' quota controller (in kube-controller-manager) counts them, usually within seconds, ` +
        `and until then the cluster may refuse new workspaces ("status unknown for quota"); if this lasts, check that kube-controller-manager is running and what it logs`,
    };
  }
  return { phase: 'Ready', reason: 'ChildrenReady', message: `all ${input.desired.length} children exist` };
}

/**
 * The keys of a ResourceQuota's hard limits its quota controller has not counted yet: those
 * status.hard does not hold as spec.hard says them, or status.used does not hold at all.
 * kube-apiserver's quota admission refuses a create that such a key limits ("status unknown
 * for quota"), and admits without a limit while status.hard is still empty.
 */
export function uncountedQuotaKeys(quota: KubeObject): string[] {
  const hard = (quota.spec as { hard?: Record<string, unknown> } | undefined)?.hard ?? {};
  const status = quota.status as { hard?: Record<string, unknown>; used?: Record<string, unknown> } | undefined;
  return Object.keys(hard)
    .filter((key) => status?.hard?.[key] !== hard[key] || status?.used?.[key] === undefined)
    .sort(byCodePoint);
}

export function userSpaceStatus(input: StatusInput): UserSpaceStatus {
  const namespaceObject = input.observed['Namespace.v1']?.[input.namespace];
  const v = verdict(input, namespaceObject);
  const generation = input.parent.metadata?.generation;
  const previous = (input.parent.status as { conditions?: unknown } | undefined)?.conditions;
  const conditions = withTransitionTimes(
    [
      { type: 'Ready', status: v.phase === 'Ready' ? 'True' : 'False', reason: v.reason, message: v.message },
      input.disabled
        ? {
            type: 'Disabled',
            status: 'True',
            reason: 'DisabledByLabel',
            message: `${LABELS.disabled} is "true": every RoleBinding and ClusterRoleBinding of this UserSpace has no subjects`,
          }
        : { type: 'Disabled', status: 'False', reason: 'Enabled', message: `${LABELS.disabled} is not "true"` },
    ],
    previous,
    input.now,
    generation,
  );
  return {
    ...(isPresent(namespaceObject) && !isTerminating(namespaceObject) ? { namespace: input.namespace } : {}),
    phase: v.phase,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions,
  };
}
