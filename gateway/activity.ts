// status.lastActivityTime on the Workspace, patched when an SSH session opens and when it
// closes (SPEC 1.5 step 8), through the /status subresource under the gateway's field manager.
import type { KubeClient } from '../kube/client.js';
import { FIELD_MANAGERS } from '../kube/group.js';
import { RESOURCES } from '../kube/resources.js';

/** RFC 3339 with whole seconds, as Kubernetes writes its own timestamps. */
export function activityTimestamp(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function activityPatch(now: Date): { status: { lastActivityTime: string } } {
  return { status: { lastActivityTime: activityTimestamp(now) } };
}

export async function recordActivity(client: KubeClient, namespace: string, workspace: string, now: Date): Promise<void> {
  await client.patch(RESOURCES.workspace, workspace, activityPatch(now), {
    namespace,
    type: 'merge',
    subresource: 'status',
    fieldManager: FIELD_MANAGERS.gateway,
  });
}
