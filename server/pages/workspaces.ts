// The dashboard and the workspace actions, read and written with the person's own minted
// token through the REST handlers' functions (server/api/workspaces.ts).
import type { Context } from 'koa';
import type { KubeClient } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { WORKSPACE_IMAGE_DEFAULTS } from '../../infra/crds/workspace-image.js';
import { dashboardCards, dashboardPage } from '../../web/templates/dashboard.js';
import { LIVE_FRAGMENT_HEADER } from '../../web/templates/live.js';
import { isNotFound, KubeApiError } from '../../kube/errors.js';
import { failureOf } from './failure.js';
import type { WorkspaceView } from '../../web/templates/format.js';
import { stringify } from 'yaml';
import { defaultPodName, homeClaimName } from '../../kube/group.js';
import { byEventTime, workspaceLive, workspacePage, type EventView } from '../../web/templates/workspace.js';
import { phaseOf, reasonOf, type Failure } from '../../web/templates/format.js';
import { DEFAULT_LOG_TAIL, deleteWorkspaceOf, listWorkspacesOf, readWorkspaceLogs, setWorkspaceRunning } from '../api/workspaces.js';
import { describeError } from '../../koa/errors.js';
import { sameOriginPath, viewerOf, type PageState } from './middleware.js';
import { leaveNotice, takeNotice } from './notice.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';

interface CatalogEntry {
  metadata?: { name?: string };
  spec?: { homePath?: string; displayName?: string };
}

/** What the pages show of a catalog entry: its home path (for VS Code links) and its title. */
export interface EntryFacts {
  homePath: string;
  title?: string;
}

function entryFacts(entry: CatalogEntry | undefined): EntryFacts {
  return { homePath: entry?.spec?.homePath || WORKSPACE_IMAGE_DEFAULTS.homePath, title: entry?.spec?.displayName || undefined };
}

/** One catalog entry; an entry gone or hidden from the person reads as the defaults. */
async function catalogEntryOf(kube: KubeClient, name: string): Promise<EntryFacts> {
  if (!name) return entryFacts(undefined);
  try {
    return entryFacts(await kube.get<CatalogEntry>(RESOURCES.workspaceImage, name));
  } catch (err) {
    if (err instanceof KubeApiError && (err.status === 404 || err.status === 403)) return entryFacts(undefined);
    throw err;
  }
}

/** A workspace's page or card shows its entry (the VS Code link's home path, the title a failure names) only when Running or Failed. */
function showsEntry(ws: WorkspaceView): boolean {
  const phase = phaseOf(ws);
  return phase === 'Running' || phase === 'Failed';
}

/** Beyond this many different entries the cards read the whole catalog at once. */
const ENTRY_READS_AT_MOST = 4;

/**
 * The catalog entries the cards show, by name: one read each, as entries carry icons and a
 * catalog can be large (the dashboard asks every 3 s); the whole catalog when many are shown.
 */
async function entriesShownBy(kube: KubeClient, workspaces: WorkspaceView[]): Promise<Map<string, EntryFacts>> {
  const names = [...new Set(workspaces.filter(showsEntry).map((ws) => ws.spec?.imageRef?.name ?? ''))].filter(Boolean);
  if (names.length > ENTRY_READS_AT_MOST) {
    const { items } = await kube.list<CatalogEntry>(RESOURCES.workspaceImage);
    return new Map(items.map((i) => [i.metadata?.name ?? '', entryFacts(i)]));
  }
  return new Map(await Promise.all(names.map(async (name) => [name, await catalogEntryOf(kube, name)] as const)));
}

/** Is this request a live page's poll for its live part alone (web/templates/live.ts)? */
export function wantsLivePart(ctx: Context): boolean {
  return ctx.get(LIVE_FRAGMENT_HEADER) === 'live';
}

export function sendPage(ctx: Context, body: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = body;
}

async function dashboard(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { caller, kube, assets } = ctx.state;
  // A person's own namespace, even for an administrator (the admin pages list everyone's).
  const workspaces = (await listWorkspacesOf({ ...caller, role: 'user' }, kube)) as WorkspaceView[];
  const sorted = workspaces.sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  const entries = await entriesShownBy(kube, sorted);
  const failures = new Map<string, Failure>();
  for (const ws of sorted) {
    const failure = failureOf(ws, entries.get(ws.spec?.imageRef?.name ?? '')?.title);
    if (failure) failures.set(ws.metadata?.name ?? '', failure);
  }
  const homePaths = new Map([...entries].map(([name, facts]) => [name, facts.homePath]));
  const view = { workspaces: sorted, homePaths, defaultHomePath: WORKSPACE_IMAGE_DEFAULTS.homePath, failures, now: deps.now() };
  const viewer = viewerOf(ctx)!;
  if (wantsLivePart(ctx)) sendPage(ctx, dashboardCards(view, viewer.csrf).text);
  else sendPage(ctx, dashboardPage(assets, viewer, view));
}

function startOrStop(running: boolean) {
  return async (ctx: PageContext): Promise<void> => {
    const { caller, kube } = ctx.state;
    const name = ctx.params.name!;
    await setWorkspaceRunning(kube, name, caller.namespace, running);
    ctx.redirect(sameOriginPath(ctx.request.form?.back ?? `/w/${name}`));
  };
}

/** How long a restart waits for the stopped workspace's pod to go before starting it again. */
const RESTART_WAIT_MS = 15_000;
const RESTART_CHECK_EVERY_MS = 400;

/** Until the pod is gone or on its way (terminating); false if it is still there after `waitMs`. */
async function podLeaving(kube: KubeClient, pod: string, namespace: string, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const seen = await kube.get<{ metadata?: { deletionTimestamp?: string } }>(RESOURCES.pod, pod, namespace);
      if (seen.metadata?.deletionTimestamp) return true;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, RESTART_CHECK_EVERY_MS));
  }
}

/**
 * Restart (a Failed workspace asked to run): stop it, and once its pod is leaving start it
 * again, so the StatefulSet makes a new pod from the catalog entry as it is now. A pod stuck
 * in an image pull is otherwise never replaced, and a person may not delete pods.
 */
async function restart(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { caller, kube } = ctx.state;
  const name = ctx.params.name!;
  const ws = await readWorkspace(ctx);
  await setWorkspaceRunning(kube, name, caller.namespace, false);
  if (await podLeaving(kube, ws.status?.podName || defaultPodName(name), caller.namespace, RESTART_WAIT_MS)) {
    await setWorkspaceRunning(kube, name, caller.namespace, true);
  } else {
    leaveNotice(ctx, `/w/${name}`, `${name} is stopped, but its pod had not gone after ${RESTART_WAIT_MS / 1000} seconds; start it again when it shows Suspended.`, deps.secureCookies);
  }
  ctx.redirect(sameOriginPath(ctx.request.form?.back ?? `/w/${name}`));
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
  const [events, entry] = await Promise.all([eventsOf(kube, ws, caller.namespace), catalogEntryOf(kube, ws.spec?.imageRef?.name ?? '')]);
  const shown = { ...ws, metadata: { ...ws.metadata, managedFields: undefined } };
  sendPage(
    ctx,
    workspacePage(assets, viewerOf(ctx)!, {
      ws,
      podEvents: events.pod,
      events: events.all,
      yaml: stringify(shown),
      homePath: entry.homePath,
      failure: failureOf(ws, entry.title),
      now: deps.now(),
      notice,
    }),
  );
}

/**
 * The workspace page's live part (status and Connect cards) as an HTML fragment, or
 * `application/json` ({phase, reason, conditions, events}) when asked for. The catalog entry
 * is read only when the fragment shows it (the VS Code link of a Running workspace, the
 * entry named in a failure), so a poll of a starting or stopped workspace costs two reads.
 */
async function status(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { kube, caller } = ctx.state;
  const ws = await readWorkspace(ctx);
  const phase = phaseOf(ws);
  const [events, entry] = await Promise.all([
    eventsOf(kube, ws, caller.namespace),
    showsEntry(ws) ? catalogEntryOf(kube, ws.spec?.imageRef?.name ?? '') : entryFacts(undefined),
  ]);
  if (ctx.accepts('html', 'json') === 'json') {
    ctx.body = { phase, reason: reasonOf(ws), conditions: ws.status?.conditions ?? [], events: events.pod };
    return;
  }
  const live = workspaceLive({ ws, podEvents: events.pod, homePath: entry.homePath, failure: failureOf(ws, entry.title), csrf: viewerOf(ctx)!.csrf, now: deps.now() });
  sendPage(ctx, live.text);
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
  router.post('/w/:name/restart', (ctx) => restart(ctx, deps));
  router.post('/w/:name/delete', (ctx) => remove(ctx, deps));
}

export type { PageState };
