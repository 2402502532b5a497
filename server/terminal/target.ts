// Where a browser terminal goes: the person's own Workspace, read with their minted token
// (so RBAC decides), checked by the rules every shell follows (shell/target.ts:
// Running, the pod of status.podName with den.dev/workspace=<name>, the image's shell and
// home), as the SSH gateway does, through the person's identity instead of its caches.
import type { KubeClient } from '../../kube/client.js';
import { isNotFound, KubeApiError, KubeUnavailableError } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import { resolveSessionTarget, type SessionTarget } from '../../shell/target.js';
import type { WorkspaceImage } from '../../contract/workspace-image.js';
import { CLOSE } from '../../web/terminal-protocol.js';
import { notSharedMessage } from '../../shell/share-check.js';

/** The terminal cannot open; `message` is shown in the browser, `code` closes the websocket. */
export class TerminalRefused extends Error {
  override readonly name = 'TerminalRefused';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A cluster failure as the person should read it: RBAC's own 403 message, else what went wrong. */
export function refusalOf(err: unknown, what: string): TerminalRefused {
  if (err instanceof TerminalRefused) return err;
  if (err instanceof KubeApiError) {
    if (err.status === 403) return new TerminalRefused(CLOSE.forbidden, err.message);
    if (err.status === 404) return new TerminalRefused(CLOSE.notFound, err.message);
    if (err.status === 401) return new TerminalRefused(CLOSE.forbidden, 'the cluster did not accept your session; sign in again');
    return new TerminalRefused(CLOSE.clusterFailed, `the cluster API failed while ${what} (HTTP ${err.status}): ${err.message}`);
  }
  if (err instanceof KubeUnavailableError) return new TerminalRefused(CLOSE.clusterFailed, `the cluster API is unreachable while ${what}; try again shortly`);
  return new TerminalRefused(CLOSE.clusterFailed, `cannot connect to the workspace while ${what}: ${(err as Error)?.message ?? String(err)}`);
}

/** Where the terminal goes, and the Workspace's uid for the Events about it. */
export interface TerminalTarget extends SessionTarget {
  workspaceUid?: string;
}

/**
 * Reads the Workspace, its pod and its image as the person; throws TerminalRefused with what they
 * can act on. `shared` names the owner and the guest of a workspace shared with the person
 * (docs/sharing.md): a workspace the cluster does not let them read is then said to be not shared.
 */
export function resolveTerminalTarget(client: KubeClient, namespace: string, name: string, shared?: { owner: string; guest: string }): Promise<TerminalTarget> {
  const notShared = () => new TerminalRefused(CLOSE.forbidden, notSharedMessage(name, shared!.owner, shared!.guest));
  return resolveSessionTarget(client, namespace, name, {
    workspaceMissing: () => (shared ? notShared() : new TerminalRefused(CLOSE.notFound, `you have no workspace named ${name}`)),
    workspaceUnreadable: (err) => (shared && err instanceof KubeApiError && err.status === 403 ? notShared() : refusalOf(err, `reading workspace ${name}`)),
    notRunning: (message) => new TerminalRefused(CLOSE.notRunning, message),
    podMissing: (podName) => new TerminalRefused(CLOSE.notRunning, `workspace ${name} has no pod ${podName} yet; try again shortly`),
    podUnreadable: (podName, err) => refusalOf(err, `reading pod ${podName}`),
    podMismatch: (message) => new TerminalRefused(CLOSE.forbidden, message),
    image: async (imageName) => {
      try {
        return await client.get<WorkspaceImage>(RESOURCES.workspaceImage, imageName);
      } catch (err) {
        // A withdrawn catalog entry leaves running workspaces alone; its defaults still apply.
        if (!isNotFound(err)) throw refusalOf(err, `reading workspace image ${imageName}`);
        return undefined;
      }
    },
  });
}
