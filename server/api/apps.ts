// `GET /workspaces/{name}/apps`: the TCP ports processes in the workspace's pod listen on
// (one pods/exec as the caller, shell/listening-ports.ts), each with the path of its preview
// (server/preview) when the workspace is the caller's own, since a preview serves only those.
import type { KubeClient } from '../../kube/client.js';
import { isNotFound } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import type { Workspace } from '../../infra/crds/workspace.js';
import { HttpError } from '../../koa/errors.js';
import { readListeningPorts } from '../../shell/listening-ports.js';
import { containerOf, notRunningMessage, podMismatchMessage, podNameOf, type WorkspacePod } from '../../shell/target.js';
import { previewUrl } from '../../web/preview-address.js';
import { validateQuery } from '../http/validate.js';
import { namespaceQuery } from './schemas.js';
import type { ApiContext, ApiRouter } from './types.js';

export interface ListeningPort {
  port: number;
  /** `/w/<name>/ports/<port>/` when the workspace is the caller's own, else null. */
  preview_path: string | null;
}

export interface WorkspaceApps {
  namespace: string;
  workspace: string;
  pod: string;
  listening: ListeningPort[];
}

/** Reads the workspace, its pod and the ports listening in it, all with `kube` (the caller's token); 409 when it is not running. */
export async function readWorkspaceApps(kube: KubeClient, name: string, namespace: string, own: boolean): Promise<WorkspaceApps> {
  const ws = await kube.get<Workspace>(RESOURCES.workspace, name, namespace);
  const notRunning = notRunningMessage(ws);
  if (notRunning) throw new HttpError(409, notRunning);
  const podName = podNameOf(ws);
  let pod: WorkspacePod;
  try {
    pod = await kube.get<WorkspacePod>(RESOURCES.pod, podName, namespace);
  } catch (err) {
    if (isNotFound(err)) throw new HttpError(409, `workspace ${name} has no pod ${podName} yet; try again shortly`);
    throw err;
  }
  const mismatch = podMismatchMessage(pod, name);
  if (mismatch) throw new HttpError(409, mismatch);
  const ports = await readListeningPorts(kube, { namespace, pod: podName, container: containerOf(pod) });
  return {
    namespace,
    workspace: name,
    pod: podName,
    listening: ports.map((port) => ({ port, preview_path: own ? previewUrl(name, port) : null })),
  };
}

async function workspaceApps(ctx: ApiContext): Promise<void> {
  const { namespace } = validateQuery(ctx, namespaceQuery);
  const target = namespace ?? ctx.state.caller.namespace;
  ctx.body = await readWorkspaceApps(ctx.state.kube, ctx.params.name!, target, target === ctx.state.caller.namespace);
}

export function mountWorkspaceAppRoutes(router: ApiRouter): void {
  router.get('/workspaces/:name/apps', workspaceApps);
}
