// The workspace page's port sharing (docs/preview.md "Sharing a port"): what the Apps and ports
// card shows of `spec.sharedPorts`, and `POST /w/<name>/shared-ports`, the card's form, which
// goes through the same function as REST (server/api/port-share.ts) and says how it went in a
// notice on the page (the refusal's words when it was refused).
import { PORT_SHARE_LEVELS, PORT_SHARE_WORDS, portShareInWords, sharedPortsOf } from '../../contract/port-share.js';
import type { PortSharingView } from '../../web/templates/workspace-apps.js';
import { portShareRequestOf, setPortShare } from '../api/port-share.js';
import { leaveNotice } from './notice.js';
import { refusalOf } from './refusal.js';
import { pageActor } from './send.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';

/** The card's view of a workspace's shared ports; `editable` on the viewer's own workspace. */
export function portSharingOf(deps: PageDeps, stored: unknown, editable: boolean, app: { workspace: string; person: string | undefined }): Omit<PortSharingView, 'csrf'> {
  const allowPublic = deps.resources.allowPublicPorts ?? false;
  return {
    hostBased: Boolean(deps.resources.appUrl),
    allowPublic,
    editable,
    shares: sharedPortsOf(stored).map((s) => ({ port: s.port, href: (app.person && deps.resources.appUrl?.({ port: s.port, workspace: app.workspace, person: app.person })) || undefined, said: portShareInWords(s) })),
    levels: PORT_SHARE_LEVELS.filter((level) => level !== 'public' || allowPublic).map((level) => ({ level, said: PORT_SHARE_WORDS[level] })),
  };
}

async function sharePort(ctx: PageContext, deps: PageDeps): Promise<void> {
  const name = ctx.params.name!;
  const form = ctx.request.form ?? {};
  const here = `/w/${name}`;
  try {
    const req = portShareRequestOf({ port: form.port ?? '', level: form.level ?? '', people: form.people ?? '' }, deps.resources);
    const shared = await setPortShare(pageActor(ctx), ctx.state.caller.namespace, name, req, deps.resources, 'web');
    const said = shared.level === 'owner' ? `Port ${shared.port} is no longer shared: only you can open it.` : `Port ${shared.port} is shared with ${portShareInWords(shared)}${shared.app_url ? ` at ${shared.app_url}` : ''}.`;
    leaveNotice(ctx, here, said, deps.secureCookies);
  } catch (err) {
    const refusal = refusalOf(err);
    leaveNotice(ctx, here, `Port not shared: ${refusal.said}${refusal.cluster ? ` (the cluster said: ${refusal.cluster})` : ''}`, deps.secureCookies);
  }
  ctx.redirect(`${here}#workspace-apps`);
}

export function mountPortSharePages(router: PageRouter, deps: PageDeps): void {
  router.post('/w/:name/shared-ports', (ctx) => sharePort(ctx, deps));
}
