// The workspace page's "Apps and ports" card, in its own partial: a button for each app the
// workspace's catalog entry declares (spec.apps), and the TCP ports listening in the pod, each
// linked to its preview (host-based when the server has an apps domain, else path-based). The script web/scripts/workspace-apps.ts fills in the ports and which
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

/** Host-based addresses of this workspace's ports, when the server has an apps domain. */
export interface AppLinks {
  /** The address of `path` of the app on `port`, at its own origin. */
  href(port: number, path: string): string | undefined;
}

export function appsCard(workspace: string, apps: readonly DeclaredAppView[], links?: AppLinks): Html {
  const hrefOf = (port: number, path: string) => links?.href(port, path) ?? previewUrl(workspace, port, path);
  const example = links?.href(3000, '/');
  return html`<section class="card" id="workspace-apps" aria-labelledby="apps-title" data-apps-url="/api/v1/workspaces/${workspace}/apps">
  <h2 id="apps-title">Apps and ports</h2>
  ${apps.length > 0 && html`<ul class="row apps" aria-label="Apps of this workspace">${apps.map(
    (app) => html`<li><a class="button app" href="${hrefOf(app.port, app.path ?? '/')}" target="_blank" rel="noopener" data-app-port="${String(app.port)}">${app.icon && html`<img src="${app.icon}" alt="" width="16" height="16">`} Open ${app.name}</a> <span class="badge app-state" data-app-state="${String(app.port)}">checking…</span></li>`,
  )}</ul>`}
  <p class="muted" id="ports-state" aria-live="polite">Reading the ports listening in the workspace…</p>
  <ul class="row" id="ports" aria-label="Listening ports"></ul>
  ${example
    ? html`<p class="muted">A port opens at its own address, like <code>${example}</code> for port 3000, through Den and as you: the cluster decides who may open it. Its pages cannot act as Den. Path-based, <code>/w/${workspace}/ports/&lt;port&gt;/</code> works too.</p>`
    : html`<p class="muted">A port opens at <code>/w/${workspace}/ports/&lt;port&gt;/</code>, through Den and as you; only you can open your workspace's ports.</p>`}
</section>`;
}
