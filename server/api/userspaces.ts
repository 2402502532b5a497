// SPEC 4.6: UserSpaces, membership and quota, and (issue 35) each space's schedule limits and defaults. Administrator-only because the cluster's RBAC
// says so (only `den-admin` lists and writes UserSpaces); nothing here checks the role.
import { QUOTA_NAME } from '../../contract/user-space.js';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isNotFound } from '../../kube/errors.js';
import { userNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { noQuery, validateQuery } from '../http/validate.js';
import { mapBounded } from '../../process/concurrency.js';
import { membershipOf, membershipPatch, quotaOf, quotaPatch, schedulePolicyLineOf, schedulePolicyPatch, usageOf, userSpaceObject, type Quota } from './mapping.js';
import { createObject, deleteObject, listObjects, patchObject } from './object-handlers.js';
import { membershipRequest, quotaRequest, schedulePolicyRequest, userSpaceRequest } from './schemas.js';
import type { ApiContext, ApiRouter, ResourceDeps } from './types.js';

/**
 * The quota of a UserSpace created without one: `POST /admin/userspaces` and `den users add`.
 * Room for two or three everyday workspaces; administrators raise it per person.
 */
export const DEFAULT_QUOTA: Readonly<Quota> = Object.freeze({ cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 0, workspaces: 3 });


const USAGE_CONCURRENCY = 16;

/** A UserSpace as `GET /admin/quota` answers it: the object, plus what its namespace uses now. */
export type UserSpaceWithUsage = KubeObject & { usage: Quota | null };

/** Usage of one UserSpace's namespace, or null while its ResourceQuota does not exist yet. */
async function usageOfUserSpace(kube: KubeClient, userSpace: KubeObject, gpuResource: string): Promise<Quota | null> {
  const status = (userSpace.status ?? {}) as { namespace?: string };
  const namespace = status.namespace || userNamespace(userSpace.metadata?.name ?? '');
  try {
    return usageOf(await kube.get(RESOURCES.resourceQuota, QUOTA_NAME, namespace), gpuResource);
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

export async function userSpacesWithUsage(kube: KubeClient, gpuResource: string): Promise<UserSpaceWithUsage[]> {
  const { items } = await kube.list(RESOURCES.userSpace);
  return mapBounded(items, USAGE_CONCURRENCY, async (us) => ({ ...us, usage: await usageOfUserSpace(kube, us, gpuResource) }));
}

async function listQuota(ctx: ApiContext, deps: ResourceDeps): Promise<void> {
  validateQuery(ctx, noQuery);
  ctx.body = { items: await userSpacesWithUsage(ctx.state.kube, deps.gpuResource) };
}

export function mountUserSpaceRoutes(router: ApiRouter, deps: ResourceDeps): void {
  router.get('/admin/userspaces', listObjects(RESOURCES.userSpace));
  router.post('/admin/userspaces', createObject(RESOURCES.userSpace, userSpaceRequest, (req) => userSpaceObject(req, DEFAULT_QUOTA)));
  router.patch('/admin/userspaces/:name', patchObject(RESOURCES.userSpace, membershipRequest, membershipPatch, membershipOf));
  router.delete('/admin/userspaces/:name', deleteObject(RESOURCES.userSpace));
  router.get('/admin/quota', (ctx) => listQuota(ctx, deps));
  router.patch('/admin/quota/:name', patchObject(RESOURCES.userSpace, quotaRequest, quotaPatch, quotaOf));
  router.patch('/admin/schedules/:name', patchObject(RESOURCES.userSpace, schedulePolicyRequest, schedulePolicyPatch, schedulePolicyLineOf));
}
