// SPEC 4.3, first half: the catalog of WorkspaceImages. Everyone lists the entries they may
// `use` (SPEC 5 rule 9); writes are administrator-only through the cluster's RBAC.
import { selfAccessAllowed } from '../../kube/access-review.js';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { GROUP, PLURALS } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { noQuery, validateQuery } from '../http/validate.js';
import { mapBounded } from '../../process/concurrency.js';
import { workspaceImageObject, workspaceImagePatch } from './mapping.js';
import { createObject, deleteObject, getObject, patchObject } from './object-handlers.js';
import { createWorkspaceImageRequest, patchWorkspaceImageRequest } from './schemas.js';
import type { ApiContext, ApiRouter, ResourceDeps } from './types.js';

export const DEFAULT_CATALOG_CONCURRENCY = 16;

/** Whether the caller may `use` the entry `name`, or every entry when `name` is undefined. */
export function mayUse(kube: KubeClient, name: string | undefined): Promise<boolean> {
  return selfAccessAllowed(kube, { verb: 'use', group: GROUP, resource: PLURALS.workspaceImage, ...(name === undefined ? {} : { name }) });
}

/**
 * The entries the caller may use. A review without a name asks about every entry at once: when
 * it is allowed, no per-entry review can be denied, so the common case costs one call. Otherwise
 * each entry is reviewed, `concurrency` at a time.
 */
export async function usableImages(kube: KubeClient, images: KubeObject[], concurrency: number): Promise<KubeObject[]> {
  if (images.length === 0) return [];
  if (await mayUse(kube, undefined)) return images;
  const allowed = await mapBounded(images, concurrency, (image) => mayUse(kube, image.metadata?.name ?? ''));
  return images.filter((_, i) => allowed[i]);
}

/** `GET /workspace-images`: every entry the caller may use. */
export async function listUsableImages(kube: KubeClient, deps: Pick<ResourceDeps, 'catalogConcurrency'>): Promise<KubeObject[]> {
  const { items } = await kube.list(RESOURCES.workspaceImage);
  return usableImages(kube, items, deps.catalogConcurrency ?? DEFAULT_CATALOG_CONCURRENCY);
}

async function listImages(ctx: ApiContext, deps: ResourceDeps): Promise<void> {
  validateQuery(ctx, noQuery);
  ctx.body = { items: await listUsableImages(ctx.state.kube, deps) };
}

export function mountCatalogRoutes(router: ApiRouter, deps: ResourceDeps): void {
  router.get('/workspace-images', (ctx) => listImages(ctx, deps));
  router.post('/workspace-images', createObject(RESOURCES.workspaceImage, createWorkspaceImageRequest, workspaceImageObject));
  router.get('/workspace-images/:name', getObject(RESOURCES.workspaceImage));
  router.patch('/workspace-images/:name', patchObject(RESOURCES.workspaceImage, patchWorkspaceImageRequest, workspaceImagePatch));
  router.delete('/workspace-images/:name', deleteObject(RESOURCES.workspaceImage));
}
