// Den's activity (its own Events about workspaces) as the pages show it: the list, newest
// first, which web/scripts/live.ts re-fetches as this same fragment while the page is open,
// and the filter form above it. Used by /admin/activity and the workspace page's Activity tab.
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

/** How often an open list is re-fetched. */
export const ACTIVITY_EVERY_MS = 5000;

function details(e: ActivityLine): Html | '' {
  const parts = [e.fingerprint && `key ${e.fingerprint}`, e.client_address && `from ${e.client_address}`].filter(Boolean);
  return parts.length > 0 ? html`<br><span class="muted">${parts.join(', ')}</span>` : '';
}

/** The list itself: the fragment the page script re-fetches. `withWorkspace` adds the namespace and workspace columns. */
export function activityList(entries: ActivityLine[], now: number, withWorkspace: boolean): Html {
  if (entries.length === 0) return html`<p class="muted" data-activity-empty>Nothing recorded yet that matches. Den keeps what people do for as long as the cluster keeps Events (an hour by default).</p>`;
  return html`<table class="activity"><thead><tr><th scope="col">When</th>${withWorkspace && html`<th scope="col">Workspace</th>`}<th scope="col">Who</th><th scope="col">Kind</th><th scope="col">What</th><th scope="col">Message</th></tr></thead>
<tbody>${entries.map(
    (e) => html`<tr data-activity="${e.namespace}/${e.workspace} ${e.reason} ${e.person || 'Den'} ${e.kind}"><td><time datetime="${e.time}" title="${e.time}">${ago(e.time, now)}</time>${e.count > 1 && html`<br><span class="muted">${e.count} times</span>`}</td>${withWorkspace && html`<td>${e.workspace}<br><span class="muted">${e.namespace}</span></td>`}<td>${e.person || html`<span class="muted">Den</span>`}</td><td>${e.kind}</td><td>${e.reason}</td><td>${e.message}${details(e)}</td></tr>`,
  )}</tbody></table>`;
}

/**
 * The filter form and the live list under it. The form is a plain GET of `action` (the page
 * itself), so it works without the script; the script re-fetches `listUrl` with the same query.
 */
export function activitySection(v: { id: string; action: string; listUrl: string; kinds: readonly string[]; filter: ActivityFilterView; withWorkspace: boolean; entries: ActivityLine[]; now: number }): Html {
  const query = new URLSearchParams(Object.entries(v.filter).filter((kv): kv is [string, string] => !!kv[1])).toString();
  const field = (name: 'person' | 'workspace', label: string) =>
    html`<label for="${v.id}-${name}">${label}</label><input type="text" id="${v.id}-${name}" name="${name}" value="${v.filter[name] ?? ''}" size="14">`;
  return html`<form method="get" action="${v.action}" class="row" id="${v.id}-filter" data-live-filter="${v.id}">
  ${field('person', 'Person')}${v.withWorkspace && field('workspace', 'Workspace')}
  <label for="${v.id}-kind">Kind</label><select id="${v.id}-kind" name="kind"><option value="">any</option>${v.kinds.map((k) => html`<option value="${k}"${k === v.filter.kind ? html` selected` : ''}>${k}</option>`)}</select>
  <button type="submit" class="secondary">Filter</button>
</form>
<p class="muted" id="${v.id}-state" role="status">Newest first; refreshed every ${ACTIVITY_EVERY_MS / 1000} seconds while this page is open.</p>
<div id="${v.id}" data-live-url="${v.listUrl}${query ? `?${query}` : ''}" data-live-every="${ACTIVITY_EVERY_MS}" data-live-state="${v.id}-state">${activityList(v.entries, v.now, v.withWorkspace)}</div>`;
}
