// What the authentication middleware puts on `ctx.state` for every authenticated request.
import type { MembershipRole } from '../../contract/user-space.js';
import type { KubeClient } from '../../kube/client.js';

export type SessionKind = 'cookie' | 'bearer';
export type TokenScope = 'full' | 'read';

export interface Caller {
  /** The person's e-mail or cluster username (`UserSpace.spec.owner`). */
  email: string;
  /** Name of the caller's UserSpace. */
  userspace: string;
  /** The caller's own namespace, `svc-<userspace>`. */
  namespace: string;
  role: MembershipRole;
  kind: SessionKind;
  scope: TokenScope;
  /** True when the session signed in with a local username and password (SPEC 5 rule 8). */
  localLogin: boolean;
  /** Local username, when the session signed in with one. */
  username?: string;
}

export interface AuthenticatedState {
  caller: Caller;
  /** Client that forwards the caller's minted ServiceAccount token (SPEC 5 rule 3). */
  kube: KubeClient;
}
