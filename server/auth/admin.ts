// Administrator checks for what the server keeps with its own identity (local users):
// the cluster's RBAC still decides, through an access review made with the caller's
// forwarded token, so an administrator here is whoever may create UserSpaces.
import type { KubeClient } from '../../kube/client.js';
import { GROUP, PLURALS } from '../../kube/group.js';
import type { Caller } from '../http/context.js';
import { HttpError } from '../../koa/errors.js';
import { serviceAccountOf } from './authenticate.js';
import { serviceAccountUsername } from '../../kube/minting.js';

interface AccessReviewAnswer {
  status?: { allowed?: boolean; reason?: string };
}

export async function requireAdministrator(kube: KubeClient, caller: Caller): Promise<void> {
  const review = await kube.request<AccessReviewAnswer>({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'create', group: GROUP, resource: PLURALS.userSpace } },
    },
  });
  if (review?.status?.allowed) return;
  const user = serviceAccountUsername(caller.namespace, serviceAccountOf(caller));
  throw new HttpError(403, `administrator rights are needed: User "${user}" cannot create resource "${PLURALS.userSpace}" in API group "${GROUP}" at the cluster scope`);
}
