// The workspaces page of the administration: everyone's workspaces, filtered and sorted on the
// server, started, stopped and deleted with the administrator's own token (RBAC decides).
import type { KubeObject } from '../../kube/client.js';
import { ANNOTATIONS, homeClaimName, userNamespace } from '../../kube/group.js';
import { isDns1123Label } from '../../kube/names.js';
import { RESOURCES } from '../../kube/resources.js';
import { adminWorkspaceDeletePage, adminWorkspacesList, adminWorkspacesPage, WORKSPACE_SORTS, type WorkspaceFilter, type WorkspaceLine, type WorkspaceSort } from '../../web/templates/admin-workspaces.js';
import { ago, PHASES } from '../../web/templates/format.js';
import { deleteRefusalOf } from '../../web/templates/delete-form.js';
import { HttpError } from '../../koa/errors.js';
import { deleteWorkspaceOf, setWorkspaceRunning } from '../api/workspaces.js';
import { viewerOf } from './middleware.js';
import { refusalOf } from './refusal.js';
import { pageActor, sendPage, wantsLivePart } from './send.js';
import { DONE, doneOf, nameOf, specOf, statusOf, type On, type Render } from './admin-forms.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';

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

export function mountWorkspaceAdminPages(router: PageRouter, deps: PageDeps, on: On): void {
  router.get('/admin/workspaces', (ctx) => renderWorkspaces(ctx, deps, doneOf(ctx)));
  router.post('/admin/workspaces/:namespace/:name/start', on(workspaceAction('workspace-started', (ctx, n, ns, d) => setWorkspaceRunning(pageActor(ctx), n, ns, true, d.resources))));
  router.post('/admin/workspaces/:namespace/:name/stop', on(workspaceAction('workspace-stopped', (ctx, n, ns, d) => setWorkspaceRunning(pageActor(ctx), n, ns, false, d.resources))));
  router.get('/admin/workspaces/:namespace/:name/delete', (ctx) => confirmDelete(ctx, deps));
  router.post('/admin/workspaces/:namespace/:name/delete', on(deleteFromList));
}
