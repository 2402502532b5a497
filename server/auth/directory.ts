// Who a person is on the platform: the UserSpace whose `spec.owner` names them, read
// with the server's identity from an informer so a request costs no API call. The informer
// is this replica's hint: before a person is refused (no UserSpace, or a disabled one), the
// UserSpaces are listed from the API server, so a UserSpace another replica's caller created
// (or re-enabled) a moment ago counts before its watch event arrives here.
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { userNamespace } from '../../kube/group.js';
import { Informer, type CacheEvent } from '../../kube/informer.js';
import { RESOURCES } from '../../kube/resources.js';
import { HttpError } from '../../koa/errors.js';
import { isNotFound } from '../../kube/errors.js';
import { isDisabled, roleOf, type MembershipRole } from '../../contract/user-space.js';

export interface UserSpaceObject extends KubeObject {
  spec?: { owner?: string; [key: string]: unknown };
}

export interface Membership {
  owner: string;
  /** `metadata.uid` of the UserSpace: what belonged to a deleted one never serves its successor. */
  uid: string;
  userspace: string;
  namespace: string;
  role: MembershipRole;
  disabled: boolean;
}

/** Role and disabled flag as DESIGN.md stores them: labels on the UserSpace. */
export function membershipOf(userspace: UserSpaceObject): Membership {
  const name = userspace.metadata?.name ?? '';
  return {
    owner: userspace.spec?.owner ?? '',
    uid: userspace.metadata?.uid ?? '',
    userspace: name,
    namespace: userNamespace(name),
    role: roleOf(userspace),
    disabled: isDisabled(userspace),
  };
}

/**
 * The membership of `owner`, or an HttpError a person can act on. A UserSpace being
 * deleted no longer counts; two UserSpaces naming the same owner are refused rather
 * than guessed between.
 */
export function resolveMembership(userspaces: readonly UserSpaceObject[], owner: string, opts: { ignoreCase?: boolean } = {}): Membership {
  const wanted = opts.ignoreCase ? owner.toLowerCase() : owner;
  const sameOwner = (u: UserSpaceObject) => (opts.ignoreCase ? u.spec?.owner?.toLowerCase() : u.spec?.owner) === wanted;
  const matches = userspaces.filter((u) => sameOwner(u) && !u.metadata?.deletionTimestamp);
  if (matches.length === 0) throw new HttpError(403, `no UserSpace belongs to ${owner}; ask an administrator to create one`);
  if (matches.length > 1) {
    const names = matches.map((u) => u.metadata?.name).sort().join(', ');
    throw new HttpError(403, `several UserSpaces belong to ${owner} (${names}); ask an administrator to remove all but one`);
  }
  const membership = membershipOf(matches[0]!);
  if (membership.disabled) throw new HttpError(403, `the account ${owner} is disabled; ask an administrator to enable it`);
  return membership;
}

/** An owner as the index files it: e-mail addresses compare without regard to case, so both lookups share one key. */
function ownerKey(owner: string): string {
  return owner.toLowerCase();
}

export class UserSpaceDirectory {
  private readonly informer: Informer<UserSpaceObject>;
  /**
   * The cached UserSpaces by owner (ownerKey), then by name: a request reads the few of its
   * person instead of scanning every UserSpace (0.13–0.21 ms per request at 1,000 people).
   */
  private readonly byOwner = new Map<string, Map<string, UserSpaceObject>>();

  constructor(
    private readonly client: KubeClient,
    opts: { relistIntervalMs?: number; onError?: (err: unknown) => void } = {},
  ) {
    this.informer = new Informer<UserSpaceObject>(client, RESOURCES.userSpace, opts);
    this.informer.on((event) => this.index(event));
  }

  private index(event: CacheEvent<UserSpaceObject>): void {
    const name = event.object.metadata?.name ?? '';
    for (const gone of [event.old, event.type === 'DELETED' ? event.object : undefined]) {
      const owner = gone?.spec?.owner;
      if (owner === undefined) continue;
      const named = this.byOwner.get(ownerKey(owner));
      named?.delete(name);
      if (named?.size === 0) this.byOwner.delete(ownerKey(owner));
    }
    const owner = event.object.spec?.owner;
    if (event.type === 'DELETED' || owner === undefined) return;
    let named = this.byOwner.get(ownerKey(owner));
    if (!named) this.byOwner.set(ownerKey(owner), (named = new Map()));
    named.set(name, event.object);
  }

  get synced(): Promise<void> {
    return this.informer.synced;
  }

  run(signal: AbortSignal): Promise<void> {
    return this.informer.run(signal);
  }

  /** The enabled membership of `owner`; throws 403 when there is none or it is disabled. */
  resolve(owner: string): Promise<Membership> {
    return this.resolveChecked(owner, {});
  }

  /**
   * The enabled membership of the person an identity provider vouched for: e-mail addresses
   * compare without regard to case. `owner` of the answer is spelled as the UserSpace spells it.
   */
  resolveEmail(email: string): Promise<Membership> {
    return this.resolveChecked(email, { ignoreCase: true });
  }

  /**
   * As `resolve`, confirmed by a GET of the UserSpace from the API server, for what changes
   * something: a person disabled or removed through another replica a moment ago is refused
   * here too, before this replica's watch event arrives.
   */
  async resolveConfirmed(owner: string): Promise<Membership> {
    const hinted = await this.resolve(owner);
    let current: UserSpaceObject | undefined;
    try {
      current = await this.client.get<UserSpaceObject>(RESOURCES.userSpace, hinted.userspace);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (current?.metadata?.uid === hinted.uid) return resolveMembership([current], owner);
    const all = await this.client.list<UserSpaceObject>(RESOURCES.userSpace);
    return resolveMembership(all.items, owner);
  }

  /**
   * The enabled membership of the UserSpace named `name` (the person part of an app host), from
   * the informer or, when it does not hold it (and `cachedOnly` is not set), the API server; 404
   * when there is none, 403 when it is disabled.
   */
  async byName(name: string, opts: { cachedOnly?: boolean } = {}): Promise<Membership> {
    let userspace = this.informer.get(name);
    if (!userspace && opts.cachedOnly) throw new HttpError(404, `there is no person named ${name} on this Den`);
    if (!userspace) {
      try {
        userspace = await this.client.get<UserSpaceObject>(RESOURCES.userSpace, name);
      } catch (err) {
        if (isNotFound(err)) throw new HttpError(404, `there is no person named ${name} on this Den`);
        throw err;
      }
    }
    const membership = membershipOf(userspace);
    if (membership.disabled || userspace.metadata?.deletionTimestamp) throw new HttpError(403, `the account of ${name} is disabled; its workspaces' ports are not served`);
    return membership;
  }

  private async resolveChecked(owner: string, opts: { ignoreCase?: boolean }): Promise<Membership> {
    try {
      return resolveMembership([...(this.byOwner.get(ownerKey(owner))?.values() ?? [])], owner, opts);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
    }
    const current = await this.client.list<UserSpaceObject>(RESOURCES.userSpace);
    return resolveMembership(current.items, owner, opts);
  }
}
