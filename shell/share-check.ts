// Whether a guest may still use a workspace shared with them (docs/sharing.md), as the cluster
// answers now: a SelfSubjectAccessReview with the guest's own token for `create pods/exec` on the
// workspace's pod. The SSH gateway (gateway/guest.ts) and the browser terminal
// (server/terminal/upgrade.ts) ask it every few seconds while a guest's session is open.
import { selfAccessAllowed } from '../kube/access-review.js';
import type { KubeClient } from '../kube/client.js';

/** How often an open guest session asks whether the share still stands. */
export const DEFAULT_SHARE_CHECK_MS = 3_000;

/** Whether the guest's identity (`asGuest`) may still open an exec in the target's pod. */
export function stillShared(asGuest: KubeClient, target: { namespace: string; pod: string }): Promise<boolean> {
  return selfAccessAllowed(asGuest, { verb: 'create', group: '', resource: 'pods', subresource: 'exec', namespace: target.namespace, name: target.pod });
}

/** What a guest is told when their share is gone. */
export function shareEndedMessage(owner: string, workspace: string): string {
  return `${owner} no longer shares workspace ${workspace} with you`;
}

/** What a guest is told when the cluster does not let them read the workspace: the same whether it exists or not. */
export function notSharedMessage(workspace: string, owner: string, guest: string): string {
  return `workspace ${workspace} of ${owner} is not shared with you (${guest}); ask ${owner} to run: den share ${workspace} ${guest}`;
}
