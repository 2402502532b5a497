// The dashboard and the workspace actions, read and written with the person's own minted
// token through the REST handlers' functions (server/api/workspaces.ts).
import type { Context } from 'koa';
import type { KubeClient } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { WORKSPACE_IMAGE_DEFAULTS } from '../../infra/crds/workspace-image.js';
import { dashboardPage } from '../../web/templates/dashboard.js';
import type { WorkspaceView } from '../../web/templates/format.js';
import { listWorkspacesOf, setWorkspaceRunning } from '../api/workspaces.js';
import { sameOriginPath, viewerOf, type PageState } from './middleware.js';
import type { PageContext, PageDeps, PageRouter } from './index.js';

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

export function mountWorkspacePages(router: PageRouter, deps: PageDeps): void {
  router.get('/', (ctx) => dashboard(ctx, deps));
  router.post('/w/:name/start', startOrStop(true));
  router.post('/w/:name/stop', startOrStop(false));
}

export type { PageState };
