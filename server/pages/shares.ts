// Sharing on the pages (docs/sharing.md): the "Share this workspace" card of one's own workspace page, its Share
// and Remove forms, and the dashboard's "Shared with you" list, through REST's functions
// (server/api/shares.ts) with the person's own minted token.
import { describeError, HttpError } from '../../koa/errors.js';
import { isDns1123Label } from '../../kube/names.js';
import { WORKSPACE_IMAGE_DEFAULTS } from '../../contract/workspace-image.js';
import { notSharedMessage } from '../../shell/share-check.js';
import { sharedWorkspacePage } from '../../web/templates/shares.js';
import { catalogEntryOf } from './catalog-facts.js';
import { sendPage } from './send.js';
import { grantShare, listSharedWith, listSharesOf, readSharedWorkspace, removeShare } from '../api/shares.js';
import { sharingCard } from '../../web/templates/shares.js';
import type { SharedWorkspaceView } from '../../web/templates/shares.js';
import type { Html } from '../../web/html.js';
import type { WorkspaceView } from '../../web/templates/format.js';
import { leaveNotice } from './notice.js';
import { viewerOf } from './middleware.js';
import { pageActor } from './send.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';

/** The "Share this workspace" card of the caller's own workspace `name`; a refused read is said on the card. */
export async function sharingCardOf(ctx: PageContext, deps: PageDeps, name: string): Promise<Html> {
  const { caller, kube } = ctx.state;
  const base = { name, owner: caller.userspace, csrf: viewerOf(ctx)!.csrf, now: deps.now() };
  try {
    return sharingCard({ ...base, shares: await listSharesOf(kube, caller.namespace, name) });
  } catch (err) {
    const { status, message } = describeError(err);
    if (status >= 500) throw err;
    return sharingCard({ ...base, shares: [], unread: message });
  }
}

/** The workspaces shared with the caller for the dashboard, or why they could not be listed. */
export async function sharedWithCaller(ctx: PageContext, deps: PageDeps): Promise<{ shared: SharedWorkspaceView[]; sharedUnread?: string }> {
  try {
    const items = await listSharedWith(ctx.state.caller.userspace, ctx.state.kube, deps.resources);
    return { shared: items.map((s) => ({ ...s, workspace: s.workspace as WorkspaceView })) };
  } catch (err) {
    return { shared: [], sharedUnread: describeError(err).message };
  }
}

function formPerson(ctx: PageContext): string {
  return (ctx.request.form?.person ?? '').trim();
}

/** POST /w/{name}/share and /w/{name}/unshare: done or refused, the page says so. */
function shareAction(grant: boolean, deps: PageDeps) {
  return async (ctx: PageContext): Promise<void> => {
    const name = ctx.params.name!;
    const person = formPerson(ctx);
    const here = `/w/${name}`;
    const caller = ctx.state.caller;
    try {
      if (grant) {
        const { created } = await grantShare(pageActor(ctx), name, person, deps.resources, 'web');
        leaveNotice(ctx, here, created ? `Shared with ${person}: they connect with their own key as ${name}.${caller.userspace} (den ssh ${name}.${caller.userspace}).` : `${name} was already shared with ${person}.`, deps.secureCookies);
      } else {
        await removeShare(pageActor(ctx), name, person, deps.resources, 'web');
        leaveNotice(ctx, here, `${name} is no longer shared with ${person}; their open sessions end within seconds.`, deps.secureCookies);
      }
    } catch (err) {
      const { status, message } = describeError(err);
      if (status >= 500) throw err;
      leaveNotice(ctx, here, `Nothing was changed: ${message}.`, deps.secureCookies);
    }
    ctx.redirect(`${here}#sharing`);
  };
}

/** GET /shared/{owner}/{name}: a workspace shared with the caller, read with their own token, and its terminal. */
async function sharedPage(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { caller, kube, assets } = ctx.state;
  const owner = ctx.params.owner!;
  const name = ctx.params.name!;
  if (!isDns1123Label(owner) || !isDns1123Label(name)) throw new HttpError(404, `not found: "${owner}/${name}" names no workspace`);
  if (owner === caller.userspace) return ctx.redirect(`/w/${name}`);
  const found = await readSharedWorkspace(kube, owner, name);
  // The same words whether it exists or not: the cluster decided the caller may not read it.
  if (!found) throw new HttpError(404, notSharedMessage(name, owner, caller.userspace));
  const shared = { ...found, workspace: found.workspace as WorkspaceView };
  const entry = await catalogEntryOf(kube, shared.workspace.spec?.imageRef?.name ?? '');
  sendPage(ctx, sharedWorkspacePage(assets, viewerOf(ctx)!, { shared, homePath: entry?.homePath ?? WORKSPACE_IMAGE_DEFAULTS.homePath, gatewayPort: deps.gatewayPort, now: deps.now() }));
}

export function mountSharePages(router: PageRouter, deps: PageDeps): void {
  router.get('/shared/:owner/:name', (ctx) => sharedPage(ctx, deps));
  router.post('/w/:name/share', shareAction(true, deps));
  router.post('/w/:name/unshare', shareAction(false, deps));
}
