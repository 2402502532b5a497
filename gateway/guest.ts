// A workspace shared with another person (docs/sharing.md), reached through the gateway as that
// person: the SSH username `<workspace>.<owner>` (contract/share.ts) names the owner's workspace,
// the offered key must be one of a person's own profile keys (UserSpace spec.sshAuthorizedKeys),
// and the Workspace and its pod are read, and every exec and port forward opened, with a token
// minted for that person's `session` ServiceAccount: the share's RoleBinding is what lets it
// through, the cluster decides, and its audit log names the guest. While a session is open the
// gateway asks the cluster every few seconds whether the guest may still exec into the pod
// (a SelfSubjectAccessReview with the guest's token); once the share is gone, the session ends.
import type { KubeClient } from '../kube/client.js';
import { sessionClient } from '../kube/forwarding.js';
import { KubeApiError } from '../kube/errors.js';
import { userNamespace } from '../kube/group.js';
import type { TokenMinter } from '../kube/minting.js';
import { isDisabled, type UserSpace } from '../contract/user-space.js';
import { resolveSessionTarget } from '../shell/target.js';
import { notSharedMessage } from '../shell/share-check.js';
import type { WorkspaceImage } from '../contract/workspace-image.js';
import { findAuthorizedKey, type AuthorizedKey, type OfferedKey } from './keys.js';
import { SessionRefused, unavailable, type GatewayTarget, type GuestIdentity } from './target.js';

export interface KeyHolder {
  person: UserSpace;
  key: AuthorizedKey;
}

/** The people, not disabled, whose own profile keys include the offered key. */
export function keyHolders(people: Iterable<UserSpace>, offered: OfferedKey): KeyHolder[] {
  const out: KeyHolder[] = [];
  for (const person of people) {
    if (isDisabled(person) || !person.metadata?.name) continue;
    const key = findAuthorizedKey(offered, person.spec?.sshAuthorizedKeys);
    if (key) out.push({ person, key });
  }
  return out.sort((a, b) => a.person.metadata!.name!.localeCompare(b.person.metadata!.name!));
}

function guestIdentityOf(person: UserSpace): GuestIdentity {
  const userspace = person.metadata?.name ?? '';
  return { userspace, namespace: userNamespace(userspace), uid: person.metadata?.uid ?? '' };
}

export interface GuestResolveDeps {
  client: KubeClient;
  minter: TokenMinter;
  image: (name: string) => WorkspaceImage | undefined;
}

/** Reads `owner`'s Workspace `workspace` and its pod as the guest and says where the session goes, or throws SessionRefused. */
export async function resolveGuestTarget(deps: GuestResolveDeps, person: UserSpace, owner: string, workspace: string): Promise<GatewayTarget> {
  const guest = guestIdentityOf(person);
  const namespace = userNamespace(owner);
  const asGuest = sessionClient(deps.client, deps.minter, guest.uid, guest.namespace);
  const refused = (message: string) => new SessionRefused(message, `${namespace}/${workspace} for guest ${guest.userspace}: ${message}`);
  const notShared = () => refused(notSharedMessage(workspace, owner, guest.userspace));
  const unreadable = (what: string, err: unknown) => (err instanceof KubeApiError && err.status === 403 ? notShared() : unavailable(`${what} as guest ${guest.userspace}`, err));
  const target = await resolveSessionTarget(asGuest, namespace, workspace, {
    workspaceMissing: notShared,
    workspaceUnreadable: (err) => unreadable(`get workspace ${namespace}/${workspace}`, err),
    notRunning: refused,
    podMissing: (podName) => refused(`workspace ${workspace} has no pod ${podName} yet; try again shortly`),
    podUnreadable: (podName, err) => unreadable(`get pod ${namespace}/${podName}`, err),
    podMismatch: refused,
    image: deps.image,
  });
  return { ...target, workspaceUid: target.workspaceUid ?? '', guest };
}

/** The channels of one guest's connection with a running command (the end of the share closes them), also kept in the gateway's set of all (for shutdown). */
export class ConnectionChannels<T> extends Set<T> {
  constructor(private readonly all: Set<T>) {
    super();
  }

  override add(value: T): this {
    this.all.add(value);
    return super.add(value);
  }

  override delete(value: T): boolean {
    this.all.delete(value);
    return super.delete(value);
  }
}
