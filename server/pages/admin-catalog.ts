// The catalog page of the administration: WorkspaceImages (create, edit, deprecate) and
// ImageRegistries (create, edit, force a sync).
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '../../kube/client.js';
import { LABELS } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { adminCatalogPage, type ImageLine, type RegistryLine } from '../../web/templates/admin-catalog.js';
import { forceSyncPatch, imageRegistryObject, imageRegistryPatch, workspaceImageObject, workspaceImagePatch } from '../api/mapping.js';
import { createImageRegistryRequest, createWorkspaceImageRequest, patchImageRegistryRequest, patchWorkspaceImageRequest } from '../api/schemas.js';
import { viewerOf } from './middleware.js';
import { sendPage } from './send.js';
import { action, checked, doneOf, formRequest, labelsOf, nameOf, nameParam, readiness, specOf, statusOf, type FieldKind, type On, type Render } from './admin-forms.js';
import type { PageDeps, PageRouter } from './types.js';

const IMAGE_FIELDS: Record<string, FieldKind> = { image: 'string', display_name: 'string', description: 'string', icon: 'string', tags: 'list' };
const REGISTRY_FIELDS: Record<string, FieldKind> = {
  region: 'string',
  registry_id: 'string',
  role_arn: 'string',
  interval_seconds: 'integer',
  include: 'list',
  exclude: 'list',
  tag_mode: 'string',
  tag_patterns: 'list',
  tag_limit: 'integer',
  prune: 'boolean',
  image_pull_secret: 'string',
};

function imageLine(o: KubeObject): ImageLine {
  const s = specOf(o);
  return {
    name: nameOf(o),
    displayName: String(s.displayName ?? nameOf(o)),
    image: String(s.image ?? ''),
    description: String(s.description ?? ''),
    icon: String(s.icon ?? ''),
    tags: Array.isArray(s.tags) ? s.tags.map(String) : [],
    deprecated: s.deprecated === true,
    registry: labelsOf(o)[LABELS.imageRegistry] ?? '',
  };
}

function registryLine(o: KubeObject): RegistryLine {
  const s = specOf(o);
  const sync = (s.sync ?? {}) as Record<string, any>;
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  return {
    name: nameOf(o),
    region: String(s.cloud?.region ?? ''),
    registryId: String(s.cloud?.registryId ?? ''),
    roleArn: String(s.cloud?.roleArn ?? ''),
    intervalSeconds: sync.intervalSeconds === undefined ? '' : String(sync.intervalSeconds),
    include: list(sync.include),
    exclude: list(sync.exclude),
    tagMode: String(sync.tags?.mode ?? 'latest'),
    tagPatterns: list(sync.tags?.patterns),
    tagLimit: sync.tags?.limit === undefined ? '' : String(sync.tags.limit),
    prune: sync.prune === true,
    pullSecret: String(s.imagePullSecretRef?.name ?? ''),
    ready: readiness(o).ready,
    lastSync: String(statusOf(o).lastSyncTime ?? ''),
    images: statusOf(o).images === undefined ? '' : String(statusOf(o).images),
  };
}

const renderCatalog: Render = async (ctx, _deps, outcome, status = 200) => {
  const { kube, assets } = ctx.state;
  const [images, registries] = await Promise.all([kube.list(RESOURCES.workspaceImage), kube.list(RESOURCES.imageRegistry)]);
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  sendPage(ctx, adminCatalogPage(assets, viewerOf(ctx)!, { images: images.items.map(imageLine).sort(byName), registries: registries.items.map(registryLine).sort(byName) }, outcome), status);
};

export function mountCatalogPages(router: PageRouter, deps: PageDeps, on: On): void {
  const name = nameParam;
  router.get('/admin/catalog', (ctx) => renderCatalog(ctx, deps, doneOf(ctx)));
  router.post('/admin/catalog/images', on(action(renderCatalog, '/admin/catalog', 'image-created', () => 'image', async (ctx) => {
    const req = checked(createWorkspaceImageRequest, formRequest(ctx.request.form ?? {}, { name: 'string', ...IMAGE_FIELDS }, false));
    await ctx.state.kube.create(RESOURCES.workspaceImage, workspaceImageObject(req));
  })));
  router.post('/admin/catalog/images/:name', on(action(renderCatalog, '/admin/catalog', 'image-saved', (ctx) => `image-${name(ctx)}`, async (ctx) => {
    const req = checked(patchWorkspaceImageRequest, formRequest(ctx.request.form ?? {}, IMAGE_FIELDS, true));
    await ctx.state.kube.patch(RESOURCES.workspaceImage, name(ctx), workspaceImagePatch(req));
  })));
  router.post('/admin/catalog/images/:name/deprecate', on(action(renderCatalog, '/admin/catalog', 'image-updated', () => 'deprecate', async (ctx) => {
    const req = checked(patchWorkspaceImageRequest, formRequest(ctx.request.form ?? {}, { deprecated: 'boolean' }, false));
    await ctx.state.kube.patch(RESOURCES.workspaceImage, name(ctx), workspaceImagePatch(req));
  })));
  router.post('/admin/catalog/registries', on(action(renderCatalog, '/admin/catalog', 'registry-created', () => 'registry', async (ctx) => {
    const req = checked(createImageRegistryRequest, formRequest(ctx.request.form ?? {}, { name: 'string', ...REGISTRY_FIELDS }, false));
    await ctx.state.kube.create(RESOURCES.imageRegistry, imageRegistryObject(req));
  })));
  router.post('/admin/catalog/registries/:name', on(action(renderCatalog, '/admin/catalog', 'registry-saved', (ctx) => `registry-${name(ctx)}`, async (ctx) => {
    const req = checked(patchImageRegistryRequest, formRequest(ctx.request.form ?? {}, REGISTRY_FIELDS, true));
    await ctx.state.kube.patch(RESOURCES.imageRegistry, name(ctx), imageRegistryPatch(req));
  })));
  router.post('/admin/catalog/registries/:name/force-sync', on(action(renderCatalog, '/admin/catalog', 'sync-requested', () => 'sync', async (ctx) => {
    await ctx.state.kube.patch(RESOURCES.imageRegistry, name(ctx), forceSyncPatch(new Date(), randomBytes(4).toString('hex')));
  })));
}
