// The dashboard and the workspace actions, read and written with the person's own minted
// token through the REST handlers' functions (server/api/workspaces.ts).
import type { Context } from 'koa';
import type { KubeClient } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { WORKSPACE_IMAGE_DEFAULTS } from '../../infra/crds/workspace-image.js';
import { dashboardPage } from '../../web/templates/dashboard.js';
import type { WorkspaceView } from '../../web/templates/format.js';
import { stringify } from 'yaml';
import { defaultPodName, homeClaimName } from '../../kube/group.js';
import { byEventTime, statusCard, workspacePage, type EventView } from '../../web/templates/workspace.js';
import { phaseOf, reasonOf } from '../../web/templates/format.js';
import { DEFAULT_LOG_TAIL, deleteWorkspaceOf, listWorkspacesOf, readWorkspaceLogs, setWorkspaceRunning } from '../api/workspaces.js';
import { describeError } from '../../koa/errors.js';
import { sameOriginPath, viewerOf, type PageState } from './middleware.js';
import { takeNotice } from './notice.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';
import { declaredAppsOf } from './workspace-apps.js';

/** Home path of every catalog entry the person can read, by name (for VS Code links). */
export async function homePathsOf(kube: KubeClient): Promise<Map<string, string>> {
  const { items } = await kube.list<{ metadata?: { name?: string }; spec?: { homePath?: string } }>(RESOURCES.workspaceImage);
  return new Map(items.map((i) => [i.metadata?.name ?? '', i.spec?.homePath || WORKSPACE_IMAGE_DEFAULTS.homePath]));
}

export function sendPage(ctx: Context, body: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = body;
}

async function dashboard(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { caller, kube, assets } = ctx.state;
  // A person's own namespace, even for an administrator (the admin pages list everyone's).
  const [workspaces, homePaths] = await Promise.all([listWorkspacesOf({ ...caller, role: 'user' }, kube), homePathsOf(kube)]);
  const sorted = (workspaces as WorkspaceView[]).sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  sendPage(ctx, dashboardPage(assets, viewerOf(ctx)!, { workspaces: sorted, homePaths, defaultHomePath: WORKSPACE_IMAGE_DEFAULTS.homePath, now: deps.now() }));
}

function startOrStop(running: boolean) {
  return async (ctx: PageContext): Promise<void> => {
    const { caller, kube } = ctx.state;
    const name = ctx.params.name!;
    await setWorkspaceRunning(kube, name, caller.namespace, running);
    ctx.redirect(sameOriginPath(ctx.request.form?.back ?? `/w/${name}`));
  };
}

/** Events about the workspace, its pod and its home volume, newest last; the pod's alone for the progress list. */
export async function eventsOf(kube: KubeClient, ws: WorkspaceView, namespace: string): Promise<{ all: EventView[]; pod: EventView[] }> {
  const name = ws.metadata?.name ?? '';
  const pod = ws.status?.podName || defaultPodName(name);
  const about = new Set([name, pod, homeClaimName(name)]);
  const { items } = await kube.list<EventView>(RESOURCES.event, { namespace });
  const all = items.filter((e) => about.has(e.involvedObject?.name ?? '')).sort(byEventTime);
  return { all, pod: all.filter((e) => e.involvedObject?.kind === 'Pod' && e.involvedObject.name === pod) };
}

async function readWorkspace(ctx: PageContext): Promise<WorkspaceView> {
  return ctx.state.kube.get<WorkspaceView>(RESOURCES.workspace, ctx.params.name!, ctx.state.caller.namespace);
}

async function workspacePageOf(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { kube, caller, assets } = ctx.state;
  const notice = takeNotice(ctx, deps.secureCookies);
  const ws = await readWorkspace(ctx);
  const [events, homePaths, apps] = await Promise.all([eventsOf(kube, ws, caller.namespace), homePathsOf(kube), declaredAppsOf(kube, ws.spec?.imageRef?.name)]);
  const shown = { ...ws, metadata: { ...ws.metadata, managedFields: undefined } };
  sendPage(
    ctx,
    workspacePage(assets, viewerOf(ctx)!, {
      ws,
      podEvents: events.pod,
      events: events.all,
      yaml: stringify(shown),
      homePath: homePaths.get(ws.spec?.imageRef?.name ?? '') ?? WORKSPACE_IMAGE_DEFAULTS.homePath,
      now: deps.now(),
      notice,
      apps,
    }),
  );
}

/** The status card as an HTML fragment, or `application/json` ({phase, reason, conditions, events}) when asked for. */
async function status(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { kube, caller } = ctx.state;
  const ws = await readWorkspace(ctx);
  const events = await eventsOf(kube, ws, caller.namespace);
  if (ctx.accepts('html', 'json') === 'json') {
    ctx.body = { phase: phaseOf(ws), reason: reasonOf(ws), conditions: ws.status?.conditions ?? [], events: events.pod };
    return;
  }
  ctx.type = 'html';
  ctx.body = statusCard(ws, events.pod, deps.now()).text;
}

/** JSON for the page's script: REST's LogsResponse, or {error} with REST's status (409 with no running pod). */
async function logs(ctx: PageContext): Promise<void> {
  const raw = typeof ctx.query.tail === 'string' ? ctx.query.tail : String(DEFAULT_LOG_TAIL);
  const tail = /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : DEFAULT_LOG_TAIL;
  try {
    ctx.body = await readWorkspaceLogs(ctx.state.kube, ctx.params.name!, ctx.state.caller.namespace, tail);
  } catch (err) {
    const { status, message } = describeError(err);
    ctx.status = status;
    ctx.body = { error: message };
  }
}

async function remove(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { kube, caller } = ctx.state;
  const name = ctx.params.name!;
  await deleteWorkspaceOf(kube, name, caller.namespace, ctx.request.form?.delete_volume !== '1', deps.resources);
  ctx.redirect('/');
}

export function mountWorkspacePages(router: PageRouter, deps: PageDeps): void {
  router.get('/', (ctx) => dashboard(ctx, deps));
  router.get('/w/:name', (ctx) => workspacePageOf(ctx, deps));
  router.get('/w/:name/status', (ctx) => status(ctx, deps));
  router.get('/w/:name/logs', logs);
  router.post('/w/:name/start', startOrStop(true));
  router.post('/w/:name/stop', startOrStop(false));
  router.post('/w/:name/delete', (ctx) => remove(ctx, deps));
}

export type { PageState };
