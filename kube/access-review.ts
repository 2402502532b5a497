// What the client's own identity may do, as the cluster's authorizer answers now: one
// SelfSubjectAccessReview. REST (administrator and catalog checks) and a guest's open sessions
// (shell/share-check.ts) ask it with the person's forwarded or minted token.
import type { KubeClient } from './client.js';

export interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** Whether `client`'s identity may do `attributes`; a review the cluster cannot answer rejects. */
export async function selfAccessAllowed(client: KubeClient, attributes: ResourceAttributes): Promise<boolean> {
  const review = await client.request<{ status?: { allowed?: boolean } }>({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attributes } },
  });
  return review?.status?.allowed === true;
}
