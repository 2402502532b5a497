// The dashboard: my workspaces with their phase, why they are not running, how to connect,
// and start/stop; an empty state that says what to do first.
import { html, type Html } from '../html.js';
import { ago, canRestart, canStart, canStop, phaseBadge, phaseOf, summaryOf, type Failure, type WorkspaceView } from './format.js';
import { csrfField, page, type AssetUrls, type Viewer } from './layout.js';
import { liveRegion } from './live.js';
import { sharedWithYou, type SharedWorkspaceView } from './shares.js';

export interface DashboardView {
  workspaces: WorkspaceView[];
  /** Home path of each catalog entry the workspaces use (for the VS Code link). */
  homePaths: ReadonlyMap<string, string>;
  defaultHomePath: string;
  /** Why each Failed workspace cannot start, by name. */
  failures: ReadonlyMap<string, Failure>;
  /** Where people reach den gateway (`--gateway-port`). */
  gatewayPort: number;
  now: number;
  /** What the last action did (a delete says what it deleted). */
  notice?: string;
  /** Workspaces close to being stopped or deleted for being unused (contract/dormancy.ts), by name. */
  dormancy?: ReadonlyMap<string, string>;
  /** Workspaces others shared with the viewer (docs/sharing.md), and why they could not be listed. */
  shared?: SharedWorkspaceView[];
  sharedUnread?: string;
}

/** `vscode://vscode-remote/ssh-remote+<name>@<host>[:port]/<homePath>`: VS Code's Remote-SSH opens the home folder. */
export function vscodeLink(endpoint: string, homePath: string, port = 22): string {
  const authority = encodeURIComponent(endpoint).replace(/%40/g, '@') + (port === 22 ? '' : `:${port}`);
  return `vscode://vscode-remote/ssh-remote+${authority}${homePath.startsWith('/') ? '' : '/'}${homePath}`;
}

const RUN_LABELS = { start: 'Start', stop: 'Stop', restart: 'Restart' } as const;

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

export function runForm(name: string, action: keyof typeof RUN_LABELS, enabled: boolean, csrf: string, back: string, namespace?: string): Html {
  const label = RUN_LABELS[action];
  return html`<form class="inline" method="post" action="/w/${name}/${action}">${csrfField(csrf)}<input type="hidden" name="back" value="${back}">${namespace && html`<input type="hidden" name="namespace" value="${namespace}">`}<button type="submit" class="${action === 'stop' ? 'secondary' : ''}"${enabled ? '' : html` disabled`} aria-label="${label} ${name}">${label}</button></form>`;
}

/** The ssh command and VS Code link while they can work (Running); otherwise why not and when they will. */
export function connectBlock(ws: WorkspaceView, homePath: string, port = 22, withConfig = false): Html {
  const endpoint = ws.status?.endpoint;
  const phase = phaseOf(ws);
  if (phase === 'Failed') return html`<p class="muted connect-state">SSH and VS Code cannot connect while this workspace cannot start.</p>`;
  if (phase === 'Suspended') return html`<p class="muted connect-state">Stopped: start it to connect over SSH or VS Code.</p>`;
  if (phase !== 'Running' || !endpoint) return html`<p class="muted connect-state">The ssh command and VS Code link appear here when the workspace is Running.</p>`;
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
  const failure = view.failures.get(name);
  const reason = summaryOf(ws, failure);
  const buttons = canRestart(ws)
    ? html`${runForm(name, 'restart', true, csrf, '/')}${runForm(name, 'stop', true, csrf, '/')}`
    : html`${runForm(name, 'start', canStart(ws), csrf, '/')}${runForm(name, 'stop', canStop(ws), csrf, '/')}`;
  return html`<article class="card workspace" data-workspace="${name}" aria-labelledby="ws-${name}" data-announce-key="${name}" data-announce="${`${name} is ${phaseOf(ws)}. ${reason}`.trim()}">
  <div class="row"><h2 id="ws-${name}"><a href="/w/${name}">${name}</a></h2>${phaseBadge(ws)}</div>
  ${reason && html`<p class="reason">${reason}</p>`}
  ${view.dormancy?.get(name) && html`<p class="notice warning dormancy" role="status">${view.dormancy.get(name)}</p>`}
  <dl class="facts">
    <dt>Image</dt><dd>${image}</dd>
    <dt>Created</dt><dd>${ago(ws.metadata?.creationTimestamp, view.now)}</dd>
    <dt>Last activity</dt><dd>${ago(ws.status?.lastActivityTime, view.now)}</dd>
  </dl>
  ${connectBlock(ws, view.homePaths.get(image) ?? view.defaultHomePath, view.gatewayPort)}
  <div class="row">${buttons}</div>
</article>`;
}

/** The cards, or the empty state: the dashboard's live part (web/templates/live.ts). */
export function dashboardCards(view: DashboardView, csrf: string): Html {
  const shared = sharedWithYou(view.shared ?? [], connectBlock, (image) => view.homePaths.get(image) ?? view.defaultHomePath, view.gatewayPort, view.now, view.sharedUnread);
  return html`${ownCards(view, csrf)}${shared}`;
}

function ownCards(view: DashboardView, csrf: string): Html {
  if (view.workspaces.length === 0) {
    return html`<div class="card empty" id="empty-state">
  <h2>You have no workspace yet</h2>
  <p>A workspace is your own development machine: a shell, your home folder that stays, and SSH from your laptop or VS Code.</p>
  <p>Pick an image in the <a href="/catalog">catalog</a>, or <a class="button" href="/new">create your first workspace</a>.</p>
</div>`;
  }
  return html`<div class="cards">${view.workspaces.map((ws) => card(ws, view, csrf))}</div>`;
}

export function dashboardPage(assets: AssetUrls, viewer: Viewer, view: DashboardView): string {
  const body = html`<div class="row"><h1>Your workspaces</h1><a class="button" href="/new">New workspace</a></div>
${view.notice && html`<div class="notice" role="status" id="notice">${view.notice}</div>`}
${liveRegion('/', dashboardCards(view, viewer.csrf))}`;
  return page({ title: 'Dashboard', assets, viewer, active: 'dashboard', body, scripts: ['live.js'] });
}
