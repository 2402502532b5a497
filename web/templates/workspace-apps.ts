// The workspace page's "Apps and ports" card, in its own partial: a button for each app the
// workspace's catalog entry declares (spec.apps), and the TCP ports listening in the pod, each
// linked to its preview (host-based when the server has an apps domain, else path-based). The
// ports are a live part of the page (web/templates/live.ts): the status poll reads them every
// other round and carries them; web/scripts/workspace-apps.ts then sets which apps listen.
import { html, type Html } from '../html.js';
import { previewUrl } from '../preview-address.js';
import { csrfField } from './layout.js';

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

export function appsCard(workspace: string, apps: readonly DeclaredAppView[], ports: Html, running: boolean, links?: AppLinks, sharing?: PortSharingView): Html {
  const hrefOf = (port: number, path: string) => links?.href(port, path) ?? previewUrl(workspace, port, path);
  const example = links?.href(3000, '/');
  return html`<section class="card" id="workspace-apps" aria-labelledby="apps-title">
  <h2 id="apps-title">Apps and ports</h2>
  ${apps.length > 0 && html`<ul class="row apps" aria-label="Apps of this workspace">${apps.map(
    (app) => html`<li><a class="button app" href="${hrefOf(app.port, app.path ?? '/')}" target="_blank" rel="noopener" data-app-port="${String(app.port)}">${app.icon && html`<img src="${app.icon}" alt="" width="16" height="16">`} Open ${app.name}</a> <span class="badge app-state" data-app-state="${String(app.port)}">${running ? 'checking…' : 'unknown'}</span></li>`,
  )}</ul>`}
  ${ports}
  ${example
    ? html`<p class="muted">A port opens at its own address, like <code>${example}</code> for port 3000, through Den and as you: the cluster decides who may open it, and the port's sharing below. Its pages cannot act as Den. Path-based, <code>/w/${workspace}/ports/&lt;port&gt;/</code> works too, for you only.</p>`
    : html`<p class="muted">A port opens at <code>/w/${workspace}/ports/&lt;port&gt;/</code>, through Den and as you.</p>`}
  ${sharing && portSharing(workspace, sharing)}
</section>`;
}

/** The sharing of this workspace's ports, as the Apps and ports card shows it. */
export interface PortSharingView {
  /** Host-based previews are on: a port can be shared. */
  hostBased: boolean;
  /** The install allows public ports (server.apps.allowPublicPorts). */
  allowPublic: boolean;
  /** The ports shared now (spec.sharedPorts), each with who may open it in words. */
  shares: readonly { port: number; said: string; href?: string }[];
  /** The levels the form offers, in words (contract/port-share.ts). */
  levels: readonly { level: string; said: string }[];
  /** The viewer may change them here (their own workspace); else the list is shown only. */
  editable: boolean;
  csrf: string;
}

/** Who may open each port, and the form that changes it (host-based previews only: path-based ones serve only the owner). */
function portSharing(workspace: string, v: PortSharingView): Html {
  if (!v.hostBased) {
    return html`<p class="muted" id="port-sharing">Only you can open your ports: path-based previews run an app's pages on Den's own address, so they serve only the workspace's owner. Sharing a port with other people needs host-based previews, each app on an address of its own, which an administrator turns on (<code>server.apps.domain</code>).</p>`;
  }
  const list = v.shares.length === 0
    ? html`<p class="muted" id="port-shares">No port is shared: only you can open them.</p>`
    : html`<ul id="port-shares" aria-label="Shared ports">${v.shares.map(
      (share) => html`<li data-shared-port="${String(share.port)}">${share.href ? html`<a href="${share.href}" target="_blank" rel="noopener">Port ${String(share.port)}</a>` : html`Port ${String(share.port)}`}: ${share.said}${v.editable && html` <form class="inline" method="post" action="/w/${workspace}/shared-ports">${csrfField(v.csrf)}<input type="hidden" name="port" value="${String(share.port)}"><input type="hidden" name="level" value="owner"><button type="submit" class="secondary" aria-label="Stop sharing port ${String(share.port)}">Stop sharing</button></form>`}</li>`,
    )}</ul>`;
  return html`<section aria-labelledby="sharing-title" id="port-sharing"><h3 id="sharing-title">Sharing</h3>
${list}
${v.editable && html`<form method="post" action="/w/${workspace}/shared-ports" class="row" id="port-share-form">${csrfField(v.csrf)}
  <div class="field"><label for="share-port">Port</label><input type="text" id="share-port" name="port" inputmode="numeric" pattern="[0-9]{1,5}" size="6" placeholder="3000" required></div>
  <div class="field"><label for="share-level">Who may open it</label><select id="share-level" name="level">${v.levels.map((l) => html`<option value="${l.level}">${l.said}</option>`)}</select></div>
  <div class="field"><label for="share-people">People (their Den user names)</label><input type="text" id="share-people" name="people" placeholder="bob, carol" autocapitalize="none" spellcheck="false"></div>
  <button type="submit">Share</button>
</form>`}
<p class="muted">A shared port opens at its own address only, for the people chosen, through Den and as you; its path-based address (<code>/w/${workspace}/ports/&lt;port&gt;/</code>) always serves only you.${v.allowPublic ? ' A public port needs no sign-in: anyone with its address reaches it.' : ''}</p>
</section>`;
}
