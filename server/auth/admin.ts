// Administrator checks for what the server keeps with its own identity (local users):
// the cluster's RBAC still decides, through an access review made with the caller's
// forwarded token, so an administrator here is whoever may create UserSpaces.
import { selfAccessAllowed } from '../../kube/access-review.js';
import type { KubeClient } from '../../kube/client.js';
import { GROUP, PLURALS } from '../../kube/group.js';
import type { Caller } from '../http/context.js';
import { HttpError } from '../../koa/errors.js';
import { serviceAccountOf } from './authenticate.js';
import { serviceAccountUsername } from '../../kube/minting.js';

export async function requireAdministrator(kube: KubeClient, caller: Caller): Promise<void> {
  if (await selfAccessAllowed(kube, { verb: 'create', group: GROUP, resource: PLURALS.userSpace })) return;
  const user = serviceAccountUsername(caller.namespace, serviceAccountOf(caller));
  throw new HttpError(403, `administrator rights are needed: User "${user}" cannot create resource "${PLURALS.userSpace}" in API group "${GROUP}" at the cluster scope`);
}
