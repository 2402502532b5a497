// SPEC 4.2: workspaces of the caller (or, for administrators, of everyone), always with the
// caller's forwarded token, so the cluster's RBAC decides who sees and changes what.
import type { KubeObject } from '../../kube/client.js';
import { isNotFound, KubeApiError } from '../../kube/errors.js';
import { defaultPodName, homeClaimName, LABELS } from '../../kube/group.js';
import { RESOURCES, resourcePath } from '../../kube/resources.js';
import { HttpError } from '../http/errors.js';
import { noQuery, validateBody, validateQuery } from '../http/validate.js';
import { runningPatch, workspaceObject } from './mapping.js';
import { createWorkspaceRequest, deleteWorkspaceQuery, logsQuery, namespaceQuery } from './schemas.js';
import type { ApiContext, ApiRouter, ResourceDeps } from './types.js';

export const DEFAULT_LOG_TAIL = 200;

function nameParam(ctx: ApiContext): string {
  return ctx.params.name!;
}

/** The namespace a single-workspace call targets: the one asked for, else the caller's own. */
function targetNamespace(ctx: ApiContext, asked: string | undefined): string {
  return asked ?? ctx.state.caller.namespace;
}

async function listWorkspaces(ctx: ApiContext): Promise<void> {
  const { namespace } = validateQuery(ctx, namespaceQuery);
  const { caller, kube } = ctx.state;
  let items: KubeObject[];
  if (caller.role === 'admin') {
    // Cluster-wide for administrators; the cluster's RBAC decides whether that is allowed.
    items = (await kube.list(RESOURCES.workspace, { namespace })).items;
  } else if (namespace === undefined || namespace === caller.namespace) {
    items = (await kube.list(RESOURCES.workspace, { namespace: caller.namespace })).items;
  } else {
    // `namespace` narrows a person's own result; another namespace narrows it to nothing.
    items = [];
  }
  ctx.body = { items };
}

async function createWorkspace(ctx: ApiContext, deps: ResourceDeps): Promise<void> {
  validateQuery(ctx, noQuery);
  const req = validateBody(ctx, createWorkspaceRequest);
  const namespace = ctx.state.caller.namespace;
  const created = await ctx.state.kube.create(RESOURCES.workspace, workspaceObject(req, namespace, deps.gpuResource), namespace);
  ctx.status = 201;
  ctx.body = created;
}

async function getWorkspace(ctx: ApiContext): Promise<void> {
  const { namespace } = validateQuery(ctx, namespaceQuery);
  ctx.body = await ctx.state.kube.get(RESOURCES.workspace, nameParam(ctx), targetNamespace(ctx, namespace));
}

async function deleteWorkspace(ctx: ApiContext, deps: ResourceDeps): Promise<void> {
  const query = validateQuery(ctx, deleteWorkspaceQuery);
  const name = nameParam(ctx);
  const namespace = targetNamespace(ctx, query.namespace);
  const { kube } = ctx.state;
  await kube.delete(RESOURCES.workspace, name, namespace);
  // SPEC 4.2: only the exact value `false` keeps the home volume.
  if (query.delete_volume !== 'false') {
    const claim = homeClaimName(name);
    try {
      await kube.delete(RESOURCES.persistentVolumeClaim, claim, namespace);
    } catch (err) {
      if (!isNotFound(err)) {
        deps.log('home volume left behind', { namespace, workspace: name, claim, error: (err as Error).message });
        throw new HttpError(409, `workspace ${name} was deleted, but its home volume PersistentVolumeClaim ${claim} in namespace ${namespace} is left: ${(err as Error).message}`);
      }
    }
  }
  ctx.status = 204;
}

function setRunning(running: boolean) {
  return async function patchRunning(ctx: ApiContext): Promise<void> {
    const { namespace } = validateQuery(ctx, namespaceQuery);
    ctx.body = await ctx.state.kube.patch(RESOURCES.workspace, nameParam(ctx), runningPatch(running), { namespace: targetNamespace(ctx, namespace) });
  };
}

interface PodView {
  metadata?: { labels?: Record<string, string>; deletionTimestamp?: string };
  status?: { phase?: string };
}

async function workspaceLogs(ctx: ApiContext): Promise<void> {
  const query = validateQuery(ctx, logsQuery);
  const name = nameParam(ctx);
  const namespace = targetNamespace(ctx, query.namespace);
  const tail = query.tail === undefined ? DEFAULT_LOG_TAIL : Number(query.tail);
  const { kube } = ctx.state;
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
  ctx.body = { namespace, pod, lines: typeof lines === 'string' ? lines : '' };
}

export function mountWorkspaceRoutes(router: ApiRouter, deps: ResourceDeps): void {
  router.get('/workspaces', listWorkspaces);
  router.post('/workspaces', (ctx) => createWorkspace(ctx, deps));
  router.get('/workspaces/:name', getWorkspace);
  router.delete('/workspaces/:name', (ctx) => deleteWorkspace(ctx, deps));
  router.post('/workspaces/:name/start', setRunning(true));
  router.post('/workspaces/:name/stop', setRunning(false));
  router.get('/workspaces/:name/logs', workspaceLogs);
}
