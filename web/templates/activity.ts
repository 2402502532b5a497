// Den's activity (its own Events about workspaces) as the pages show it: the filter form and
// the list, newest first. /admin/activity keeps the list live through the page's live part
// (web/templates/live.ts); the workspace page's Activity tab re-reads it with
// web/scripts/activity.ts while the tab is shown. Either way the list is this same fragment.
import { html, type Html } from '../html.js';
import { ago } from './format.js';

/** One entry as REST answers it (server/api/activity.ts ActivityEntry). */
export interface ActivityLine {
  time: string;
  count: number;
  namespace: string;
  workspace: string;
  person: string;
  kind: string;
  reason: string;
  message: string;
  fingerprint?: string;
  client_address?: string;
}

export interface ActivityFilterView {
  person?: string;
  workspace?: string;
  kind?: string;
}

/** How often the Activity tab re-reads its list while shown. */
export const ACTIVITY_TAB_EVERY_MS = 5000;

function details(e: ActivityLine): Html | '' {
  const parts = [e.fingerprint && `key ${e.fingerprint}`, e.client_address && `from ${e.client_address}`].filter(Boolean);
  return parts.length > 0 ? html`<br><span class="muted">${parts.join(', ')}</span>` : '';
}

/** The list itself. `withWorkspace` adds the workspace and namespace column. */
export function activityList(entries: ActivityLine[], now: number, withWorkspace: boolean): Html {
  if (entries.length === 0) return html`<p class="muted" data-activity-empty>Nothing recorded yet that matches. Den keeps what people do for as long as the cluster keeps Events (an hour by default).</p>`;
  return html`<table class="activity"><thead><tr><th scope="col">When</th>${withWorkspace && html`<th scope="col">Workspace</th>`}<th scope="col">Who</th><th scope="col">Kind</th><th scope="col">What</th><th scope="col">Message</th></tr></thead>
<tbody>${entries.map(
    (e) => html`<tr data-activity="${e.namespace}/${e.workspace} ${e.reason} ${e.person || 'Den'} ${e.kind}"><td><time datetime="${e.time}" title="${e.time}">${ago(e.time, now)}</time>${e.count > 1 && html`<br><span class="muted">${e.count} times</span>`}</td>${withWorkspace && html`<td>${e.workspace}<br><span class="muted">${e.namespace}</span></td>`}<td>${e.person || html`<span class="muted">Den</span>`}</td><td>${e.kind}</td><td>${e.reason}</td><td>${e.message}${details(e)}</td></tr>`,
  )}</tbody></table>`;
}

/** A plain GET form of the filters; `data-activity-filter` lets the tab's script apply it in place. */
export function activityFilterForm(v: { id: string; action: string; kinds: readonly string[]; filter: ActivityFilterView; withWorkspace: boolean; inPlace?: boolean }): Html {
  const field = (name: 'person' | 'workspace', label: string) =>
    html`<label for="${v.id}-${name}">${label}</label><input type="text" id="${v.id}-${name}" name="${name}" value="${v.filter[name] ?? ''}" size="14">`;
  return html`<form method="get" action="${v.action}" class="row" id="${v.id}-filter"${v.inPlace ? html` data-activity-filter="${v.id}"` : ''}>
  ${field('person', 'Person')}${v.withWorkspace && field('workspace', 'Workspace')}
  <label for="${v.id}-kind">Kind</label><select id="${v.id}-kind" name="kind"><option value="">any</option>${v.kinds.map((k) => html`<option value="${k}"${k === v.filter.kind ? html` selected` : ''}>${k}</option>`)}</select>
  <button type="submit" class="secondary">Filter</button>
</form>`;
}

/** The workspace page's Activity tab: the form, a status line and the list its script re-reads from `listUrl`. */
export function activityTab(v: { name: string; kinds: readonly string[]; entries: ActivityLine[]; now: number }): Html {
  return html`${activityFilterForm({ id: 'activity', action: `/w/${v.name}/activity`, kinds: v.kinds, filter: {}, withWorkspace: false, inPlace: true })}
<p class="muted" id="activity-state" role="status">Newest first; refreshed every ${ACTIVITY_TAB_EVERY_MS / 1000} seconds while this tab is shown.</p>
<div id="activity" data-activity-url="/w/${v.name}/activity" data-activity-every="${ACTIVITY_TAB_EVERY_MS}">${activityList(v.entries, v.now, false)}</div>`;
}
