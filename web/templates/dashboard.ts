// The dashboard: my workspaces with their phase, why they are not running, how to connect,
// and start/stop; an empty state that says what to do first.
import { html, type Html } from '../html.js';
import { ago, canStart, canStop, phaseBadge, reasonOf, type WorkspaceView } from './format.js';
import { csrfField, page, type AssetUrls, type Viewer } from './layout.js';

export interface DashboardView {
  workspaces: WorkspaceView[];
  /** Home path of each catalog entry the workspaces use (for the VS Code link). */
  homePaths: ReadonlyMap<string, string>;
  defaultHomePath: string;
  /** Where people reach den gateway (`--gateway-port`). */
  gatewayPort: number;
  now: number;
  /** What the last action did (a delete says what it deleted). */
  notice?: string;
}

/** `vscode://vscode-remote/ssh-remote+<name>@<host>[:port]/<homePath>`: VS Code's Remote-SSH opens the home folder. */
export function vscodeLink(endpoint: string, homePath: string, port = 22): string {
  const authority = encodeURIComponent(endpoint).replace(/%40/g, '@') + (port === 22 ? '' : `:${port}`);
  return `vscode://vscode-remote/ssh-remote+${authority}${homePath.startsWith('/') ? '' : '/'}${homePath}`;
}

/** `ssh [-p port] <name>@<host>`: the port only when it is not SSH's own. */
export function sshCommand(endpoint: string, port = 22): string {
  return port === 22 ? `ssh ${endpoint}` : `ssh -p ${port} ${endpoint}`;
}

/** A ~/.ssh/config block for the workspace (`ssh <name>.den` afterwards), as `den config-ssh` names hosts. */
export function sshConfigBlock(endpoint: string, port = 22): string {
  const at = endpoint.lastIndexOf('@');
  const user = endpoint.slice(0, at);
  const host = endpoint.slice(at + 1);
  return [`Host ${user}.den`, `  HostName ${host}`, `  Port ${port}`, `  User ${user}`, '  IdentityFile ~/.ssh/id_ed25519', '  IdentitiesOnly yes'].join('\n');
}

export function runForm(name: string, action: 'start' | 'stop', enabled: boolean, csrf: string, back: string, namespace?: string): Html {
  const label = action === 'start' ? 'Start' : 'Stop';
  return html`<form class="inline" method="post" action="/w/${name}/${action}">${csrfField(csrf)}<input type="hidden" name="back" value="${back}">${namespace && html`<input type="hidden" name="namespace" value="${namespace}">`}<button type="submit" class="${action === 'stop' ? 'secondary' : ''}"${enabled ? '' : html` disabled`} aria-label="${label} ${name}">${label}</button></form>`;
}

export function connectBlock(ws: WorkspaceView, homePath: string, port = 22, withConfig = false): Html {
  const endpoint = ws.status?.endpoint;
  if (!endpoint) return html`<p class="muted">The SSH address appears once the controller has reconciled this workspace.</p>`;
  const command = sshCommand(endpoint, port);
  const config = sshConfigBlock(endpoint, port);
  return html`<div class="copy"><code>${command}</code><button type="button" class="secondary" data-copy="${command}" aria-label="Copy the ssh command">Copy</button></div>
<p><a href="${vscodeLink(endpoint, homePath, port)}">Open in VS Code (Remote-SSH)</a></p>
${withConfig && html`<details id="ssh-config"><summary>A <code>~/.ssh/config</code> block (then <code>ssh ${endpoint.slice(0, endpoint.lastIndexOf('@'))}.den</code>, scp, git, VS Code)</summary>
<pre tabindex="0" role="region" aria-label="ssh config block">${config}</pre>
<p><button type="button" class="secondary" data-copy="${config}" aria-label="Copy the ssh config block">Copy</button> <span class="muted">IdentityFile names your private key; change it if yours is elsewhere.</span></p></details>`}`;
}

function card(ws: WorkspaceView, view: DashboardView, csrf: string): Html {
  const name = ws.metadata?.name ?? '';
  const image = ws.spec?.imageRef?.name ?? '';
  const reason = reasonOf(ws);
  return html`<article class="card workspace" data-workspace="${name}" aria-labelledby="ws-${name}">
  <div class="row"><h2 id="ws-${name}"><a href="/w/${name}">${name}</a></h2>${phaseBadge(ws)}</div>
  ${reason && html`<p class="reason">${reason}</p>`}
  <dl class="facts">
    <dt>Image</dt><dd>${image}</dd>
    <dt>Created</dt><dd>${ago(ws.metadata?.creationTimestamp, view.now)}</dd>
    <dt>Last activity</dt><dd>${ago(ws.status?.lastActivityTime, view.now)}</dd>
  </dl>
  ${connectBlock(ws, view.homePaths.get(image) ?? view.defaultHomePath, view.gatewayPort)}
  <div class="row">${runForm(name, 'start', canStart(ws), csrf, '/')}${runForm(name, 'stop', canStop(ws), csrf, '/')}</div>
</article>`;
}

export function dashboardPage(assets: AssetUrls, viewer: Viewer, view: DashboardView): string {
  const body =
    view.workspaces.length === 0
      ? html`<h1>Your workspaces</h1>
${view.notice && html`<div class="notice" role="status" id="notice">${view.notice}</div>`}
<div class="card empty" id="empty-state">
  <h2>You have no workspace yet</h2>
  <p>A workspace is your own development machine: a shell, your home folder that stays, and SSH from your laptop or VS Code.</p>
  <p>Pick an image in the <a href="/catalog">catalog</a>, or <a class="button" href="/new">create your first workspace</a>.</p>
</div>`
      : html`<div class="row"><h1>Your workspaces</h1><a class="button" href="/new">New workspace</a></div>
${view.notice && html`<div class="notice" role="status" id="notice">${view.notice}</div>`}
<div class="cards">${view.workspaces.map((ws) => card(ws, view, viewer.csrf))}</div>`;
  return page({ title: 'Dashboard', assets, viewer, active: 'dashboard', body });
}
