// The dashboard and the workspace actions, read and written with the person's own minted
// token through the REST handlers' functions (server/api/workspaces.ts).
import { ValidationError } from 'yup';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { ACTIVITY_KINDS, activityOf, type ActivityEntry } from '../api/activity.js';
import { isDns1123Label } from '../../kube/names.js';
import { RESOURCES } from '../../kube/resources.js';
import { WORKSPACE_IMAGE_DEFAULTS } from '../../contract/workspace-image.js';
import { dashboardCards, dashboardPage } from '../../web/templates/dashboard.js';
import { LIVE_SLOW_PARTS_HEADER } from '../../web/templates/live.js';
import { isNotFound } from '../../kube/errors.js';
import { failureOf } from './failure.js';
import type { WorkspaceView } from '../../web/templates/format.js';
import { stringify } from 'yaml';
import { ANNOTATIONS, defaultPodName, homeClaimName, userSpaceOfNamespace } from '../../kube/group.js';
import type { AppLinks } from '../../web/templates/workspace-apps.js';
import { serviceAccountUsername } from '../../kube/minting.js';
import { DEFAULT_IDLE_TIMEOUT, durationMs, idleClock } from '../../contract/idle-timeout.js';
import type { Workspace } from '../../contract/workspace.js';
import { portSharingOf } from './port-share.js';
import { byEventTime, workspaceLiveFragment, workspacePage, type EventView, type WorkspaceDetailsView, type WorkspacePageView } from '../../web/templates/workspace.js';
import { phaseOf, reasonOf, type Failure } from '../../web/templates/format.js';
import { DEFAULT_LOG_TAIL, deleteWorkspaceOf, listWorkspacesOf, readWorkspaceLogs, setWorkspaceRunning } from '../api/workspaces.js';
import { requestFieldOf, workspaceChangePatch } from '../api/mapping.js';
import { changeWorkspaceRequest } from '../api/schemas.js';
import { describeError, HttpError } from '../../koa/errors.js';
import { CHANGE_FIELD_ADVICE, CHANGE_FIELDS, currentValues, sameAsCurrent, type ChangeField, type ChangeRefusal } from '../../web/templates/workspace-facts.js';
import { sameOriginPath, viewerOf, type PageState } from './middleware.js';
import { refusalOf } from './refusal.js';
import { deleteRefusalOf } from '../../web/templates/delete-form.js';
import { leaveNotice, takeNotice } from './notice.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';
import { pageActor, sendPage, wantsLivePart } from './send.js';
import { readPlacement, slowPartsOf, sourceFactOf } from './workspace-placement.js';
import { sharedWithCaller, sharingCardOf } from './shares.js';
import { catalogEntryOf, catalogFacts, catalogFactsOf, entriesShownBy, showsEntry, type CatalogFacts } from './catalog-facts.js';
import { policySummary, scheduleFormValues, scheduleSummary } from '../../contract/schedule.js';
import type { UserSpace } from '../../contract/user-space.js';
import { dormancyNotice } from '../../contract/dormancy.js';
import { workspaceApps } from '../../contract/devcontainer.js';
import { sessionSettings } from '../../shell/target.js';

/**
 * The namespace a workspace page or form is about: `namespace` in the query (a page) or the
 * form (an action) when an administrator opens someone else's, else the person's own. RBAC
 * decides whether the token may read or change it there.
 */
export function namespaceOf(ctx: PageContext): string | undefined {
  const asked = ctx.method === 'POST' ? ctx.request.form?.namespace : typeof ctx.query.namespace === 'string' ? ctx.query.namespace : undefined;
  if (!asked || asked === ctx.state.caller.namespace) return undefined;
  if (!isDns1123Label(asked)) throw new HttpError(404, `not found: "${asked}" is not a valid namespace name`);
  return asked;
}

export const targetNamespace = (ctx: PageContext) => namespaceOf(ctx) ?? ctx.state.caller.namespace;

/** The workspace page's own path, with the namespace of another's. */
export function pagePath(name: string, namespace: string | undefined): string {
  return `/w/${name}${namespace ? `?namespace=${encodeURIComponent(namespace)}` : ''}`;
}

async function dashboard(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { caller, kube, assets } = ctx.state;
  // A person's own namespace, even for an administrator (the admin pages list everyone's).
  // What was shared with the caller needs neither their workspaces nor the catalog: read alongside (it answers its own refusal, never throws).
  const [listed, shared] = await Promise.all([listWorkspacesOf({ ...caller, role: 'user' }, kube), sharedWithCaller(ctx, deps)]);
  const sorted = (listed as WorkspaceView[]).sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  const entries = await entriesShownBy(kube, sorted);
  const failures = new Map<string, Failure>();
  for (const ws of sorted) {
    const failure = failureOf(ws, entries.get(ws.spec?.imageRef?.name ?? '')?.title);
    if (failure) failures.set(ws.metadata?.name ?? '', failure);
  }
  const homePaths = new Map([...entries].map(([name, facts]) => [name, facts.homePath]));
  const dormancy = new Map(sorted.map((ws) => [ws.metadata?.name ?? '', dormancyNotice(ws as Workspace, deps.now())] as const).filter((e): e is [string, string] => e[1] !== undefined));
  const view = { workspaces: sorted, homePaths, defaultHomePath: WORKSPACE_IMAGE_DEFAULTS.homePath, failures, gatewayPort: deps.gatewayPort, now: deps.now(), dormancy, ...shared };
  const viewer = viewerOf(ctx)!;
  if (wantsLivePart(ctx)) sendPage(ctx, dashboardCards(view, viewer.csrf).text);
  else sendPage(ctx, dashboardPage(assets, viewer, { ...view, notice: takeNotice(ctx, deps.secureCookies) }));
}

function startOrStop(running: boolean, deps: PageDeps) {
  return async (ctx: PageContext): Promise<void> => {
    const name = ctx.params.name!;
    await setWorkspaceRunning(pageActor(ctx), name, targetNamespace(ctx), running, deps.resources);
    ctx.redirect(sameOriginPath(ctx.request.form?.back ?? pagePath(name, namespaceOf(ctx))));
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
  await setWorkspaceRunning(pageActor(ctx), name, caller.namespace, false, deps.resources);
  if (await podLeaving(kube, ws.status?.podName || defaultPodName(name), caller.namespace, RESTART_WAIT_MS)) {
    await setWorkspaceRunning(pageActor(ctx), name, caller.namespace, true, deps.resources);
  } else {
    leaveNotice(ctx, `/w/${name}`, `${name} is stopped, but its pod had not gone after ${RESTART_WAIT_MS / 1000} seconds; start it again when it shows Suspended.`, deps.secureCookies);
  }
  ctx.redirect(sameOriginPath(ctx.request.form?.back ?? `/w/${name}`));
}

/**
 * Events about the workspace, its pod and its home volume, newest last; the pod's alone for the
 * progress list; and Den's among them as the activity list shows them, newest first.
 */
export async function eventsOf(kube: KubeClient, ws: WorkspaceView, namespace: string): Promise<{ all: EventView[]; pod: EventView[]; activity: ActivityEntry[] }> {
  const name = ws.metadata?.name ?? '';
  const pod = ws.status?.podName || defaultPodName(name);
  const about = new Set([name, pod, homeClaimName(name)]);
  const { items } = await kube.list<EventView & KubeObject>(RESOURCES.event, { namespace });
  const all = items.filter((e) => about.has(e.involvedObject?.name ?? '')).sort(byEventTime);
  return { all, pod: all.filter((e) => e.involvedObject?.kind === 'Pod' && e.involvedObject.name === pod), activity: activityOf(all, { workspace: name }) };
}

async function readWorkspace(ctx: PageContext): Promise<WorkspaceView> {
  return ctx.state.kube.get<WorkspaceView>(RESOURCES.workspace, ctx.params.name!, targetNamespace(ctx));
}

/** The requester annotation in words: the person's own session (web UI or API) is the person. */
function createdBy(ctx: PageContext, ws: WorkspaceView): string | undefined {
  const requester = ws.metadata?.annotations?.[ANNOTATIONS.requester];
  const { caller } = ctx.state;
  const own = ['session', 'session-readonly'].map((sa) => serviceAccountUsername(caller.namespace, sa));
  return requester && own.includes(requester) && !namespaceOf(ctx) ? caller.email : requester;
}

/** "4h: … it would stop around 14:05 UTC …" for a ready running workspace, else what applies. */
export function idleLine(ws: WorkspaceView, now: number): string {
  const timeout = ws.spec?.idleTimeout ?? DEFAULT_IDLE_TIMEOUT;
  if (ws.spec?.running === false) return `${timeout} (stopped now)`;
  const clock = idleClock(ws as Pick<Workspace, 'spec' | 'status' | 'metadata'>);
  if (!clock) return durationMs(timeout) === 0 ? `${timeout}: never stops for idleness` : `${timeout}, counted once it is ready`;
  const at = new Date(Math.max(clock.since + clock.timeoutMs, now)).toISOString();
  const day = at.slice(0, 10) === new Date(now).toISOString().slice(0, 10) ? '' : ` on ${at.slice(0, 10)}`;
  return `${timeout}: with no SSH session or terminal open it would stop around ${at.slice(11, 16)} UTC${day}, if the administrator turned idle auto-stop on`;
}

/** The Details card's facts, the Events tab and the YAML tab: drawn with the page and with each status poll alike (`entry` when it was read). */
function detailsOf(ctx: PageContext, deps: PageDeps, ws: WorkspaceView, events: EventView[], entry: CatalogFacts | undefined): WorkspaceDetailsView {
  const shown = { ...ws, metadata: { ...ws.metadata, managedFields: undefined } };
  return {
    events,
    yaml: stringify(shown),
    facts: { createdBy: createdBy(ctx, ws), idle: idleLine(ws, deps.now()), gpuResource: deps.resources.gpuResource, gatewayPort: deps.gatewayPort, source: sourceFactOf(ws as Workspace), schedule: scheduleSummary((ws as Workspace).spec?.schedule) },
    entry: entry && { title: entry.title },
    appLinks: appLinksOf(deps, ws.metadata?.name ?? '', targetNamespace(ctx)),
  };
}

/** Where VS Code and sessions open: devcontainer.json's workspace folder as the gateway and terminal start there, else the image's home. */
function startFolderOf(ws: WorkspaceView, entry: CatalogFacts | undefined): string {
  return sessionSettings(ws as Workspace).startDir ?? entry?.homePath ?? WORKSPACE_IMAGE_DEFAULTS.homePath;
}

export type PageRefusals = Pick<WorkspacePageView, 'changeRefusal' | 'deleteRefusal' | 'scheduleRefusal'>;

/** Host-based addresses of a workspace's ports, when the server has an apps domain. */
function appLinksOf(deps: PageDeps, workspace: string, namespace: string): AppLinks | undefined {
  const { appUrl } = deps.resources;
  const person = userSpaceOfNamespace(namespace);
  if (!appUrl || !person) return undefined;
  return { href: (port, path) => appUrl({ port, workspace, person }, path) };
}

export async function workspacePageOf(ctx: PageContext, deps: PageDeps, refusals: PageRefusals = {}, status = 200): Promise<void> {
  const { kube, assets } = ctx.state;
  const notice = ctx.method === 'GET' ? takeNotice(ctx, deps.secureCookies) : undefined;
  const ws = await readWorkspace(ctx);
  // Only one's own workspace is shared from its page (docs/sharing.md).
  const [events, catalog, placement, userSpace, shareCard] = await Promise.all([
    eventsOf(kube, ws, targetNamespace(ctx)),
    catalogFactsOf(kube),
    readPlacement(kube, ws, targetNamespace(ctx)),
    // Its spec.schedules, said beside the schedule form; the page is whole without it.
    kube.get<UserSpace>(RESOURCES.userSpace, userSpaceOfNamespace(targetNamespace(ctx)) ?? '').catch(() => undefined),
    namespaceOf(ctx) ? undefined : sharingCardOf(ctx, deps, ws.metadata?.name ?? ''),
  ]);
  const entry = catalog.get(ws.spec?.imageRef?.name ?? '');
  const images = [...catalog]
    .filter(([, facts]) => !facts.deprecated)
    .map(([name, facts]) => ({ name, displayName: facts.title ?? name }))
    .sort((a, b) => a.displayName.localeCompare(b.displayName));
  sendPage(
    ctx,
    workspacePage(assets, viewerOf(ctx)!, {
      ws,
      podEvents: events.pod,
      ...detailsOf(ctx, deps, ws, events.all, entry ?? catalogFacts(undefined)),
      placement,
      startFolder: startFolderOf(ws, entry),
      failure: failureOf(ws, entry?.title),
      now: deps.now(),
      notice,
      activity: events.activity,
      activityKinds: ACTIVITY_KINDS,
      apps: workspaceApps(entry?.apps ?? [], (ws.status as { devcontainer?: unknown } | undefined)?.devcontainer),
      images,
      gatewayPort: deps.gatewayPort,
      namespace: namespaceOf(ctx),
      sharing: portSharingOf(deps, (ws.spec as { sharedPorts?: unknown } | undefined)?.sharedPorts, !namespaceOf(ctx), { workspace: ws.metadata?.name ?? '', person: userSpaceOfNamespace(targetNamespace(ctx)) }),
      scheduleValues: scheduleFormValues((ws as Workspace).spec?.schedule),
      schedulePolicy: policySummary(userSpace?.spec?.schedules),
      dormancy: dormancyNotice(ws as Workspace, deps.now()),
      workspaceSharing: shareCard,
      ...refusals,
    }),
    status,
  );
}

const CHANGE_LABELS: Record<ChangeField, string> = { cpu: 'CPU', memory: 'memory', gpu: 'GPUs', idle_timeout: 'idle timeout', image: 'image' };

/**
 * A refused change as the form shows it: beside the field the schema's path or the cluster's
 * causes name, in the refusing rule's words for a person, the cluster's whole text folded.
 */
function changeRefusalOf(err: unknown, typed: Record<ChangeField, string>, gpuResource: string): ChangeRefusal {
  if (err instanceof ValidationError) {
    const field = CHANGE_FIELDS.find((f) => f === err.path);
    return { field, message: field ? CHANGE_FIELD_ADVICE[field](typed[field]) : err.message, values: typed };
  }
  const { field: objectField, said, cluster } = refusalOf(err);
  const field = objectField === 'spec.idleTimeout' ? 'idle_timeout' : objectField === undefined ? undefined : requestFieldOf(objectField, gpuResource);
  return { field: CHANGE_FIELDS.find((f) => f === field), message: said, cluster, values: typed };
}

/**
 * POST /w/{name}/change: what changed of size, idle timeout and image, as one merge patch with
 * the person's token (the webhook checks the quota, the image and the rest, as on create).
 */
async function change(ctx: PageContext, deps: PageDeps): Promise<void> {
  const name = ctx.params.name!;
  const form = ctx.request.form ?? {};
  const typed = Object.fromEntries(CHANGE_FIELDS.map((f) => [f, (form[f] ?? '').trim()])) as Record<ChangeField, string>;
  const current = currentValues(await readWorkspace(ctx), deps.resources.gpuResource);
  const changed = CHANGE_FIELDS.filter((f) => typed[f] !== '' && !sameAsCurrent(f, typed[f], current[f]));
  const here = pagePath(name, namespaceOf(ctx));
  if (changed.length === 0) {
    leaveNotice(ctx, `/w/${name}`, 'Nothing was changed: the values are the ones the workspace has.', deps.secureCookies);
    return ctx.redirect(here);
  }
  try {
    const req = changeWorkspaceRequest.validateSync(Object.fromEntries(changed.map((f) => [f, typed[f]])), { strict: true });
    await ctx.state.kube.patch(RESOURCES.workspace, name, workspaceChangePatch(req, deps.resources.gpuResource), { namespace: targetNamespace(ctx) });
  } catch (err) {
    const { status } = describeError(err);
    if (!(err instanceof ValidationError) && status >= 500) throw err;
    return workspacePageOf(ctx, deps, { changeRefusal: changeRefusalOf(err, typed, deps.resources.gpuResource) }, status);
  }
  const said = changed.map((f) => `${CHANGE_LABELS[f]} ${typed[f]}`).join(', ');
  // Size and image are the pod's; the idle timeout is only the manager's to read.
  const restarts = changed.some((f) => f !== 'idle_timeout');
  leaveNotice(ctx, `/w/${name}`, `Saved: ${said}.${restarts ? " A running workspace's pod restarts with it; the home folder stays." : ''}`, deps.secureCookies);
  ctx.redirect(here);
}

/**
 * Does a status poll read the catalog entry: when the live part shows something of it (the VS
 * Code link's home path while Running, the entry a failure names), or when the workspace's image
 * is no longer the one the page names in its Image fact (`shown`, from the poll's address). A
 * stopped or starting workspace's poll reads two objects, not three (and a starting one's pod on
 * the polls asking for slow parts: server/pages/workspace-placement.ts).
 */
function pollReadsEntry(ws: WorkspaceView, shown: string | undefined): boolean {
  return showsEntry(ws) || (ws.spec?.imageRef?.name ?? '') !== shown;
}

/**
 * The workspace page's live part (status and Connect cards, with the facts, events, YAML and
 * listening ports for their places) as an HTML fragment, or `application/json` ({phase, reason,
 * conditions, events}) when asked for. Reads the Workspace and the namespace's Events; the
 * catalog entry when pollReadsEntry says so; the pod and its listening ports (one exec) on the
 * polls asking for slow parts.
 */
async function status(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { kube } = ctx.state;
  const ws = await readWorkspace(ctx);
  const phase = phaseOf(ws);
  if (ctx.accepts('html', 'json') === 'json') {
    const events = await eventsOf(kube, ws, targetNamespace(ctx));
    ctx.body = { phase, reason: reasonOf(ws), conditions: ws.status?.conditions ?? [], events: events.pod };
    return;
  }
  const shown = typeof ctx.query.image === 'string' ? ctx.query.image : undefined;
  const [events, entry, { ports, placement }] = await Promise.all([
    eventsOf(kube, ws, targetNamespace(ctx)),
    pollReadsEntry(ws, shown) ? catalogEntryOf(kube, ws.spec?.imageRef?.name ?? '') : undefined,
    slowPartsOf(kube, ws, targetNamespace(ctx), ctx.get(LIVE_SLOW_PARTS_HEADER) === '1'),
  ]);
  const live = workspaceLiveFragment(
    { ws, podEvents: events.pod, startFolder: startFolderOf(ws, entry), failure: failureOf(ws, entry?.title), csrf: viewerOf(ctx)!.csrf, now: deps.now(), gatewayPort: deps.gatewayPort, namespace: namespaceOf(ctx) },
    { ...detailsOf(ctx, deps, ws, events.all, entry), ...(placement && { placement }) },
    ports,
  );
  sendPage(ctx, live.text);
}

/** JSON for the page's script: REST's LogsResponse, or {error} with REST's status (409 with no running pod). */
async function logs(ctx: PageContext): Promise<void> {
  const raw = typeof ctx.query.tail === 'string' ? ctx.query.tail : String(DEFAULT_LOG_TAIL);
  const tail = /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : DEFAULT_LOG_TAIL;
  try {
    ctx.body = await readWorkspaceLogs(ctx.state.kube, ctx.params.name!, targetNamespace(ctx), tail);
  } catch (err) {
    const { status, message } = describeError(err);
    ctx.status = status;
    ctx.body = { error: message };
  }
}

/**
 * POST /w/{name}/delete: with its home volume only once the name is typed (what is lost cannot
 * come back); afterwards the page it leads to says what was deleted and what was kept.
 */
async function remove(ctx: PageContext, deps: PageDeps): Promise<void> {
  const name = ctx.params.name!;
  const form = ctx.request.form ?? {};
  const withVolume = form.delete_volume === '1';
  const deleteRefusal = deleteRefusalOf(name, form);
  if (deleteRefusal) return workspacePageOf(ctx, deps, { deleteRefusal }, 400);
  const namespace = namespaceOf(ctx);
  await deleteWorkspaceOf(pageActor(ctx), name, targetNamespace(ctx), !withVolume, deps.resources);
  const claim = homeClaimName(name);
  const said = withVolume
    ? `Deleted the workspace ${name} and its home volume ${claim}, with everything in its home folder.`
    : `Deleted the workspace ${name}. Its home volume ${claim} is kept: a new workspace named ${name} starts with it.`;
  const back = namespace ? '/admin/workspaces' : '/';
  leaveNotice(ctx, back, said, deps.secureCookies);
  ctx.redirect(back);
}

export function mountWorkspacePages(router: PageRouter, deps: PageDeps): void {
  router.get('/', (ctx) => dashboard(ctx, deps));
  router.get('/w/:name', (ctx) => workspacePageOf(ctx, deps));
  router.get('/w/:name/status', (ctx) => status(ctx, deps));
  router.get('/w/:name/logs', logs);
  router.post('/w/:name/start', startOrStop(true, deps));
  router.post('/w/:name/stop', startOrStop(false, deps));
  router.post('/w/:name/restart', (ctx) => restart(ctx, deps));
  router.post('/w/:name/delete', (ctx) => remove(ctx, deps));
  router.post('/w/:name/change', (ctx) => change(ctx, deps));
}

export type { PageState };
