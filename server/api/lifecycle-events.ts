// The Events of what a person does to a workspace through REST or the pages: started, stopped,
// deleted (kube/den-events.ts), written with the person's own minted token, so the cluster's
// audit log and RBAC see the person. The act is done when this runs: a failure to record it is
// logged, never turned into a failed request.
import type { KubeClient } from '../../kube/client.js';
import { DEN_EVENT_ANNOTATIONS, type DenEventReason, type WorkspaceRef } from '../../kube/den-events.js';
import type { Caller } from '../http/context.js';
import type { ResourceDeps } from './types.js';

/** Who acts, with which client, from where. */
export interface Actor {
  caller: Caller;
  kube: KubeClient;
  /** The client's address (server/http/client-address.ts), when known. */
  clientAddress?: string;
}

/** How a message names whoever acted on a workspace in `namespace`. */
export function actorName(caller: Pick<Caller, 'userspace' | 'namespace'>, namespace: string): string {
  // Only an administrator's rights reach a workspace outside the person's own namespace.
  return namespace === caller.namespace ? caller.userspace : `${caller.userspace} (administrator)`;
}

export async function recordLifecycleEvent(deps: Pick<ResourceDeps, 'events' | 'log'>, actor: Actor, workspace: WorkspaceRef, reason: DenEventReason, message: string, kind: 'lifecycle' | 'share' = 'lifecycle'): Promise<void> {
  const annotations: Record<string, string> = { [DEN_EVENT_ANNOTATIONS.person]: actor.caller.userspace, [DEN_EVENT_ANNOTATIONS.kind]: kind };
  if (actor.clientAddress) annotations[DEN_EVENT_ANNOTATIONS.clientAddress] = actor.clientAddress;
  try {
    await deps.events(actor.kube, workspace, { reason, message, annotations });
  } catch (err) {
    deps.log('cannot record event', { namespace: workspace.namespace, workspace: workspace.name, reason, error: (err as Error)?.message ?? String(err) });
  }
}
