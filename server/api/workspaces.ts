// SPEC 4.2: workspaces of the caller (or, for administrators, of everyone), always with the
// caller's forwarded token, so the cluster's RBAC decides who sees and changes what.
import type { KubeClient, KubeObject } from '../../kube/client.js';
import type { Caller } from '../http/context.js';
import { isNotFound, KubeApiError, type KubeStatus } from '../../kube/errors.js';
import { defaultPodName, homeClaimName, LABELS } from '../../kube/group.js';
import { RESOURCES, resourcePath } from '../../kube/resources.js';
import { HttpError } from '../../koa/errors.js';
import { noQuery, validateBody, validateQuery } from '../http/validate.js';
import { runningPatch, schedulePatch, workspaceObject } from './mapping.js';
import { createWorkspaceRequest, deleteWorkspaceQuery, logsQuery, namespaceQuery, scheduleRequest, type CreateWorkspaceRequest } from './schemas.js';
import type { ApiContext, ApiRouter, ResourceDeps } from './types.js';
import { actorName, recordLifecycleEvent, type Actor } from './lifecycle-events.js';
import { DEN_EVENT_REASONS, workspaceRefOf } from '../../kube/den-events.js';
import type { ClientAddressState } from '../http/client-address.js';

export const DEFAULT_LOG_TAIL = 200;

function nameParam(ctx: ApiContext): string {
  return ctx.params.name!;
}

/** The namespace a single-workspace call targets: the one asked for, else the caller's own. */
export function targetNamespace(ctx: ApiContext, asked: string | undefined): string {
  return asked ?? ctx.state.caller.namespace;
}

/** The workspaces `caller` sees: their own namespace, or for an administrator the cluster (RBAC permitting). */
export async function listWorkspacesOf(caller: Caller, kube: KubeClient, namespace?: string): Promise<KubeObject[]> {
  if (caller.role === 'admin') {
    // Cluster-wide for administrators; the cluster's RBAC decides whether that is allowed.
    return (await kube.list(RESOURCES.workspace, { namespace })).items;
  }
  if (namespace === undefined || namespace === caller.namespace) return (await kube.list(RESOURCES.workspace, { namespace: caller.namespace })).items;
  // `namespace` narrows a person's own result; another namespace narrows it to nothing.
  return [];
}

async function listWorkspaces(ctx: ApiContext): Promise<void> {
  const { namespace } = validateQuery(ctx, namespaceQuery);
  ctx.body = { items: await listWorkspacesOf(ctx.state.caller, ctx.state.kube, namespace) };
}

/** Creates the workspace of a checked request, always in the caller's own namespace. */
export function createWorkspaceOf(caller: Caller, kube: KubeClient, req: CreateWorkspaceRequest, deps: Pick<ResourceDeps, 'gpuResource'>): Promise<KubeObject> {
  return kube.create(RESOURCES.workspace, workspaceObject(req, caller.namespace, deps.gpuResource), caller.namespace);
}

async function createWorkspace(ctx: ApiContext, deps: ResourceDeps): Promise<void> {
  validateQuery(ctx, noQuery);
  const req = validateBody(ctx, createWorkspaceRequest);
  const created = await createWorkspaceOf(ctx.state.caller, ctx.state.kube, req, deps);
  ctx.status = 201;
  ctx.body = created;
}

async function getWorkspace(ctx: ApiContext): Promise<void> {
  const { namespace } = validateQuery(ctx, namespaceQuery);
  ctx.body = await ctx.state.kube.get(RESOURCES.workspace, nameParam(ctx), targetNamespace(ctx, namespace));
}

/** The person acting in this request, with their minted client. */
export function actorOf(ctx: ApiContext): Actor {
  return { caller: ctx.state.caller, kube: ctx.state.kube, clientAddress: (ctx.state as Partial<ClientAddressState>).clientAddress };
}

/**
 * What a DELETE answered, as the object: kube-apiserver answers the object while it remains
 * (finalizers), and a Status naming it (details.name, details.uid) for an object gone at once.
 */
function deletedObjectOf(answer: KubeObject | KubeStatus): KubeObject {
  if (answer.kind !== 'Status') return answer as KubeObject;
  const { name, uid } = (answer as KubeStatus).details ?? {};
  return { metadata: { name, uid } };
}

/**
 * Deletes a workspace and, unless `keepVolume`, its home PVC; 409 naming the claim when only the
 * volume is left. Either way a Deleted Event says who deleted it and what became of its home.
 */
export async function deleteWorkspaceOf(actor: Actor, name: string, namespace: string, keepVolume: boolean, deps: Pick<ResourceDeps, 'log' | 'events'>): Promise<void> {
  const deleted = await actor.kube.delete<KubeObject | KubeStatus>(RESOURCES.workspace, name, namespace);
  const ref = { ...workspaceRefOf(deletedObjectOf(deleted)), name, namespace };
  const claim = homeClaimName(name);
  const who = actorName(actor.caller, namespace);
  if (keepVolume) {
    await recordLifecycleEvent(deps, actor, ref, DEN_EVENT_REASONS.deleted, `Deleted by ${who}; its home volume ${claim} is kept.`);
    return;
  }
  try {
    await actor.kube.delete(RESOURCES.persistentVolumeClaim, claim, namespace);
  } catch (err) {
    if (!isNotFound(err)) {
      deps.log('home volume left behind', { namespace, workspace: name, claim, error: (err as Error).message });
      await recordLifecycleEvent(deps, actor, ref, DEN_EVENT_REASONS.deleted, `Deleted by ${who}; deleting its home volume ${claim} failed, so it is left.`);
      throw new HttpError(409, `workspace ${name} was deleted, but its home volume PersistentVolumeClaim ${claim} in namespace ${namespace} is left: ${(err as Error).message}`);
    }
  }
  await recordLifecycleEvent(deps, actor, ref, DEN_EVENT_REASONS.deleted, `Deleted by ${who} with its home volume ${claim}.`);
}

async function deleteWorkspace(ctx: ApiContext, deps: ResourceDeps): Promise<void> {
  const query = validateQuery(ctx, deleteWorkspaceQuery);
  // SPEC 4.2: only the exact value `false` keeps the home volume.
  await deleteWorkspaceOf(actorOf(ctx), nameParam(ctx), targetNamespace(ctx, query.namespace), query.delete_volume === 'false', deps);
  ctx.status = 204;
}

/** Starts or stops a workspace, and records who did (a Started or Stopped Event). */
export async function setWorkspaceRunning(actor: Actor, name: string, namespace: string, running: boolean, deps: Pick<ResourceDeps, 'log' | 'events'>): Promise<KubeObject> {
  const changed = await actor.kube.patch(RESOURCES.workspace, name, runningPatch(running), { namespace });
  const who = actorName(actor.caller, namespace);
  if (running) await recordLifecycleEvent(deps, actor, workspaceRefOf(changed), DEN_EVENT_REASONS.started, `Started by ${who}.`);
  else await recordLifecycleEvent(deps, actor, workspaceRefOf(changed), DEN_EVENT_REASONS.stopped, `Stopped by ${who}; the home volume is kept.`);
  return changed;
}

function setRunning(running: boolean, deps: ResourceDeps) {
  return async function patchRunning(ctx: ApiContext): Promise<void> {
    const { namespace } = validateQuery(ctx, namespaceQuery);
    ctx.body = await setWorkspaceRunning(actorOf(ctx), nameParam(ctx), targetNamespace(ctx, namespace), running, deps);
  };
}

interface PodView {
  metadata?: { labels?: Record<string, string>; deletionTimestamp?: string };
  status?: { phase?: string };
}

export interface WorkspaceLogs {
  namespace: string;
  pod: string;
  lines: string;
}

/** The last `tail` lines of the workspace pod's log; 409 when it has no running pod. */
export async function readWorkspaceLogs(kube: KubeClient, name: string, namespace: string, tail: number): Promise<WorkspaceLogs> {
  const workspace = await kube.get<{ spec?: { running?: boolean }; status?: { podName?: string } }>(RESOURCES.workspace, name, namespace);
  const pod = workspace.status?.podName || defaultPodName(name);
  const noPod = new HttpError(409, `workspace ${name} has no running pod, start it first`);
  // A stopped workspace's pod may still be terminating (phase Running): it has no logs to offer.
  if (workspace.spec?.running === false) throw noPod;
  let observed: PodView;
  try {
    observed = await kube.get<PodView>(RESOURCES.pod, pod, namespace);
  } catch (err) {
    if (isNotFound(err)) throw noPod;
    throw err;
  }
  // The pod name comes from the workspace's status; the label proves the pod belongs to it.
  if (observed.metadata?.labels?.[LABELS.workspace] !== name || observed.status?.phase !== 'Running' || observed.metadata?.deletionTimestamp) throw noPod;
  let lines: string | undefined;
  try {
    lines = await kube.request<string | undefined>({ path: resourcePath(RESOURCES.pod, { namespace, name: pod, subresource: 'log' }), query: { tailLines: tail } });
  } catch (err) {
    // The pod stopped or restarted between the two reads: the kubelet has no container to read.
    if (err instanceof KubeApiError && (err.status === 400 || err.status === 404)) throw noPod;
    throw err;
  }
  return { namespace, pod, lines: typeof lines === 'string' ? lines : '' };
}

async function workspaceLogs(ctx: ApiContext): Promise<void> {
  const query = validateQuery(ctx, logsQuery);
  const tail = query.tail === undefined ? DEFAULT_LOG_TAIL : Number(query.tail);
  ctx.body = await readWorkspaceLogs(ctx.state.kube, nameParam(ctx), targetNamespace(ctx, query.namespace), tail);
}

/** PATCH /workspaces/{name}/schedule: spec.schedule as a merge patch with the caller's token; the webhook checks the zone and the space's limit. */
async function changeSchedule(ctx: ApiContext): Promise<void> {
  const { namespace } = validateQuery(ctx, namespaceQuery);
  const req = validateBody(ctx, scheduleRequest);
  ctx.body = await ctx.state.kube.patch(RESOURCES.workspace, nameParam(ctx), schedulePatch(req), { namespace: targetNamespace(ctx, namespace) });
}

export function mountWorkspaceRoutes(router: ApiRouter, deps: ResourceDeps): void {
  router.get('/workspaces', listWorkspaces);
  router.post('/workspaces', (ctx) => createWorkspace(ctx, deps));
  router.get('/workspaces/:name', getWorkspace);
  router.delete('/workspaces/:name', (ctx) => deleteWorkspace(ctx, deps));
  router.post('/workspaces/:name/start', setRunning(true, deps));
  router.post('/workspaces/:name/stop', setRunning(false, deps));
  router.patch('/workspaces/:name/schedule', changeSchedule);
  router.get('/workspaces/:name/logs', workspaceLogs);
}
