// Den's activity: its own Events (kube/den-events.ts) read with the viewer's token, across the
// cluster for `GET /admin/activity` and for one workspace at `GET /workspaces/{name}/events`,
// newest first, filtered by person, workspace and kind. The cluster's RBAC decides who may
// read what; a refusal is its own 403.
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { DEN_EVENT_ANNOTATIONS, DEN_EVENT_SOURCE } from '../../kube/den-events.js';
import { KINDS, userSpaceOfNamespace } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { validateQuery } from '../http/validate.js';
import { ACTIVITY_LIMIT, adminActivityQuery, workspaceEventsQuery } from './schemas.js';

export { ACTIVITY_KINDS } from '../../kube/den-events.js';
import type { ApiContext, ApiRouter } from './types.js';

/** One Den Event as REST and the pages show it. */
export interface ActivityEntry {
  /** When it last happened (RFC 3339). */
  time: string;
  first_time: string;
  /** How many times it happened since first_time (a burst is one entry). */
  count: number;
  namespace: string;
  workspace: string;
  /** Who acted (a UserSpace name); empty when Den itself acted (idle stop). */
  person: string;
  kind: string;
  reason: string;
  message: string;
  /** The process that wrote it: den.dev/server, den.dev/gateway or den.dev/manager. */
  reporter: string;
  fingerprint?: string;
  client_address?: string;
}

export interface ActivityFilter {
  /** Acts of this person, and acts on workspaces in their namespace. */
  person?: string;
  workspace?: string;
  kind?: string;
  limit?: number;
}

interface EventObject extends KubeObject {
  involvedObject?: { kind?: string; name?: string; namespace?: string };
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  reportingComponent?: string;
  source?: { component?: string };
}

export function activityEntry(e: EventObject): ActivityEntry {
  const a = e.metadata?.annotations ?? {};
  const time = e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? '';
  return {
    time,
    first_time: e.firstTimestamp ?? time,
    count: e.count ?? 1,
    namespace: e.metadata?.namespace ?? '',
    workspace: e.involvedObject?.name ?? '',
    person: a[DEN_EVENT_ANNOTATIONS.person] ?? '',
    kind: a[DEN_EVENT_ANNOTATIONS.kind] ?? '',
    reason: e.reason ?? '',
    message: e.message ?? '',
    reporter: e.reportingComponent ?? '',
    ...(a[DEN_EVENT_ANNOTATIONS.fingerprint] ? { fingerprint: a[DEN_EVENT_ANNOTATIONS.fingerprint] } : {}),
    ...(a[DEN_EVENT_ANNOTATIONS.clientAddress] ? { client_address: a[DEN_EVENT_ANNOTATIONS.clientAddress] } : {}),
  };
}

/** Entries of Den's Workspace Events that pass `filter`, newest first, at most `filter.limit`. */
export function activityOf(events: readonly KubeObject[], filter: ActivityFilter): ActivityEntry[] {
  const entries = (events as readonly EventObject[])
    .filter((e) => e.involvedObject?.kind === KINDS.workspace && e.source?.component === DEN_EVENT_SOURCE)
    .map((e) => ({ entry: activityEntry(e), version: Number(e.metadata?.resourceVersion) || 0 }))
    .filter(({ entry }) => !filter.workspace || entry.workspace === filter.workspace)
    .filter(({ entry }) => !filter.kind || entry.kind === filter.kind)
    .filter(({ entry }) => !filter.person || entry.person === filter.person || userSpaceOfNamespace(entry.namespace) === filter.person);
  // Whole seconds: among Events of one second, the one the API server stored last is newest.
  entries.sort((a, b) => b.entry.time.localeCompare(a.entry.time) || b.version - a.version);
  return entries.slice(0, filter.limit ?? ACTIVITY_LIMIT.default).map(({ entry }) => entry);
}

/**
 * Den's Events with the viewer's token: of one namespace, or every namespace when none is
 * given (which needs the right to list Events cluster-wide). Narrowed by the API server to
 * Den's source and, given a workspace, to that Workspace.
 */
export async function readActivity(kube: KubeClient, where: { namespace?: string; workspace?: string }, filter: ActivityFilter): Promise<ActivityEntry[]> {
  const fields = [`source=${DEN_EVENT_SOURCE}`];
  if (where.workspace) fields.push(`involvedObject.kind=${KINDS.workspace}`, `involvedObject.name=${where.workspace}`);
  const { items } = await kube.list<EventObject>(RESOURCES.event, { namespace: where.namespace, fieldSelector: fields.join(',') });
  return activityOf(items, { ...filter, workspace: where.workspace ?? filter.workspace });
}

export const limitOf = (raw: string | undefined) => (raw === undefined ? undefined : Number(raw));

async function adminActivity(ctx: ApiContext): Promise<void> {
  const q = validateQuery(ctx, adminActivityQuery);
  ctx.body = { items: await readActivity(ctx.state.kube, {}, { person: q.person, workspace: q.workspace, kind: q.kind, limit: limitOf(q.limit) }) };
}

async function workspaceEvents(ctx: ApiContext): Promise<void> {
  const q = validateQuery(ctx, workspaceEventsQuery);
  const namespace = q.namespace ?? ctx.state.caller.namespace;
  // A deleted workspace keeps its Events (its Deleted one among them) until the cluster expires them.
  ctx.body = { items: await readActivity(ctx.state.kube, { namespace, workspace: ctx.params.name! }, { person: q.person, kind: q.kind, limit: limitOf(q.limit) }) };
}

export function mountActivityRoutes(router: ApiRouter): void {
  router.get('/admin/activity', adminActivity);
  router.get('/workspaces/:name/events', workspaceEvents);
}
