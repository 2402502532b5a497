// SPEC 4.3, second half: ImageRegistries. Writes are administrator-only through the cluster's RBAC.
import { randomBytes } from 'node:crypto';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isNotFound } from '../../kube/errors.js';
import { LABELS } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { noQuery, validateQuery } from '../http/validate.js';
import { mapBounded } from '../../process/concurrency.js';
import { forceSyncPatch, imageRegistryObject, imageRegistryPatch } from './mapping.js';
import { createObject, getObject, listObjects, patchObject } from './object-handlers.js';
import { createImageRegistryRequest, patchImageRegistryRequest } from './schemas.js';
import type { ApiContext, ApiRouter, ResourceDeps } from './types.js';

const DELETE_CONCURRENCY = 16;

/** The entries `registry` synced: labelled with its name and owned by this very object (same uid). */
function ownedBy(registry: KubeObject, image: KubeObject): boolean {
  return (image.metadata?.ownerReferences ?? []).some((ref) => ref.uid === registry.metadata?.uid);
}

/**
 * Deletes the registry, then the entries it synced, with the caller's token. The cluster's
 * garbage collector would remove them too (they carry owner references), but only eventually;
 * deleting them here makes them leave the catalog before the answer. An entry the collector
 * removed first answers 404, which is the outcome wanted.
 */
async function deleteRegistry(ctx: ApiContext, deps: ResourceDeps): Promise<void> {
  validateQuery(ctx, noQuery);
  const name = ctx.params.name!;
  const { kube } = ctx.state;
  const registry = await kube.get(RESOURCES.imageRegistry, name);
  await kube.delete(RESOURCES.imageRegistry, name);
  await deleteSyncedImages(kube, registry, deps);
  ctx.status = 204;
}

async function deleteSyncedImages(kube: KubeClient, registry: KubeObject, deps: ResourceDeps): Promise<void> {
  const name = registry.metadata?.name ?? '';
  const { items } = await kube.list(RESOURCES.workspaceImage, { labelSelector: `${LABELS.imageRegistry}=${name}` });
  await mapBounded(items.filter((image) => ownedBy(registry, image)), DELETE_CONCURRENCY, async (image) => {
    try {
      await kube.delete(RESOURCES.workspaceImage, image.metadata?.name ?? '');
    } catch (err) {
      if (isNotFound(err)) return;
      // The registry is gone already; the garbage collector still removes what is left.
      deps.log('synced catalog entry left for the garbage collector', { registry: name, image: image.metadata?.name, error: (err as Error).message });
    }
  });
}

async function forceSync(ctx: ApiContext): Promise<void> {
  validateQuery(ctx, noQuery);
  await ctx.state.kube.patch(RESOURCES.imageRegistry, ctx.params.name!, forceSyncPatch(new Date(), randomBytes(4).toString('hex')));
  // An explicit null body: Koa would otherwise write the status text as the body.
  ctx.body = null;
  ctx.status = 202;
}

export function mountRegistryRoutes(router: ApiRouter, deps: ResourceDeps): void {
  router.get('/image-registries', listObjects(RESOURCES.imageRegistry));
  router.post('/image-registries', createObject(RESOURCES.imageRegistry, createImageRegistryRequest, imageRegistryObject));
  router.get('/image-registries/:name', getObject(RESOURCES.imageRegistry));
  router.patch('/image-registries/:name', patchObject(RESOURCES.imageRegistry, patchImageRegistryRequest, imageRegistryPatch));
  router.delete('/image-registries/:name', (ctx) => deleteRegistry(ctx, deps));
  router.post('/image-registries/:name/force-sync', forceSync);
}
