// The workspace page's "Apps and ports" card, in its own partial: a button for each app the
// workspace's catalog entry declares (spec.apps), and the TCP ports listening in the pod, each
// linked to its preview (host-based when the server has an apps domain, else path-based). The
// ports are a live part of the page (web/templates/live.ts): the status poll reads them every
// other round and carries them; web/scripts/workspace-apps.ts then sets which apps listen.
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

/** What a status poll read of the ports listening in the pod: their numbers, or why none are shown. */
export type PortsView = { listening: number[] } | { unread: string };

/** What the ports part says while the workspace is not Running (there is no pod to read them in). */
const PORTS_WHILE_NOT_RUNNING = 'The ports listening in the workspace are shown while it is Running.';

/** What the ports part shows before the ports are read: that they are being read, or, not Running, why they never will be. */
export function portsBeforeReading(running: boolean): PortsView | undefined {
  return running ? undefined : { unread: PORTS_WHILE_NOT_RUNNING };
}

/** How many status polls make one round of reading the ports (each costs a pods/exec). */
export const PORTS_EVERY_POLLS = 2;

/** The ports part: a line saying what listens (its `data-listening` the script reads) and a link to each port's preview. */
export function portsPart(workspace: string, v: PortsView | undefined, own: boolean, links?: AppLinks): Html {
  if (!v) return html`<p class="muted" id="ports-state">Reading the ports listening in the workspace…</p>`;
  if ('unread' in v) return html`<p class="muted" id="ports-state">${v.unread}</p>`;
  const hrefOf = (port: number) => links?.href(port, '/') ?? (own ? previewUrl(workspace, port) : undefined);
  const n = v.listening.length;
  const said = n === 0 ? 'Nothing listens on a TCP port in the workspace yet.' : `${n === 1 ? 'One port listens' : `${n} ports listen`} in the workspace:`;
  return html`<p class="muted" id="ports-state" data-listening="${v.listening.join(' ')}">${said}</p>
${n > 0 && html`<ul class="row" id="ports" aria-label="Listening ports">${v.listening.map((port) => {
    const href = hrefOf(port);
    return html`<li>${href ? html`<a id="port-${String(port)}" href="${href}" target="_blank" rel="noopener" data-port="${String(port)}">Port ${String(port)}</a>` : html`Port ${String(port)}`}</li>`;
  })}</ul>`}`;
}

export function appsCard(workspace: string, apps: readonly DeclaredAppView[], ports: Html, running: boolean, links?: AppLinks): Html {
  const hrefOf = (port: number, path: string) => links?.href(port, path) ?? previewUrl(workspace, port, path);
  const example = links?.href(3000, '/');
  return html`<section class="card" id="workspace-apps" aria-labelledby="apps-title">
  <h2 id="apps-title">Apps and ports</h2>
  ${apps.length > 0 && html`<ul class="row apps" aria-label="Apps of this workspace">${apps.map(
    (app) => html`<li><a class="button app" href="${hrefOf(app.port, app.path ?? '/')}" target="_blank" rel="noopener" data-app-port="${String(app.port)}">${app.icon && html`<img src="${app.icon}" alt="" width="16" height="16">`} Open ${app.name}</a> <span class="badge app-state" data-app-state="${String(app.port)}">${running ? 'checking…' : 'unknown'}</span></li>`,
  )}</ul>`}
  ${ports}
  ${example
    ? html`<p class="muted">A port opens at its own address, like <code>${example}</code> for port 3000, through Den and as you: the cluster decides who may open it. Its pages cannot act as Den. Path-based, <code>/w/${workspace}/ports/&lt;port&gt;/</code> works too.</p>`
    : html`<p class="muted">A port opens at <code>/w/${workspace}/ports/&lt;port&gt;/</code>, through Den and as you; only you can open your workspace's ports.</p>`}
</section>`;
}
