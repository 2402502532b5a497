// Sharing a workspace with another person (docs/sharing.md): the "Share this workspace" card on the owner's
// workspace page (who may use it, a Remove button each, a form to add someone), and the
// "Shared with you" cards on the guest's dashboard (owner, phase, how to connect).
import { html, type Html } from '../html.js';
import { ago, phaseBadge, phaseOf, type WorkspaceView } from './format.js';
import { csrfField, page, type AssetUrls, type Viewer } from './layout.js';
import { connectBlock } from './connect.js';

export interface ShareLine {
  person: string;
  created: string | null;
}

export interface SharingView {
  name: string;
  /** The owner's own UserSpace name: guests connect as `<name>.<owner>`. */
  owner: string;
  shares: ShareLine[];
  csrf: string;
  now: number;
  /** The cluster's refusal of the list, when it could not be read. */
  unread?: string;
}

/** The "Share this workspace" card of one's own workspace page. */
export function sharingCard(v: SharingView): Html {
  const user = `${v.name}.${v.owner}`;
  const rows = v.shares.map(
    (s) => html`<li data-guest="${s.person}"><strong>${s.person}</strong> <span class="muted">since ${ago(s.created ?? undefined, v.now)}</span>
  <form class="inline" method="post" action="/w/${v.name}/unshare">${csrfField(v.csrf)}<input type="hidden" name="person" value="${s.person}"><button type="submit" class="secondary" aria-label="Remove the share with ${s.person}">Remove</button></form></li>`,
  );
  return html`<section class="card" aria-labelledby="workspace-sharing-title" id="sharing">
  <h2 id="workspace-sharing-title">Share this workspace</h2>
  <p class="muted">A person you share this workspace with reaches it with their own SSH key as <code>${user}</code> (<code>den ssh ${user}</code>), and its apps, as themselves: they cannot stop, resize or delete it. Removing a share ends their open sessions within seconds.</p>
  ${v.unread ? html`<p class="notice warning" role="status">Who it is shared with could not be read: ${v.unread}</p>` : v.shares.length === 0 ? html`<p id="shares-none">Not shared with anyone.</p>` : html`<ul id="shares">${rows}</ul>`}
  <form method="post" action="/w/${v.name}/share" class="row">${csrfField(v.csrf)}
    <label for="share-person">Share with</label><input type="text" id="share-person" name="person" required autocomplete="off" spellcheck="false" placeholder="their Den user name" pattern="[a-z0-9]([-a-z0-9]*[a-z0-9])?" maxlength="63" aria-describedby="share-help">
    <button type="submit">Share</button>
  </form>
  <p class="muted" id="share-help">Their Den user name: lower-case letters, digits and '-'.</p>
</section>`;
}

export interface SharedWorkspaceView {
  owner: string;
  namespace: string;
  name: string;
  ssh_user: string;
  workspace: WorkspaceView;
}

/** One workspace shared with the viewer: whose, its phase, and how to connect as `<name>.<owner>`. */
function sharedCard(s: SharedWorkspaceView, homePath: string, port: number, now: number, withLink = true): Html {
  const endpoint = s.workspace.status?.endpoint;
  const host = endpoint ? endpoint.slice(endpoint.lastIndexOf('@') + 1) : '';
  const asGuest: WorkspaceView = { ...s.workspace, status: { ...s.workspace.status, endpoint: host ? `${s.ssh_user}@${host}` : undefined } };
  const phase = phaseOf(s.workspace);
  return html`<article class="card workspace shared" data-shared="${s.ssh_user}" aria-labelledby="shared-${s.ssh_user}">
  <div class="row"><h3 id="shared-${s.ssh_user}">${s.name} <span class="muted">of ${s.owner}</span></h3>${phaseBadge(s.workspace)}</div>
  <dl class="facts"><dt>Image</dt><dd>${s.workspace.spec?.imageRef?.name ?? ''}</dd><dt>Last activity</dt><dd>${ago(s.workspace.status?.lastActivityTime, now)}</dd></dl>
  ${phase === 'Suspended' ? html`<p class="muted connect-state">Stopped: only ${s.owner} can start it.</p>` : connectBlock(asGuest, homePath, port)}
  ${withLink && phase === 'Running' && html`<p><a class="button" href="${sharedPagePath(s.owner, s.name)}">Open a terminal</a></p>`}
</article>`;
}

/** The page of a workspace shared with the viewer: `/shared/<owner>/<name>`. */
function sharedPagePath(owner: string, name: string): string {
  return `/shared/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}

export interface SharedPageView {
  shared: SharedWorkspaceView;
  homePath: string;
  gatewayPort: number;
  now: number;
}

/** A workspace shared with the viewer: how to connect, and a browser terminal in it as the viewer while it is Running. */
export function sharedWorkspacePage(assets: AssetUrls, viewer: Viewer, v: SharedPageView): string {
  const { shared: s } = v;
  const running = phaseOf(s.workspace) === 'Running';
  const body = html`<div class="row"><h1>${s.name} <span class="muted">of ${s.owner}</span></h1>${phaseBadge(s.workspace)}</div>
<p class="muted">${s.owner} shares this workspace with you: SSH, this terminal and its apps, as yourself. Only ${s.owner} can start, stop, resize or delete it.</p>
${sharedCard(s, v.homePath, v.gatewayPort, v.now, false)}
${running
  ? html`<section id="panel-terminal" aria-labelledby="terminal-title"><div class="row terminal-bar"><h2 id="terminal-title">Terminal</h2><p class="muted" id="terminal-help">The terminal keeps Tab and Esc for the shell: <kbd>Shift</kbd>+<kbd>Esc</kbd> leaves it.</p>
  <button type="button" class="secondary" id="terminal-fullscreen" aria-pressed="false">Full screen</button></div>
  <div id="terminal" data-workspace="${s.name}" data-namespace="${s.namespace}" data-csrf="${viewer.csrf}" data-ws-url="/w/${s.name}/terminal/ws?owner=${encodeURIComponent(s.owner)}"></div></section>`
  : html`<p class="muted" id="terminal-idle">A terminal opens here while the workspace is Running.</p>`}`;
  return page({ title: `${s.name} of ${s.owner}`, assets, viewer, body, active: 'dashboard', scripts: running ? ['terminal.js'] : [], styles: running ? ['terminal.css'] : [] });
}

/** The dashboard's "Shared with you" section: nothing when nobody shared a workspace with the viewer. */
export function sharedWithYou(items: SharedWorkspaceView[], homePath: (image: string) => string, port: number, now: number, unread?: string): Html | '' {
  if (unread) return html`<section aria-labelledby="shared-title"><h2 id="shared-title">Shared with you</h2><p class="notice warning" role="status">The workspaces shared with you could not be listed: ${unread}</p></section>`;
  if (items.length === 0) return '';
  return html`<section aria-labelledby="shared-title" id="shared-with-you"><h2 id="shared-title">Shared with you</h2>
<div class="cards">${items.map((s) => sharedCard(s, homePath(s.workspace.spec?.imageRef?.name ?? ''), port, now))}</div></section>`;
}
