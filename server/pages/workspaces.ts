// The dashboard and the workspace actions, read and written with the person's own minted
// token through the REST handlers' functions (server/api/workspaces.ts).
import type { Context } from 'koa';
import { ValidationError } from 'yup';
import type { KubeClient } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { isDns1123Label } from '../../kube/names.js';
import { RESOURCES } from '../../kube/resources.js';
import { WORKSPACE_IMAGE_DEFAULTS } from '../../infra/crds/workspace-image.js';
import { dashboardPage } from '../../web/templates/dashboard.js';
import type { WorkspaceView } from '../../web/templates/format.js';
import { stringify } from 'yaml';
import { ANNOTATIONS, defaultPodName, homeClaimName } from '../../kube/group.js';
import { serviceAccountUsername } from '../auth/minting.js';
import { DEFAULT_IDLE_TIMEOUT, durationMs, idleClock } from '../../infra/crds/idle-timeout.js';
import type { Workspace } from '../../infra/crds/workspace.js';
import { byEventTime, statusCard, workspacePage, type EventView, type WorkspacePageView } from '../../web/templates/workspace.js';
import { phaseOf, reasonOf } from '../../web/templates/format.js';
import { DEFAULT_LOG_TAIL, deleteWorkspaceOf, listWorkspacesOf, readWorkspaceLogs, setWorkspaceRunning } from '../api/workspaces.js';
import { requestFieldOf, workspaceChangePatch } from '../api/mapping.js';
import { changeWorkspaceRequest } from '../api/schemas.js';
import { describeError, HttpError } from '../../koa/errors.js';
import { CHANGE_FIELDS, currentValues, type ChangeField, type ChangeRefusal } from '../../web/templates/workspace-facts.js';
import { sameOriginPath, viewerOf, type PageState } from './middleware.js';
import { leaveNotice, takeNotice } from './notice.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';

interface CatalogFacts {
  homePath: string;
  displayName: string;
  deprecated: boolean;
}

/** Every catalog entry the person can read, by name: its home path (VS Code links), title and whether it is withdrawn. */
export async function catalogFactsOf(kube: KubeClient): Promise<Map<string, CatalogFacts>> {
  const { items } = await kube.list<{ metadata?: { name?: string }; spec?: { homePath?: string; displayName?: string; deprecated?: boolean } }>(RESOURCES.workspaceImage);
  return new Map(
    items.map((i) => [
      i.metadata?.name ?? '',
      { homePath: i.spec?.homePath || WORKSPACE_IMAGE_DEFAULTS.homePath, displayName: i.spec?.displayName || i.metadata?.name || '', deprecated: i.spec?.deprecated === true },
    ]),
  );
}

/** Home path of every catalog entry the person can read, by name (for VS Code links). */
export async function homePathsOf(kube: KubeClient): Promise<Map<string, string>> {
  return new Map([...(await catalogFactsOf(kube))].map(([name, facts]) => [name, facts.homePath]));
}

/**
 * The namespace a workspace page or form is about: `namespace` in the query (a page) or the
 * form (an action) when an administrator opens someone else's, else the person's own. RBAC
 * decides whether the token may read or change it there.
 */
function namespaceOf(ctx: PageContext): string | undefined {
  const asked = ctx.method === 'POST' ? ctx.request.form?.namespace : typeof ctx.query.namespace === 'string' ? ctx.query.namespace : undefined;
  if (!asked || asked === ctx.state.caller.namespace) return undefined;
  if (!isDns1123Label(asked)) throw new HttpError(404, `not found: "${asked}" is not a valid namespace name`);
  return asked;
}

const targetNamespace = (ctx: PageContext) => namespaceOf(ctx) ?? ctx.state.caller.namespace;

/** The workspace page's own path, with the namespace of another's. */
function pagePath(name: string, namespace: string | undefined): string {
  return `/w/${name}${namespace ? `?namespace=${encodeURIComponent(namespace)}` : ''}`;
}

export function sendPage(ctx: Context, body: string, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = body;
}

async function dashboard(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { caller, kube, assets } = ctx.state;
  // A person's own namespace, even for an administrator (the admin pages list everyone's).
  const notice = takeNotice(ctx, deps.secureCookies);
  const [workspaces, homePaths] = await Promise.all([listWorkspacesOf({ ...caller, role: 'user' }, kube), homePathsOf(kube)]);
  const sorted = (workspaces as WorkspaceView[]).sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  sendPage(ctx, dashboardPage(assets, viewerOf(ctx)!, { workspaces: sorted, homePaths, defaultHomePath: WORKSPACE_IMAGE_DEFAULTS.homePath, gatewayPort: deps.gatewayPort, now: deps.now(), notice }));
}

function startOrStop(running: boolean) {
  return async (ctx: PageContext): Promise<void> => {
    const name = ctx.params.name!;
    await setWorkspaceRunning(ctx.state.kube, name, targetNamespace(ctx), running);
    ctx.redirect(sameOriginPath(ctx.request.form?.back ?? pagePath(name, namespaceOf(ctx))));
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

type PageRefusals = Pick<WorkspacePageView, 'changeRefusal' | 'deleteRefusal'>;

async function workspacePageOf(ctx: PageContext, deps: PageDeps, refusals: PageRefusals = {}, status = 200): Promise<void> {
  const { kube, assets } = ctx.state;
  const notice = ctx.method === 'GET' ? takeNotice(ctx, deps.secureCookies) : undefined;
  const ws = await readWorkspace(ctx);
  const [events, catalog] = await Promise.all([eventsOf(kube, ws, targetNamespace(ctx)), catalogFactsOf(kube)]);
  const shown = { ...ws, metadata: { ...ws.metadata, managedFields: undefined } };
  const entry = catalog.get(ws.spec?.imageRef?.name ?? '');
  const images = [...catalog]
    .filter(([, facts]) => !facts.deprecated)
    .map(([name, facts]) => ({ name, displayName: facts.displayName }))
    .sort((a, b) => a.displayName.localeCompare(b.displayName));
  sendPage(
    ctx,
    workspacePage(assets, viewerOf(ctx)!, {
      ws,
      podEvents: events.pod,
      events: events.all,
      yaml: stringify(shown),
      homePath: entry?.homePath ?? WORKSPACE_IMAGE_DEFAULTS.homePath,
      now: deps.now(),
      notice,
      facts: { imageTitle: entry?.displayName, createdBy: createdBy(ctx, ws), idle: idleLine(ws, deps.now()) },
      images,
      gatewayPort: deps.gatewayPort,
      namespace: namespaceOf(ctx),
      ...refusals,
    }),
    status,
  );
}

const CHANGE_LABELS: Record<ChangeField, string> = { cpu: 'CPU', memory: 'memory', idle_timeout: 'idle timeout', image: 'image' };

/**
 * A refused change as the form shows it: beside the field the schema's path or the cluster's
 * causes name, in the refusing rule's words for a person, the cluster's whole text folded.
 */
function changeRefusalOf(err: unknown, typed: Record<ChangeField, string>, gpuResource: string): ChangeRefusal {
  if (err instanceof ValidationError) return { field: CHANGE_FIELDS.find((f) => f === err.path), message: err.message, values: typed };
  const { message } = describeError(err);
  if (err instanceof KubeApiError) {
    for (const cause of err.body.details?.causes ?? []) {
      const field = cause.field === 'spec.idleTimeout' ? 'idle_timeout' : cause.field === undefined ? undefined : requestFieldOf(cause.field, gpuResource);
      const known = CHANGE_FIELDS.find((f) => f === field);
      if (known) return { field: known, message: cause.message || message, cluster: cause.message && cause.message !== message ? message : undefined, values: typed };
    }
  }
  return { message, values: typed };
}

/**
 * POST /w/{name}/change: what changed of size, idle timeout and image, as one merge patch with
 * the person's token (the webhook checks the quota, the image and the rest, as on create).
 */
async function change(ctx: PageContext, deps: PageDeps): Promise<void> {
  const name = ctx.params.name!;
  const form = ctx.request.form ?? {};
  const typed = Object.fromEntries(CHANGE_FIELDS.map((f) => [f, (form[f] ?? '').trim()])) as Record<ChangeField, string>;
  const current = currentValues(await readWorkspace(ctx));
  const changed = CHANGE_FIELDS.filter((f) => typed[f] !== '' && typed[f] !== current[f]);
  const here = pagePath(name, namespaceOf(ctx));
  if (changed.length === 0) {
    leaveNotice(ctx, `/w/${name}`, 'Nothing was changed: the values are the ones the workspace has.', deps.secureCookies);
    return ctx.redirect(here);
  }
  try {
    const req = changeWorkspaceRequest.validateSync(Object.fromEntries(changed.map((f) => [f, typed[f]])), { strict: true });
    await ctx.state.kube.patch(RESOURCES.workspace, name, workspaceChangePatch(req), { namespace: targetNamespace(ctx) });
  } catch (err) {
    const { status } = describeError(err);
    if (!(err instanceof ValidationError) && status >= 500) throw err;
    return workspacePageOf(ctx, deps, { changeRefusal: changeRefusalOf(err, typed, deps.resources.gpuResource) }, err instanceof ValidationError ? 400 : status);
  }
  const said = changed.map((f) => `${CHANGE_LABELS[f]} ${typed[f]}`).join(', ');
  // Size and image are the pod's; the idle timeout is only the manager's to read.
  const restarts = changed.some((f) => f !== 'idle_timeout');
  leaveNotice(ctx, `/w/${name}`, `Saved: ${said}.${restarts ? " A running workspace's pod restarts with it; the home folder stays." : ''}`, deps.secureCookies);
  ctx.redirect(here);
}

/** The status card as an HTML fragment, or `application/json` ({phase, reason, conditions, events}) when asked for. */
async function status(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { kube } = ctx.state;
  const ws = await readWorkspace(ctx);
  const events = await eventsOf(kube, ws, targetNamespace(ctx));
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
  if (withVolume && (form.confirm_name ?? '').trim() !== name) {
    const typed = (form.confirm_name ?? '').trim();
    const why = typed ? `"${typed}" is not this workspace's name.` : 'The name was not typed.';
    return workspacePageOf(ctx, deps, { deleteRefusal: `${why} Type ${name} to delete it with its home volume, or uncheck the volume to keep it. Nothing was deleted.` }, 400);
  }
  const namespace = namespaceOf(ctx);
  await deleteWorkspaceOf(ctx.state.kube, name, targetNamespace(ctx), !withVolume, deps.resources);
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
  router.post('/w/:name/start', startOrStop(true));
  router.post('/w/:name/stop', startOrStop(false));
  router.post('/w/:name/delete', (ctx) => remove(ctx, deps));
  router.post('/w/:name/change', (ctx) => change(ctx, deps));
}

export type { PageState };
