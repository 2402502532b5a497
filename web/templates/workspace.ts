// The workspace page: the status and Connect cards (re-fetched every 3 s as one fragment), and
// tabs for logs, events, what people did (activity), the terminal and the Workspace's YAML;
// start, stop, restart and delete.
import { html, type Html } from '../html.js';
import { runForm } from './dashboard.js';
import { connectBlock } from './connect.js';
import { changeForm, factsList, imageFact, placementFacts, scheduleForm, type ChangeRefusal, type FactsView, type ImageChoice, type PlacementView, type ScheduleField, type ScheduleRefusal } from './workspace-facts.js';
import { ago, canRestart, canStart, canStop, entryLabel, failureSentence, phaseBadge, phaseOf, reasonOf, summaryOf, type Failure, type WorkspaceView } from './format.js';
import { livePart, liveRegion, partInFragment } from './live.js';
import { page, type AssetUrls, type Viewer } from './layout.js';
import { activityTab, type ActivityLine } from './activity.js';
import { appsCard, PORTS_EVERY_POLLS, portsBeforeReading, portsPart, type AppLinks, type DeclaredAppView, type PortSharingView, type PortsView } from './workspace-apps.js';
import { dataTable } from './table.js';
import { deleteForm } from './delete-form.js';
import { devcontainerCard } from './workspace-devcontainer.js';

export interface EventView {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  lastTimestamp?: string;
  eventTime?: string;
  firstTimestamp?: string;
  involvedObject?: { kind?: string; name?: string; uid?: string };
  metadata?: { name?: string; resourceVersion?: string };
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

/** Events of the newest start: those about the same pod (its UID) as the newest event; the rest are earlier starts. */
export function splitStarts(podEvents: EventView[]): { current: EventView[]; earlier: EventView[] } {
  const uid = podEvents.at(-1)?.involvedObject?.uid;
  if (!uid) return { current: podEvents, earlier: [] };
  return { current: podEvents.filter((e) => e.involvedObject?.uid === uid), earlier: podEvents.filter((e) => e.involvedObject?.uid !== uid) };
}

function secondsBetween(from: string, to: string): number {
  return Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));
}

/**
 * The newest start's steps with when each happened (the first as an age, the others as seconds
 * after it), and the warnings of earlier starts folded. Once the workspace runs, the warnings
 * of its start are history too: shown, no longer in red. When it failed, the failure above
 * already says why: a warning's own words are folded.
 */
function progress(podEvents: EventView[], now: number, phase: string): Html | '' {
  if (podEvents.length === 0) return '';
  const { current, earlier } = splitStarts(podEvents);
  const began = eventTime(current[0]!);
  const step = (e: EventView, first: boolean) => {
    const at = eventTime(e);
    const when = first ? ago(at, now) : `+${secondsBetween(began, at)} s`;
    const kind = e.type !== 'Warning' ? 'Normal' : phase === 'Running' ? 'Warning past' : 'Warning';
    const words =
      e.type === 'Warning' && phase === 'Failed'
        ? html` <details data-fold="event-${e.metadata?.name ?? ''}"><summary>What it says</summary>${e.message}</details>`
        : html`: ${e.message}`;
    return html`<li class="${kind}"><time datetime="${at}">${when}</time> <strong>${e.reason}</strong>${words}</li>`;
  };
  const warnings = earlier.filter((e) => e.type === 'Warning');
  return html`<h3>Progress</h3><ol class="progress" aria-label="Steps of the latest start">${current.map((e, i) => step(e, i === 0))}</ol>
${warnings.length > 0 && html`<details class="history" data-fold="history"><summary>Warnings of earlier starts (${warnings.length})</summary><ol class="progress">${warnings.map(
  (e) => html`<li class="Warning past"><time datetime="${eventTime(e)}">${ago(eventTime(e), now)}</time> <strong>${e.reason}</strong>: ${e.message}</li>`,
)}</ol></details>`}`;
}

/** What a person can do about a Failed workspace, by what its failure points at. */
function remedies(f: Failure): Html[] {
  const entry = entryLabel(f.entry);
  const restart = html`<li>Once that is fixed, restart this workspace with <strong>Restart</strong> below: it stops and starts again, keeping its home volume.</li>`;
  const another = html`<li>Or pick another image: <a href="/catalog">create a workspace from another catalog entry</a>.</li>`;
  switch (f.kind) {
    case 'image':
      return [html`<li>Ask an administrator to check the catalog entry ${entry}: its image reference, and its pull Secret if the registry is private.</li>`, restart, another];
    case 'config':
      return [html`<li>Check that the Secrets and ConfigMaps this workspace names exist in its namespace, or ask an administrator.</li>`, restart];
    case 'runtime':
      return [html`<li>Ask an administrator to check the command and volumes of the catalog entry ${entry}.</li>`, restart, another];
    case 'crash':
      return [html`<li>Read the <strong>Logs</strong> tab below: the last lines usually say why it stops.</li>`, html`<li>Ask an administrator to check the command of the catalog entry ${entry}: it must keep running.</li>`, restart];
    case 'other':
      return [html`<li>Ask an administrator, naming this workspace and its catalog entry ${entry}.</li>`, restart];
  }
}

function failureBlock(name: string, f: Failure): Html {
  return html`<div class="failure" id="failure">
<p class="reason" id="failure-sentence">${failureSentence(name, f)}</p>
${f.detail && html`<details data-fold="failure-detail"><summary>What the cluster says</summary><p class="raw">${f.detail}</p></details>`}
<h3>What you can do</h3><ul class="remedies">${remedies(f)}</ul>
</div>`;
}

/** The status card: phase, why in one sentence (a failure with what to do), facts, conditions folded, the start's progress. */
export function statusCard(ws: WorkspaceView, podEvents: EventView[], now: number, failure?: Failure): Html {
  const name = ws.metadata?.name ?? '';
  const reason = reasonOf(ws);
  const conditions = ws.status?.conditions ?? [];
  return html`<div class="row"><h2>Status</h2>${phaseBadge(ws)}</div>
${failure ? failureBlock(name, failure) : reason && html`<p class="reason">${reason}</p>`}
<dl class="facts">
  <dt>Image</dt><dd>${ws.spec?.imageRef?.name ?? ''}</dd>
  <dt>Pod</dt><dd>${ws.status?.podName ?? '—'}</dd>
  <dt>Last activity</dt><dd>${ago(ws.status?.lastActivityTime, now)}</dd>
</dl>
${conditions.length > 0 && html`<details class="conditions" data-fold="conditions"><summary>Conditions (${conditions.length})</summary>${dataTable('', ['Type', 'Status', 'Reason', 'Message'].map((label) => ({ label })), conditions.map((c) => ({ cells: [c.type, c.status, c.reason, c.message] })))}</details>`}
${progress(podEvents, now, phaseOf(ws))}`;
}

/** What the live part of the workspace page is drawn from (the page and its 3 s poll alike). */
export interface WorkspaceLiveView {
  ws: WorkspaceView;
  podEvents: EventView[];
  /** Where VS Code and sessions open: devcontainer.json's workspace folder when the workspace applies one, else the image's home (shell/target.ts sessionSettings). */
  startFolder: string;
  failure?: Failure;
  csrf: string;
  now: number;
  /** Where people reach den gateway (`--gateway-port`). */
  gatewayPort: number;
  /** Set when an administrator looks at someone else's workspace: every link and form carries it. */
  namespace?: string;
}

/** Can the Logs tab ask for the log: a running pod, or one that keeps restarting (its log says why). */
export function logsReadable(ws: WorkspaceView, failure: Failure | undefined): boolean {
  return phaseOf(ws) === 'Running' || failure?.kind === 'crash';
}

/**
 * Everything on the workspace page that follows the Workspace: the status card and the Connect
 * card with its buttons. GET /w/<name>/status answers with this fragment; the page's script
 * swaps it in when it changed and announces `data-announce` when that changed.
 */
export function workspaceLive(v: WorkspaceLiveView): Html {
  const name = v.ws.metadata?.name ?? '';
  const back = `/w/${name}${namespaceQuery(v.namespace)}`;
  const announce = `${name} is ${phaseOf(v.ws)}. ${summaryOf(v.ws, v.failure)}`.trim();
  const buttons = canRestart(v.ws)
    ? html`${runForm(name, 'restart', true, v.csrf, back, v.namespace)}${runForm(name, 'stop', true, v.csrf, back, v.namespace)}`
    : html`${runForm(name, 'start', canStart(v.ws), v.csrf, back, v.namespace)}${runForm(name, 'stop', canStop(v.ws), v.csrf, back, v.namespace)}`;
  return html`<section class="card" id="status-card" data-announce-key="${name}" data-announce="${announce}" data-logs="${logsReadable(v.ws, v.failure) ? 'readable' : 'none'}">${statusCard(v.ws, v.podEvents, v.now, v.failure)}</section>
<section class="card" id="connect-card"><h2>Connect</h2>${connectBlock(v.ws, v.startFolder, v.gatewayPort, true)}
  <div class="row">${buttons}</div>
</section>`;
}

/** The parts of the workspace page outside the status and Connect cards that follow the Workspace too. */
export interface WorkspaceDetailsView {
  /** Every event about the workspace, its pod and its home volume, for the Events tab. */
  events: EventView[];
  /** The Workspace as YAML, for the YAML tab. */
  yaml: string;
  /** Who created it, the idle timeout in words. */
  facts: FactsView;
  /** Host-based addresses of its ports, when the server has an apps domain. */
  appLinks?: AppLinks;
  /** The catalog entry as read for this drawing (its title, when it has one); absent when this poll did not read it. */
  entry?: { title?: string };
  /** Its pod and node as read for this drawing; absent when this poll did not read the pod. */
  placement?: PlacementView;
}

function yamlBlock(yaml: string): Html {
  return html`<pre id="yaml" tabindex="0" role="region" aria-label="Workspace YAML">${yaml}</pre>`;
}

/** The Details card's facts, the Events table and the YAML, by the key of their place on the page; the Image fact when the entry was read. */
function detailParts(ws: WorkspaceView, d: WorkspaceDetailsView, now: number): [string, Html][] {
  return [
    ...(d.entry ? [['image', imageFact(ws, d.entry.title)] as [string, Html]] : []),
    ['facts', factsList(ws, d.facts, now)],
    ...(d.placement ? [['placement', placementFacts(d.placement)] as [string, Html]] : []),
    ['events', eventsTable(d.events, now)],
    ['yaml', yamlBlock(d.yaml)],
  ];
}

/**
 * GET /w/<name>/status: the status and Connect cards, and the other parts that follow the
 * Workspace (facts, events, YAML, the listening ports when this poll read them) for the script
 * to swap into their places: one poll for all.
 */
export function workspaceLiveFragment(v: WorkspaceLiveView, d: WorkspaceDetailsView, ports?: PortsView): Html {
  const name = v.ws.metadata?.name ?? '';
  const parts = detailParts(v.ws, d, v.now);
  if (ports) parts.push(['ports', portsPart(name, ports, !v.namespace, d.appLinks)]);
  return html`${workspaceLive(v)}${parts.map(([key, content]) => partInFragment(key, content))}`;
}

export interface WorkspacePageView extends Omit<WorkspaceLiveView, 'csrf'>, WorkspaceDetailsView {
  /** Something the last action on this page left to say (a key that could not be saved). */
  notice?: string;
  /** What people did with it (Den's Events), newest first, and the kinds the filter offers. */
  activity: ActivityLine[];
  activityKinds: readonly string[];
  /** Apps the workspace's catalog entry declares (spec.apps), shown as buttons in the Apps and ports card. */
  apps?: DeclaredAppView[];
  /** Entries a change of image may pick. */
  images: ImageChoice[];
  /** A refused change, shown in the change form with what was typed. */
  changeRefusal?: ChangeRefusal;
  /** A refused delete (the name typed did not match), shown beside the name field. */
  deleteRefusal?: string;
  /** Who may open each port (contract/port-share.ts), and whether the viewer may change it here. */
  sharing?: Omit<PortSharingView, 'csrf'>;
  /** The schedule as the form shows it, and a refused change of it. */
  scheduleValues: Record<ScheduleField, string>;
  scheduleRefusal?: ScheduleRefusal;
  /** What an administrator set for every workspace of the space (UserSpace spec.schedules), in words. */
  schedulePolicy?: string;
  /** Unused for long: when the installation will stop or delete it (contract/dormancy.ts), shown above all. */
  dormancy?: string;
  /** The "Share this workspace" card (web/templates/shares.ts), on one's own workspace only. */
  workspaceSharing?: Html;
}

/** `?namespace=…` for another's workspace, else nothing. */
function namespaceQuery(namespace: string | undefined): string {
  return namespace ? `?namespace=${encodeURIComponent(namespace)}` : '';
}

/**
 * The status poll's address. It names the image the page shows, so that a poll that does not
 * read the catalog entry can tell whether the Image fact still holds (server/pages/workspaces.ts).
 */
function statusUrl(name: string, image: string, namespace: string | undefined): string {
  const query = new URLSearchParams({ image, ...(namespace ? { namespace } : {}) });
  return `/w/${name}/status?${query}`;
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
  const running = phaseOf(v.ws) === 'Running';
  const parts = new Map(detailParts(v.ws, v, v.now));
  const part = (key: string) => livePart(key, parts.get(key)!);
  const tab = (id: string, label: string, selected = false) =>
    html`<button type="button" role="tab" id="tab-${id}" aria-controls="panel-${id}" aria-selected="${selected ? 'true' : 'false'}" tabindex="${selected ? '0' : '-1'}">${label}</button>`;
  const body = html`<div class="row"><h1>${name}</h1>${v.namespace && html`<span class="muted">in ${v.namespace}</span>`}</div>
${v.notice && html`<div class="notice warning" role="status" id="notice">${v.notice}</div>`}
${v.dormancy && html`<div class="notice warning" role="status" id="dormancy">${v.dormancy}</div>`}
${liveRegion(statusUrl(name, v.ws.spec?.imageRef?.name ?? '', v.namespace), workspaceLive({ ...v, csrf: viewer.csrf }), PORTS_EVERY_POLLS)}
<section class="card" aria-labelledby="details-title"><h2 id="details-title">Details</h2><dl class="facts" id="facts">${part('image')}${part('facts')}${part('placement')}</dl>
${changeForm(v.ws, v.facts.gpuResource, `/w/${name}/change`, viewer.csrf, v.images, namespaceField(v.namespace), v.changeRefusal)}
${scheduleForm(v.scheduleValues, `/w/${name}/schedule`, viewer.csrf, namespaceField(v.namespace), v.scheduleRefusal, v.schedulePolicy)}</section>
<div class="tabs" role="tablist" aria-label="Workspace details">${tab('logs', 'Logs', true)}${tab('events', 'Events')}${tab('activity', 'Activity')}${v.namespace ? '' : tab('terminal', 'Terminal')}${tab('yaml', 'YAML')}</div>
<section role="tabpanel" id="panel-logs" aria-labelledby="tab-logs" data-logs-url="/w/${name}/logs${ns}">
  <div class="row"><label for="tail">Lines</label><select id="tail" name="tail"><option value="100">100</option><option value="200" selected>200</option><option value="500">500</option><option value="1000">1000</option></select></div>
  <p class="muted" id="logs-state" data-idle="The log appears here while the workspace is running.">Loading the log…</p>
  <pre id="logs" tabindex="0" role="region" aria-label="Pod log"></pre>
</section>
<section role="tabpanel" id="panel-activity" aria-labelledby="tab-activity" hidden>${activityTab({ name, kinds: v.activityKinds, entries: v.activity, now: v.now })}</section>
<section role="tabpanel" id="panel-events" aria-labelledby="tab-events" hidden>${part('events')}</section>
${!v.namespace && html`<section role="tabpanel" id="panel-terminal" aria-labelledby="tab-terminal" hidden>
  <div class="row terminal-bar"><p class="muted" id="terminal-help">The terminal keeps Tab and Esc for the shell: <kbd>Shift</kbd>+<kbd>Esc</kbd> leaves it.</p>
  <button type="button" class="secondary" id="terminal-fullscreen" aria-pressed="false">Full screen</button></div>
  <div id="terminal" data-workspace="${name}" data-namespace="${v.ws.metadata?.namespace ?? ''}" data-csrf="${viewer.csrf}" data-ws-url="/w/${name}/terminal/ws" data-script="${assets.url('terminal.js')}" data-style="${assets.url('terminal.css')}"></div>
</section>`}
<section role="tabpanel" id="panel-yaml" aria-labelledby="tab-yaml" hidden>${part('yaml')}</section>
${devcontainerCard(v.ws, v.startFolder, v.gatewayPort)}
${appsCard(name, v.apps ?? [], livePart('ports', portsPart(name, portsBeforeReading(running), !v.namespace, v.appLinks)), running, v.appLinks, v.sharing && { ...v.sharing, csrf: viewer.csrf })}
${v.workspaceSharing}
<section class="card" aria-labelledby="delete-title">
  <h2 id="delete-title">Delete</h2>
  <details${v.deleteRefusal ? html` open` : ''}><summary>Delete this workspace…</summary>
  ${deleteForm({ name, claim, action: `/w/${name}/delete`, csrf: viewer.csrf, hidden: namespaceField(v.namespace), refusal: v.deleteRefusal })}</details>
</section>`;
  return page({ title: name, assets, viewer, body, scripts: ['live.js', 'workspace.js', 'activity.js', 'workspace-apps.js'] });
}
