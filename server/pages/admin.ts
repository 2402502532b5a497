// The administration pages, read and written with the person's own minted token through the
// REST mappings and schemas (server/api/*.ts, server/api/local-users.ts): the cluster's RBAC
// decides, and someone without the rights sees its 403 message naming the missing right.
// Forms post back to their page; a refusal is shown above that form with what was typed.
import { isDisabled, roleOf } from '../../contract/user-space.js';
import { randomBytes } from 'node:crypto';
import type { AnySchema } from 'yup';
import type { KubeObject } from '../../kube/client.js';
import { ANNOTATIONS, GROUP, homeClaimName, LABELS, SYSTEM_NAMESPACE, userNamespace, VERSION } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import {
  adminCatalogPage,
  adminOverviewPage,
  adminQuotaPage,
  adminSettingsPage,
  adminUsersPage,
  adminWorkspacesList,
  adminWorkspacesPage,
  adminWorkspaceDeletePage,
  WORKSPACE_SORTS,
  type AdminOutcome,
  type ImageLine,
  type PersonLine,
  type RegistryLine,
  type WorkspaceFilter,
  type WorkspaceLine,
  type WorkspaceSort,
} from '../../web/templates/admin.js';
import { ago, PHASES } from '../../web/templates/format.js';
import { isDns1123Label } from '../../kube/names.js';
import { deleteWorkspaceOf, setWorkspaceRunning } from '../api/workspaces.js';
import {
  forceSyncPatch,
  imageRegistryObject,
  imageRegistryPatch,
  membershipPatch,
  quotaOf,
  quotaPatch,
  userSpaceObject,
  workspaceImageObject,
  workspaceImagePatch,
} from '../api/mapping.js';
import {
  createImageRegistryRequest,
  createWorkspaceImageRequest,
  membershipRequest,
  patchImageRegistryRequest,
  patchWorkspaceImageRequest,
  quotaRequest,
  userSpaceRequest,
} from '../api/schemas.js';
import { DEFAULT_QUOTA, userSpacesWithUsage } from '../api/userspaces.js';
import { requireAdministrator } from '../auth/admin.js';
import { HttpError } from '../../koa/errors.js';
import { createLocalUserOf, deleteLocalUserOf } from '../api/local-users.js';
import { localUserRequest } from '../api/account-schemas.js';
import { viewerOf } from './middleware.js';
import { pageActor, sendPage, wantsLivePart } from './workspaces.js';
import { refusalOf } from './refusal.js';
import { deleteRefusalOf } from '../../web/templates/delete-form.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';

type FieldKind = 'string' | 'integer' | 'boolean' | 'list';

/**
 * An HTML form as the REST request its schema checks: integers and booleans typed, lists split
 * on commas. A create drops empty fields (absent, as in JSON); an edit sends them, which clears
 * what can be cleared.
 */
export function formRequest(form: Record<string, string>, kinds: Record<string, FieldKind>, keepEmpty: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, kind] of Object.entries(kinds)) {
    const raw = form[field];
    if (raw === undefined) continue;
    const text = raw.trim();
    if (kind === 'boolean') out[field] = text === '1';
    else if (kind === 'list') {
      if (text || keepEmpty) out[field] = text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
    } else if (!text) {
      if (keepEmpty && kind === 'string') out[field] = '';
    } else if (kind === 'integer') out[field] = /^-?\d{1,12}$/.test(text) ? Number(text) : text;
    else out[field] = text;
  }
  return out;
}

function checked<S extends AnySchema>(schema: S, request: Record<string, unknown>): S['__outputType'] {
  return schema.validateSync(request, { strict: true, abortEarly: false }) as S['__outputType'];
}

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

/** What a refused form shows again: everything typed but a password, which never goes back into a page. */
export function typedBack(form: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(form).filter(([field]) => !/password/i.test(field)));
}

type Render = (ctx: PageContext, deps: PageDeps, outcome: AdminOutcome, status?: number) => Promise<void>;

/**
 * A form handler: `act` does the write; success redirects to `back` with what was done, a
 * refusal (4xx: the schema's or the cluster's words) renders the page again above `form`.
 */
function action(render: Render, back: string, done: keyof typeof DONE, form: (ctx: PageContext) => string, act: (ctx: PageContext, deps: PageDeps) => Promise<unknown>) {
  return async (ctx: PageContext, deps: PageDeps): Promise<void> => {
    try {
      await act(ctx, deps);
      ctx.redirect(`${back}?done=${encodeURIComponent(done)}`);
    } catch (err) {
      const { status, said, cluster } = refusalOf(err);
      await render(ctx, deps, { error: { form: form(ctx), message: said, cluster }, values: typedBack(ctx.request.form ?? {}) }, status);
    }
  };
}

/** What a finished action says; the redirect names it by key, so a link cannot put words on the page. */
const DONE: Record<string, string> = {
  'person-created': 'The person was created.',
  'local-user-created': 'The local user was created.',
  'local-user-deleted': 'The local user was deleted.',
  'membership-saved': 'The membership was saved.',
  'quota-saved': 'The quota was saved.',
  'image-created': 'The entry was created.',
  'image-saved': 'The entry was saved.',
  'image-updated': 'The entry was updated.',
  'registry-created': 'The registry was created.',
  'registry-saved': 'The registry was saved.',
  'sync-requested': 'A sync was requested; it runs in the background.',
  'workspace-started': 'The workspace was asked to start.',
  'workspace-stopped': 'The workspace was asked to stop; its home volume is kept.',
  'workspace-deleted': 'The workspace was deleted; its home volume was kept.',
  'workspace-deleted-with-volume': 'The workspace was deleted with its home volume and everything in its home folder.',
};

function doneOf(ctx: PageContext): AdminOutcome {
  const key = String(ctx.query.done ?? '');
  return Object.hasOwn(DONE, key) ? { done: DONE[key] } : {};
}

const labelsOf = (o: KubeObject) => o.metadata?.labels ?? {};
const nameOf = (o: KubeObject) => o.metadata?.name ?? '';
const specOf = (o: KubeObject) => (o.spec ?? {}) as Record<string, any>;
const statusOf = (o: KubeObject) => (o.status ?? {}) as Record<string, any>;

function readiness(o: KubeObject): { ready: string; message: string } {
  const conditions = (statusOf(o).conditions ?? []) as { type?: string; status?: string; message?: string }[];
  const ready = conditions.find((c) => c.type === 'Ready');
  const degraded = conditions.find((c) => c.type === 'Degraded' && c.status === 'True');
  return { ready: ready?.status === 'True' ? 'Ready' : ready ? 'Not ready' : 'Not synced yet', message: degraded?.message ?? (ready?.status === 'True' ? '' : ready?.message ?? '') };
}

// Overview

async function overview(ctx: PageContext): Promise<void> {
  const { kube, assets } = ctx.state;
  const [people, workspaces, images, registries] = await Promise.all([
    kube.list(RESOURCES.userSpace),
    kube.list(RESOURCES.workspace),
    kube.list(RESOURCES.workspaceImage),
    kube.list(RESOURCES.imageRegistry),
  ]);
  const phases = new Map<string, number>();
  for (const w of workspaces.items) {
    const phase = String(statusOf(w).phase ?? 'Unknown');
    phases.set(phase, (phases.get(phase) ?? 0) + 1);
  }
  sendPage(
    ctx,
    adminOverviewPage(assets, viewerOf(ctx)!, {
      people: people.items.length,
      admins: people.items.filter((u) => roleOf(u) === 'admin').length,
      disabled: people.items.filter(isDisabled).length,
      workspaces: workspaces.items.length,
      phases: [...phases.entries()].sort(([a], [b]) => a.localeCompare(b)),
      images: images.items.length,
      deprecated: images.items.filter((i) => specOf(i).deprecated === true).length,
      registries: registries.items.map((r) => ({ name: nameOf(r), ...readiness(r) })),
    }),
  );
}

// People

/** A UserSpace as a line of the people table. */
export function personLine(u: KubeObject): PersonLine {
  return { name: nameOf(u), owner: String(specOf(u).owner ?? ''), role: roleOf(u), disabled: isDisabled(u), phase: String(statusOf(u).phase ?? 'Pending') };
}

const renderUsers: Render = async (ctx, deps, outcome, status = 200) => {
  const { kube, caller, assets } = ctx.state;
  const people = await kube.list(RESOURCES.userSpace);
  // Local users are the server's own records: shown only to whom the cluster calls an administrator.
  if (deps.localAuth) await requireAdministrator(kube, caller);
  sendPage(
    ctx,
    adminUsersPage(
      assets,
      viewerOf(ctx)!,
      {
        people: people.items
          .map(personLine)
          .sort((a, b) => a.name.localeCompare(b.name)),
        localAuth: deps.localAuth,
        localUsers: deps.localAuth ? (await deps.auth.localUsers.list()).map((u) => ({ username: u.username, owner: u.owner })).sort((a, b) => a.username.localeCompare(b.username)) : [],
      },
      outcome,
    ),
    status,
  );
};

function requireLocalAuth(deps: PageDeps): void {
  if (!deps.localAuth) throw new HttpError(404, 'local user management is disabled (--local-auth=false)');
}

// Quota

const renderQuota: Render = async (ctx, deps, outcome, status = 200) => {
  const { kube, assets } = ctx.state;
  const items = await userSpacesWithUsage(kube, deps.resources.gpuResource);
  const lines = items.map((u) => ({ name: nameOf(u), owner: String(specOf(u).owner ?? ''), quota: quotaOf(u), usage: u.usage })).sort((a, b) => a.name.localeCompare(b.name));
  sendPage(ctx, adminQuotaPage(assets, viewerOf(ctx)!, lines, outcome), status);
};

// Catalog

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

// Workspaces

function ownerOf(namespace: string, owners: Map<string, string>): string {
  return owners.get(namespace) ?? '';
}

/** The admin list, filtered by owner and phase and sorted on the server (pure, so it is tested directly). */
export function workspaceLines(workspaces: KubeObject[], userSpaces: KubeObject[], opts: WorkspaceFilter & { sort: WorkspaceSort; now: number }): WorkspaceLine[] {
  const owners = new Map(userSpaces.map((u) => [String(statusOf(u).namespace || userNamespace(nameOf(u))), String(specOf(u).owner ?? '')]));
  const rows = workspaces
    .map((w) => ({
      line: {
        name: nameOf(w),
        namespace: w.metadata?.namespace ?? '',
        owner: ownerOf(w.metadata?.namespace ?? '', owners) || (w.metadata?.annotations?.[ANNOTATIONS.requester] ?? ''),
        phase: String(statusOf(w).phase ?? 'Unknown'),
        image: String(specOf(w).imageRef?.name ?? ''),
        age: ago(w.metadata?.creationTimestamp, opts.now),
        running: specOf(w).running !== false,
      },
      created: Date.parse(w.metadata?.creationTimestamp ?? '') || 0,
    }))
    .filter((r) => (!opts.phase || r.line.phase === opts.phase) && (!opts.owner || r.line.owner === opts.owner));
  const key = (r: (typeof rows)[number]): string => (opts.sort === 'age' ? '' : r.line[opts.sort]);
  rows.sort((a, b) => (opts.sort === 'age' ? b.created - a.created : key(a).localeCompare(key(b))) || a.line.namespace.localeCompare(b.line.namespace) || a.line.name.localeCompare(b.line.name));
  return rows.map((r) => r.line);
}

/** The list's view from its query (`owner`, `phase`, `sort`), anything unknown ignored. */
function workspaceQuery(query: Record<string, unknown>): WorkspaceFilter & { sort: WorkspaceSort } {
  const sort = (WORKSPACE_SORTS as readonly string[]).includes(String(query.sort)) ? (String(query.sort) as WorkspaceSort) : 'name';
  const phase = (PHASES as readonly string[]).includes(String(query.phase)) ? String(query.phase) : '';
  const owner = typeof query.owner === 'string' ? query.owner.slice(0, 320) : '';
  return { sort, phase, owner };
}

const renderWorkspaces: Render = async (ctx, deps, outcome, status = 200) => {
  const { kube, assets } = ctx.state;
  // After an action the list comes back as it was filtered: the form carries the query it came from.
  const view = workspaceQuery(ctx.method === 'POST' ? Object.fromEntries(backQuery(ctx)) : ctx.query);
  const [workspaces, userSpaces] = await Promise.all([kube.list(RESOURCES.workspace), kube.list(RESOURCES.userSpace)]);
  const items = workspaceLines(workspaces.items, userSpaces.items, { ...view, now: deps.now() });
  const owners = [...new Set(userSpaces.items.map((u) => String(specOf(u).owner ?? '')).filter(Boolean))].sort();
  const list = { items, owners, ...view };
  sendPage(ctx, wantsLivePart(ctx) ? adminWorkspacesList(list, viewerOf(ctx)!.csrf).text : adminWorkspacesPage(assets, viewerOf(ctx)!, list, outcome), status);
};

/** The list's own query as the action form carried it back (`owner`, `phase`, `sort` only). */
function backQuery(ctx: PageContext): URLSearchParams {
  return listParams(ctx.request.form?.back_query ?? '');
}

/** The list's own parameters (`owner`, `phase`, `sort`) of a query string, nothing else. */
function listParams(query: string): URLSearchParams {
  return new URLSearchParams([...new URLSearchParams(query)].filter(([k]) => k === 'owner' || k === 'phase' || k === 'sort'));
}

/**
 * An action on someone's workspace from the list, with the administrator's own token (RBAC
 * decides); then the list as it was filtered, saying what was done, or the refusal above it.
 */
function workspaceAction(done: keyof typeof DONE, act: (ctx: PageContext, name: string, namespace: string, deps: PageDeps) => Promise<unknown>) {
  return async (ctx: PageContext, deps: PageDeps): Promise<void> => {
    const namespace = ctx.params.namespace!;
    if (!isDns1123Label(namespace)) throw new HttpError(404, `not found: "${namespace}" is not a valid namespace name`);
    const back = backQuery(ctx);
    try {
      await act(ctx, ctx.params.name!, namespace, deps);
    } catch (err) {
      const { status, said, cluster } = refusalOf(err);
      // Someone who may not even list the workspaces gets the refusal itself as the page.
      return renderWorkspaces(ctx, deps, { error: { form: 'workspaces', message: said, cluster } }, status).catch(() => {
        throw err;
      });
    }
    back.set('done', done);
    ctx.redirect(`/admin/workspaces?${back.toString()}`);
  };
}

/** GET /admin/workspaces/{namespace}/{name}/delete: the confirmation, for a workspace that is there. */
async function confirmDelete(ctx: PageContext, deps: PageDeps, refusal?: string, status = 200): Promise<void> {
  const { kube, assets } = ctx.state;
  const namespace = ctx.params.namespace!;
  if (!isDns1123Label(namespace)) throw new HttpError(404, `not found: "${namespace}" is not a valid namespace name`);
  const name = ctx.params.name!;
  await kube.get(RESOURCES.workspace, name, namespace);
  const query = (ctx.method === 'POST' ? backQuery(ctx) : listParams(ctx.querystring)).toString();
  sendPage(ctx, adminWorkspaceDeletePage(assets, viewerOf(ctx)!, { name, namespace, claim: homeClaimName(name), backQuery: query, refusal }), status);
}

/**
 * POST …/delete: with the home volume (the default) only once the name is typed; then the list
 * as it was filtered, saying what was deleted.
 */
async function deleteFromList(ctx: PageContext, deps: PageDeps): Promise<void> {
  const form = ctx.request.form ?? {};
  const refusal = deleteRefusalOf(ctx.params.name!, form);
  if (refusal) return confirmDelete(ctx, deps, refusal, 400);
  const withVolume = form.delete_volume === '1';
  const act = workspaceAction(withVolume ? 'workspace-deleted-with-volume' : 'workspace-deleted', (c, n, ns, d) => deleteWorkspaceOf(pageActor(c), n, ns, !withVolume, d.resources));
  return act(ctx, deps);
}

// Settings

async function settings(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { kube, caller, assets } = ctx.state;
  await requireAdministrator(kube, caller);
  const policy = deps.auth.sessions.policy;
  const hours = (ms: number) => `${Math.round(ms / 3_600_000)} h`;
  const rows: [string, string][] = [
    ['API group', `${GROUP}/${VERSION}`],
    ['Platform namespace', SYSTEM_NAMESPACE],
    ['Local sign-in', deps.localAuth ? 'on (username and password)' : 'off'],
    ['Base URL', deps.baseUrl],
    ['Identity providers', deps.providers.choices().map((p) => `${p.label} (${p.name})`).join(', ') || 'none'],
    ['Secure cookies (https base URL)', deps.secureCookies ? 'yes' : 'no'],
    ['Session ends after idle', hours(policy.idleMs)],
    ['Session ends at the latest after', hours(policy.absoluteMs)],
    ['GPU resource name', deps.resources.gpuResource],
    ['Catalog access reviews at once', String(deps.resources.catalogConcurrency ?? 16)],
  ];
  sendPage(ctx, adminSettingsPage(assets, viewerOf(ctx)!, rows));
}

export function mountAdminPages(router: PageRouter, deps: PageDeps): void {
  const on = (handler: (ctx: PageContext, deps: PageDeps) => Promise<void>) => (ctx: PageContext) => handler(ctx, deps);
  const name = (ctx: PageContext) => ctx.params.name!;

  router.get('/admin', (ctx) => ctx.redirect('/admin/overview'));
  router.get('/admin/overview', on(overview));

  router.get('/admin/users', (ctx) => renderUsers(ctx, deps, doneOf(ctx)));
  router.post('/admin/users', on(action(renderUsers, '/admin/users', 'person-created', () => 'person', async (ctx) => {
    const req = checked(userSpaceRequest, formRequest(ctx.request.form ?? {}, { name: 'string', owner: 'string', role: 'string' }, false));
    await ctx.state.kube.create(RESOURCES.userSpace, userSpaceObject(req, DEFAULT_QUOTA));
  })));
  router.post('/admin/users/local', on(action(renderUsers, '/admin/users', 'local-user-created', () => 'local', async (ctx, d) => {
    requireLocalAuth(d);
    await requireAdministrator(ctx.state.kube, ctx.state.caller);
    const req = checked(localUserRequest, formRequest(ctx.request.form ?? {}, { username: 'string', password: 'string', owner: 'string' }, false));
    await createLocalUserOf({ localUsers: d.auth.localUsers, now: d.now }, req);
  })));
  router.post('/admin/users/local/:name/delete', on(action(renderUsers, '/admin/users', 'local-user-deleted', () => 'local', async (ctx, d) => {
    requireLocalAuth(d);
    await requireAdministrator(ctx.state.kube, ctx.state.caller);
    await deleteLocalUserOf(d.auth, name(ctx));
  })));
  router.post('/admin/users/:name/membership', on(action(renderUsers, '/admin/users', 'membership-saved', () => 'membership', async (ctx) => {
    const req = checked(membershipRequest, formRequest(ctx.request.form ?? {}, { role: 'string', disabled: 'boolean' }, false));
    await ctx.state.kube.patch(RESOURCES.userSpace, name(ctx), membershipPatch(req));
  })));

  router.get('/admin/quota', (ctx) => renderQuota(ctx, deps, doneOf(ctx)));
  router.post('/admin/quota/:name', on(action(renderQuota, '/admin/quota', 'quota-saved', (ctx) => `quota-${name(ctx)}`, async (ctx) => {
    const req = checked(quotaRequest, formRequest(ctx.request.form ?? {}, { workspaces: 'integer', cpu: 'string', memory: 'string', storage: 'string', gpu: 'integer' }, false));
    await ctx.state.kube.patch(RESOURCES.userSpace, name(ctx), quotaPatch(req));
  })));

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

  router.get('/admin/workspaces', (ctx) => renderWorkspaces(ctx, deps, doneOf(ctx)));
  router.post('/admin/workspaces/:namespace/:name/start', on(workspaceAction('workspace-started', (ctx, n, ns, d) => setWorkspaceRunning(pageActor(ctx), n, ns, true, d.resources))));
  router.post('/admin/workspaces/:namespace/:name/stop', on(workspaceAction('workspace-stopped', (ctx, n, ns, d) => setWorkspaceRunning(pageActor(ctx), n, ns, false, d.resources))));
  router.get('/admin/workspaces/:namespace/:name/delete', (ctx) => confirmDelete(ctx, deps));
  router.post('/admin/workspaces/:namespace/:name/delete', on(deleteFromList));
  router.get('/admin/settings', on(settings));
}
