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

/**
 * Runs `check` every `intervalMs` (never two at once) until it answers a reason the session must
 * end, then calls `ended` with it once; a check that fails goes to `failed` and the next one runs.
 * Answers a function that stops asking.
 */
export function pollShare(opts: { intervalMs: number; check: () => Promise<string | undefined>; ended: (reason: string) => void; failed: (err: Error) => void }): () => void {
  let stopped = false;
  let busy = false;
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  const timer = setInterval(() => {
    if (busy || stopped) return;
    busy = true;
    opts
      .check()
      .then((reason) => {
        if (reason === undefined || stopped) return;
        stop();
        opts.ended(reason);
      })
      .catch((err: unknown) => opts.failed(err as Error))
      .finally(() => (busy = false));
  }, opts.intervalMs);
  timer.unref();
  return stop;
}

/** What a guest is told when their share is gone. */
export function shareEndedMessage(owner: string, workspace: string): string {
  return `${owner} no longer shares workspace ${workspace} with you`;
}

/** What a guest is told when the cluster does not let them read the workspace: the same whether it exists or not. */
export function notSharedMessage(workspace: string, owner: string, guest: string): string {
  return `workspace ${workspace} of ${owner} is not shared with you (${guest}); ask ${owner} to run: den share ${workspace} ${guest}`;
}
