// The dashboard: my workspaces with their phase, why they are not running, how to connect,
// and start/stop; an empty state that says what to do first.
import { html, type Html } from '../html.js';
import { ago, canRestart, canStart, canStop, phaseBadge, phaseOf, summaryOf, type Failure, type WorkspaceView } from './format.js';
import { connectBlock } from './connect.js';
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

const RUN_LABELS = { start: 'Start', stop: 'Stop', restart: 'Restart' } as const;

export function runForm(name: string, action: keyof typeof RUN_LABELS, enabled: boolean, csrf: string, back: string, namespace?: string): Html {
  const label = RUN_LABELS[action];
  return html`<form class="inline" method="post" action="/w/${name}/${action}">${csrfField(csrf)}<input type="hidden" name="back" value="${back}">${namespace && html`<input type="hidden" name="namespace" value="${namespace}">`}<button type="submit" class="${action === 'stop' ? 'secondary' : ''}"${enabled ? '' : html` disabled`} aria-label="${label} ${name}">${label}</button></form>`;
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
  const shared = sharedWithYou(view.shared ?? [], (image) => view.homePaths.get(image) ?? view.defaultHomePath, view.gatewayPort, view.now, view.sharedUnread);
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
