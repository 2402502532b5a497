// Where an authenticated SSH session goes (SPEC 1.5 steps 4 and 5): the Workspace is
// re-fetched and checked by the rules every shell follows (shell/target.ts).
// Nothing here comes from client input except the username, which only selects among
// Workspaces whose keys the client proved it holds.
import type { KubeClient } from '../kube/client.js';
import { KubeApiError } from '../kube/errors.js';
import { resolveSessionTarget, type SessionTarget } from '../shell/target.js';
import type { WorkspaceImage } from '../contract/workspace-image.js';
import { findAuthorizedKey, type OfferedKey } from './keys.js';
import type { Workspace } from './workspaces.js';

/**
 * The session is refused. `message` is shown to the person (on the SSH banner); it is
 * only ever set after the client proved it holds an authorized key, so it reveals nothing
 * to someone probing for workspace names. Without a message the refusal is the generic one.
 */
export class SessionRefused extends Error {
  override readonly name = 'SessionRefused';
  constructor(readonly userMessage: string | undefined, logMessage: string) {
    super(logMessage);
  }
}

/** The person a guest session runs as (a workspace shared with them, gateway/guest.ts). */
export interface GuestIdentity {
  userspace: string;
  namespace: string;
  /** Their UserSpace's UID: their minted token is cached under it. */
  uid: string;
}

/** Where a session goes, and the Workspace's UID: the owner's minted token is cached under it (kube/minting.ts). */
export interface GatewayTarget extends SessionTarget {
  workspaceUid: string;
  /** Set when the session runs as a guest of a shared workspace rather than as its owner. */
  guest?: GuestIdentity;
}

export interface ResolveDeps {
  client: KubeClient;
  /** The cached WorkspaceImage of that name (cluster-scoped). */
  image: (name: string) => WorkspaceImage | undefined;
}

/** The cluster could not be asked: the person is told to try again, the log says what failed. */
export function unavailable(what: string, err: unknown): SessionRefused {
  const detail = err instanceof KubeApiError ? `HTTP ${err.status}: ${err.message}` : (err as Error).message;
  return new SessionRefused('den gateway cannot reach the cluster API right now; try again shortly', `${what}: ${detail}`);
}

/** Re-fetches the Workspace and its pod and says where the session goes, or throws SessionRefused. */
export async function resolveTarget(deps: ResolveDeps, cached: Workspace, offered: OfferedKey): Promise<GatewayTarget> {
  const name = cached.metadata?.name ?? '';
  const namespace = cached.metadata?.namespace ?? '';
  const refused = (message: string) => new SessionRefused(message, `${namespace}/${name}: ${message}`);
  const target = await resolveSessionTarget(deps.client, namespace, name, {
    workspaceMissing: () => new SessionRefused(undefined, `workspace ${namespace}/${name} vanished after the cache matched it`),
    workspaceUnreadable: (err) => unavailable(`get workspace ${namespace}/${name}`, err),
    // The cache may lag behind a key removal: the fresh object decides.
    checkWorkspace: (ws) => {
      if (!findAuthorizedKey(offered, ws.spec?.sshAuthorizedKeys)) throw new SessionRefused(undefined, `workspace ${namespace}/${name} no longer authorizes the offered key`);
    },
    notRunning: refused,
    podMissing: (podName) => refused(`workspace ${name} has no pod ${podName} yet; try again shortly`),
    podUnreadable: (podName, err) => unavailable(`get pod ${namespace}/${podName}`, err),
    podMismatch: refused,
    image: deps.image,
  });
  return { ...target, workspaceUid: target.workspaceUid ?? '' };
}
