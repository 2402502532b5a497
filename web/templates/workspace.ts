// The workspace page: a status card (re-fetched every 3 s as this same fragment), and tabs
// for logs, events, the terminal and the Workspace's YAML; start, stop and delete.
import { html, type Html } from '../html.js';
import { connectBlock, runForm } from './dashboard.js';
import { changeForm, factsList, type ChangeRefusal, type FactsView, type ImageChoice } from './workspace-facts.js';
import { ago, canStart, canStop, phaseBadge, reasonOf, type WorkspaceView } from './format.js';
import { csrfField, page, type AssetUrls, type Viewer } from './layout.js';
import { dataTable } from './table.js';

export interface EventView {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  lastTimestamp?: string;
  eventTime?: string;
  firstTimestamp?: string;
  involvedObject?: { kind?: string; name?: string };
  metadata?: { resourceVersion?: string };
}

export function eventTime(e: EventView): string {
  return e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? '';
}

/**
 * Oldest first. Timestamps have whole seconds, and a pod's start records several events in one
 * second; among those the order the API server stored them in (resourceVersion) is the order they happened.
 */
export function byEventTime(a: EventView, b: EventView): number {
  const byTime = eventTime(a).localeCompare(eventTime(b));
  if (byTime !== 0) return byTime;
  const versionA = Number(a.metadata?.resourceVersion);
  const versionB = Number(b.metadata?.resourceVersion);
  return Number.isSafeInteger(versionA) && Number.isSafeInteger(versionB) ? versionA - versionB : 0;
}

/** The status card: phase, why, conditions and the start's pod events as progress. */
export function statusCard(ws: WorkspaceView, podEvents: EventView[], now: number): Html {
  const reason = reasonOf(ws);
  const conditions = ws.status?.conditions ?? [];
  return html`<div class="row"><h2>Status</h2>${phaseBadge(ws)}</div>
${reason && html`<p class="reason">${reason}</p>`}
<dl class="facts">
  <dt>Image</dt><dd>${ws.spec?.imageRef?.name ?? ''}</dd>
  <dt>Pod</dt><dd>${ws.status?.podName ?? '—'}</dd>
  <dt>Last activity</dt><dd>${ago(ws.status?.lastActivityTime, now)}</dd>
</dl>
${conditions.length > 0 && html`<h3>Conditions</h3>${dataTable('', ['Type', 'Status', 'Reason', 'Message'].map((label) => ({ label })), conditions.map((c) => ({ cells: [c.type, c.status, c.reason, c.message] })))}`}
${podEvents.length > 0 && html`<h3>Progress</h3><ol class="progress" aria-label="Pod events">${podEvents.map(
  (e) => html`<li class="${e.type === 'Warning' ? 'Warning' : 'Normal'}"><strong>${e.reason}</strong>: ${e.message}</li>`,
)}</ol>`}`;
}

export interface WorkspacePageView {
  ws: WorkspaceView;
  podEvents: EventView[];
  events: EventView[];
  yaml: string;
  homePath: string;
  now: number;
  /** Something the last action on this page left to say (a key that could not be saved). */
  notice?: string;
  /** Entries a change of image may pick. */
  images: ImageChoice[];
  /** Where people reach den gateway (`--gateway-port`). */
  gatewayPort: number;
  /** Set when an administrator looks at someone else's workspace: every link and form carries it. */
  namespace?: string;
  /** A refused change, shown in the change form with what was typed. */
  changeRefusal?: ChangeRefusal;
  /** A refused delete (the name typed did not match), shown beside the name field. */
  deleteRefusal?: string;
  /** The image's title, who created it, the idle timeout in words. */
  facts: FactsView;
}

/** `?namespace=…` for another's workspace, else nothing. */
function namespaceQuery(namespace: string | undefined): string {
  return namespace ? `?namespace=${encodeURIComponent(namespace)}` : '';
}

function namespaceField(namespace: string | undefined): Html | '' {
  return namespace ? html`<input type="hidden" name="namespace" value="${namespace}">` : '';
}

function eventsTable(events: EventView[], now: number): Html {
  if (events.length === 0) return html`<p class="muted">No events about this workspace or its pod.</p>`;
  const columns = ['When', 'Type', 'Object', 'Reason', 'Message'].map((label) => ({ label }));
  return dataTable('events', columns, events.map((e) => ({ cells: [ago(eventTime(e), now), e.type, `${e.involvedObject?.kind}/${e.involvedObject?.name}`, e.reason, e.message] })));
}

export function workspacePage(assets: AssetUrls, viewer: Viewer, v: WorkspacePageView): string {
  const name = v.ws.metadata?.name ?? '';
  const claim = `home-${name}-0`;
  const ns = namespaceQuery(v.namespace);
  const here = `/w/${name}${ns}`;
  const tab = (id: string, label: string, selected = false) =>
    html`<button type="button" role="tab" id="tab-${id}" aria-controls="panel-${id}" aria-selected="${selected ? 'true' : 'false'}" tabindex="${selected ? '0' : '-1'}">${label}</button>`;
  const body = html`<div class="row"><h1>${name}</h1>${v.namespace && html`<span class="muted">in ${v.namespace}</span>`}</div>
${v.notice && html`<div class="notice warning" role="status" id="notice">${v.notice}</div>`}
<section class="card" id="status-card" aria-live="polite" data-status-url="/w/${name}/status${ns}">${statusCard(v.ws, v.podEvents, v.now)}</section>
<section class="card"><h2>Connect</h2>${connectBlock(v.ws, v.homePath, v.gatewayPort, true)}
  <div class="row">${runForm(name, 'start', canStart(v.ws), viewer.csrf, here, v.namespace)}${runForm(name, 'stop', canStop(v.ws), viewer.csrf, here, v.namespace)}</div>
</section>
<section class="card" aria-labelledby="details-title"><h2 id="details-title">Details</h2>${factsList(v.ws, v.facts, v.now)}
${changeForm(v.ws, `/w/${name}/change`, viewer.csrf, v.images, namespaceField(v.namespace), v.changeRefusal)}</section>
<div class="tabs" role="tablist" aria-label="Workspace details">${tab('logs', 'Logs', true)}${tab('events', 'Events')}${v.namespace ? '' : tab('terminal', 'Terminal')}${tab('yaml', 'YAML')}</div>
<section role="tabpanel" id="panel-logs" aria-labelledby="tab-logs" data-logs-url="/w/${name}/logs${ns}">
  <div class="row"><label for="tail">Lines</label><select id="tail" name="tail"><option value="100">100</option><option value="200" selected>200</option><option value="500">500</option><option value="1000">1000</option></select></div>
  <p class="muted" id="logs-state">Loading the log…</p>
  <pre id="logs" tabindex="0" role="region" aria-label="Pod log"></pre>
</section>
<section role="tabpanel" id="panel-events" aria-labelledby="tab-events" hidden>${eventsTable(v.events, v.now)}</section>
${!v.namespace && html`<section role="tabpanel" id="panel-terminal" aria-labelledby="tab-terminal" hidden>
  <div class="row terminal-bar"><p class="muted" id="terminal-help">The terminal keeps Tab and Esc for the shell: <kbd>Shift</kbd>+<kbd>Esc</kbd> leaves it.</p>
  <button type="button" class="secondary" id="terminal-fullscreen" aria-pressed="false">Full screen</button></div>
  <div id="terminal" data-workspace="${name}" data-namespace="${v.ws.metadata?.namespace ?? ''}" data-csrf="${viewer.csrf}" data-ws-url="/w/${name}/terminal/ws" data-script="${assets.url('terminal.js')}" data-style="${assets.url('terminal.css')}"></div>
</section>`}
<section role="tabpanel" id="panel-yaml" aria-labelledby="tab-yaml" hidden><pre id="yaml" tabindex="0" role="region" aria-label="Workspace YAML">${v.yaml}</pre></section>
<section class="card" aria-labelledby="delete-title">
  <h2 id="delete-title">Delete</h2>
  <details${v.deleteRefusal ? html` open` : ''}><summary>Delete this workspace…</summary>
  <form method="post" action="/w/${name}/delete" id="delete-form" novalidate>
    ${csrfField(viewer.csrf)}${namespaceField(v.namespace)}
    <p>This deletes the workspace <strong>${name}</strong> and its pod. Its home folder lives on the volume <code>${claim}</code>.</p>
    <label class="check"><input type="checkbox" name="delete_volume" value="1" id="delete-volume" checked> Also delete the volume ${claim} (everything in the home folder is lost)</label>
    <div class="field${v.deleteRefusal ? ' invalid' : ''}"><label for="confirm-name">To delete it with its volume, type its name, ${name}</label>
    <input type="text" id="confirm-name" name="confirm_name" autocomplete="off" autocapitalize="none" spellcheck="false" aria-describedby="confirm-name-hint${v.deleteRefusal ? ' confirm-name-error' : ''}"${v.deleteRefusal ? html` aria-invalid="true"` : ''}>
    <p class="hint" id="confirm-name-hint">Not needed when the volume is kept.</p>
    ${v.deleteRefusal && html`<p class="error" id="confirm-name-error" role="alert">${v.deleteRefusal}</p>`}</div>
    <p><button type="submit" class="danger">Delete ${name}</button></p>
  </form></details>
</section>`;
  return page({ title: name, assets, viewer, body, scripts: ['workspace.js'] });
}
