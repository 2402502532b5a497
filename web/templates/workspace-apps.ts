// The workspace page's "Apps and ports" card, in its own partial: a button for each app the
// workspace's catalog entry declares (spec.apps), and the TCP ports listening in the pod, each
// linked to its preview. The script web/scripts/workspace-apps.ts fills in the ports and which
// apps listen, from REST's GET /api/v1/workspaces/<name>/apps, while the page is open.
import { html, type Html } from '../html.js';
import { previewUrl } from '../preview-address.js';

/** An app a catalog entry declares (WorkspaceImage spec.apps[]). */
export interface DeclaredAppView {
  name: string;
  port: number;
  path?: string;
  icon?: string;
}

export function appsCard(workspace: string, apps: readonly DeclaredAppView[]): Html {
  return html`<section class="card" id="workspace-apps" aria-labelledby="apps-title" data-apps-url="/api/v1/workspaces/${workspace}/apps">
  <h2 id="apps-title">Apps and ports</h2>
  ${apps.length > 0 && html`<ul class="row apps" aria-label="Apps of this workspace">${apps.map(
    (app) => html`<li><a class="button app" href="${previewUrl(workspace, app.port, app.path ?? '/')}" target="_blank" rel="noopener" data-app-port="${String(app.port)}">${app.icon && html`<img src="${app.icon}" alt="" width="16" height="16">`} Open ${app.name}</a> <span class="badge app-state" data-app-state="${String(app.port)}">checking…</span></li>`,
  )}</ul>`}
  <p class="muted" id="ports-state" aria-live="polite">Reading the ports listening in the workspace…</p>
  <ul class="row" id="ports" aria-label="Listening ports"></ul>
  <p class="muted">A port opens at <code>/w/${workspace}/ports/&lt;port&gt;/</code>, through Den and as you; only you can open your workspace's ports.</p>
</section>`;
}
