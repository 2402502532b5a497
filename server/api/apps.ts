// `GET /workspaces/{name}/apps`: the apps the workspace's catalog entry declares (spec.apps) and
// the TCP ports processes in the workspace's pod listen on (one pods/exec as the caller,
// shell/listening-ports.ts), each with whether it listens, the path of its path-based preview
// (server/preview) when the workspace is the caller's own, since that serves only those, and
// its host-based address when those are on (any workspace: the cluster decides who reaches it).
import type { KubeClient } from '../../kube/client.js';
import { isNotFound } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import type { Workspace } from '../../contract/workspace.js';
import type { WorkspaceImage } from '../../contract/workspace-image.js';
import { declaredApps } from '../../contract/workspace-image-rules.js';
import { workspaceApps as withDevcontainerApps } from '../../contract/devcontainer.js';
import { HttpError } from '../../koa/errors.js';
import { readListeningPorts } from '../../shell/listening-ports.js';
import { containerOf, notRunningMessage, podMismatchMessage, podNameOf, type WorkspacePod } from '../../shell/target.js';
import { previewUrl } from '../../web/preview-address.js';
import { validateQuery } from '../http/validate.js';
import { namespaceQuery } from './schemas.js';
import type { ApiContext, ApiRouter, ResourceDeps } from './types.js';
import type { AppUrl } from '../../contract/apps-domain.js';
import { userSpaceOfNamespace } from '../../kube/group.js';
import { sharedPortsOf } from '../../contract/port-share.js';

export interface ListeningPort {
  port: number;
  /** `/w/<name>/ports/<port>/` when the workspace is the caller's own, else null. */
  preview_path: string | null;
  /** Its own origin `<port>--<name>--<person>.<apps domain>/` when host-based previews are on, else null. */
  app_url: string | null;
}

/** An app the workspace's catalog entry declares (spec.apps), with whether its port listens. */
export interface DeclaredAppState {
  name: string;
  port: number;
  path: string;
  icon: string | null;
  listening: boolean;
  /** `/w/<name>/ports/<port><path>` when the workspace is the caller's own, else null. */
  preview_path: string | null;
  /** `<port>--<name>--<person>.<apps domain><path>` when host-based previews are on, else null. */
  app_url: string | null;
}

export interface WorkspaceApps {
  namespace: string;
  workspace: string;
  pod: string;
  apps: DeclaredAppState[];
  listening: ListeningPort[];
  /** Who may open which port beyond the owner (spec.sharedPorts, contract/port-share.ts). */
  shared_ports: { port: number; level: string; people: string[] }[];
}

async function imageOf(kube: KubeClient, name: string | undefined): Promise<WorkspaceImage | undefined> {
  // A withdrawn catalog entry leaves running workspaces alone: they just declare no apps.
  return name ? kube.getIfExists<WorkspaceImage>(RESOURCES.workspaceImage, name) : undefined;
}

/**
 * The TCP ports listening in a workspace's pod, read with `kube` (the caller's token): one pod
 * read and one pods/exec; 409 when the workspace is not running or its pod is not there yet.
 */
export async function listeningPortsOf(kube: KubeClient, ws: Workspace, namespace: string): Promise<{ pod: string; node?: string; ports: number[] }> {
  const name = ws.metadata?.name ?? '';
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
  return { pod: podName, ...(pod.spec?.nodeName && { node: pod.spec.nodeName }), ports };
}

/** Reads the workspace, its pod and the ports listening in it, all with `kube` (the caller's token); 409 when it is not running. */
export async function readWorkspaceApps(kube: KubeClient, name: string, namespace: string, own: boolean, appUrl?: AppUrl): Promise<WorkspaceApps> {
  const ws = await kube.get<Workspace>(RESOURCES.workspace, name, namespace);
  // A workspace that is not running is answered 409 without reading its catalog entry.
  const [{ pod: podName, ports }, image] = await Promise.all([listeningPortsOf(kube, ws, namespace), notRunningMessage(ws) ? undefined : imageOf(kube, ws.spec?.imageRef?.name)]);
  const open = new Set(ports);
  const person = userSpaceOfNamespace(namespace);
  const hostBased = (port: number, path = '/') => (person && appUrl?.({ port, workspace: name, person }, path)) || null;
  return {
    namespace,
    workspace: name,
    pod: podName,
    apps: withDevcontainerApps(declaredApps(image?.spec?.apps), ws.status?.devcontainer).map((app) => ({
      name: app.name,
      port: app.port,
      path: app.path ?? '/',
      icon: app.icon ?? null,
      listening: open.has(app.port),
      preview_path: own ? previewUrl(name, app.port, app.path ?? '/') : null,
      app_url: hostBased(app.port, app.path ?? '/'),
    })),
    listening: ports.map((port) => ({ port, preview_path: own ? previewUrl(name, port) : null, app_url: hostBased(port) })),
    shared_ports: sharedPortsOf(ws.spec?.sharedPorts).map((s) => ({ port: s.port, level: s.level, people: s.people ?? [] })),
  };
}

function workspaceApps(appUrl: AppUrl | undefined) {
  return async (ctx: ApiContext): Promise<void> => {
    const { namespace } = validateQuery(ctx, namespaceQuery);
    const target = namespace ?? ctx.state.caller.namespace;
    ctx.body = await readWorkspaceApps(ctx.state.kube, ctx.params.name!, target, target === ctx.state.caller.namespace, appUrl);
  };
}

export function mountWorkspaceAppRoutes(router: ApiRouter, deps: Pick<ResourceDeps, 'appUrl'>): void {
  router.get('/workspaces/:name/apps', workspaceApps(deps.appUrl));
}
