// The workspaces page of the administration: everyone's workspaces, filtered and sorted, and the
// confirmation of a deletion.
import { html, type Html } from '../html.js';
import { csrfField, type AssetUrls, type Viewer } from './layout.js';
import { liveRegion } from './live.js';
import { dataTable } from './table.js';
import { deleteForm } from './delete-form.js';
import { PHASES } from './format.js';
import { frame, refusal, type AdminOutcome } from './admin-frame.js';

export const WORKSPACE_SORTS = ['name', 'namespace', 'owner', 'phase', 'age'] as const;
export type WorkspaceSort = (typeof WORKSPACE_SORTS)[number];

export interface WorkspaceLine {
  name: string;
  namespace: string;
  owner: string;
  phase: string;
  image: string;
  age: string;
  /** spec.running: whether Stop (else Start) is the action offered. */
  running: boolean;
}

/** Which workspaces the list shows: one owner's, one phase's; empty for all. */
export interface WorkspaceFilter {
  owner: string;
  phase: string;
}

export interface WorkspacesView extends WorkspaceFilter {
  items: WorkspaceLine[];
  /** Every owner a UserSpace names, for the filter. */
  owners: string[];
  sort: WorkspaceSort;
}

/** The page of one workspace: an administrator's own by its name, anyone else's with its namespace. */
export function workspaceHref(name: string, namespace: string): string {
  return `/w/${name}?namespace=${encodeURIComponent(namespace)}`;
}

/** The list's query (`owner`, `phase`, `sort`), with some of them changed. */
function listQuery(v: WorkspacesView, over: Partial<Record<'owner' | 'phase' | 'sort', string>> = {}): string {
  return new URLSearchParams(Object.entries({ owner: v.owner, phase: v.phase, sort: v.sort, ...over }).filter(([, value]) => value)).toString();
}

/** The count and the table with each row's actions: the list's live part (web/templates/live.ts). */
export function adminWorkspacesList(v: WorkspacesView, csrf: string): Html {
  const link = (sort: WorkspaceSort, label: string) => html`<a href="/admin/workspaces?${listQuery(v, { sort })}"${sort === v.sort ? html` aria-current="true"` : ''}>${label}</a>`;
  const act = (w: WorkspaceLine, action: 'start' | 'stop', label: string, confirm?: string) =>
    html`<form class="inline" method="post" action="/admin/workspaces/${w.namespace}/${w.name}/${action}"${confirm ? html` data-confirm="${confirm}"` : ''}>${csrfField(csrf)}<input type="hidden" name="back_query" value="${listQuery(v)}"><button type="submit" class="secondary" aria-label="${label} ${w.namespace}/${w.name}">${label}</button></form>`;
  const rows = v.items.map((w) => ({
    attrs: html` data-workspace="${w.namespace}/${w.name}" data-announce-key="${w.namespace}/${w.name}" data-announce="${w.name} of ${w.owner || w.namespace} is ${w.phase}."`,
    cells: [
      html`<a href="${workspaceHref(w.name, w.namespace)}">${w.name}</a>`,
      w.namespace,
      w.owner,
      html`<span class="badge ${w.phase}">${w.phase}</span>`,
      w.image,
      w.age,
      html`<div class="row">${w.running ? act(w, 'stop', 'Stop', `Stop ${w.name} of ${w.owner || w.namespace}? Their sessions end; the home volume is kept.`) : act(w, 'start', 'Start')}<a class="button secondary" href="/admin/workspaces/${w.namespace}/${w.name}/delete${listQuery(v) && `?${listQuery(v)}`}" aria-label="Delete ${w.namespace}/${w.name}…">Delete…</a></div>`,
    ],
  }));
  const columns = [
    { label: 'Name', header: link('name', 'Name') },
    { label: 'Namespace', header: link('namespace', 'Namespace') },
    { label: 'Owner', header: link('owner', 'Owner') },
    { label: 'Phase', header: link('phase', 'Phase') },
    { label: 'Image' },
    { label: 'Created', header: link('age', 'Created') },
    { label: 'Actions', hiddenLabel: true },
  ];
  const filtered = [v.owner && `of ${v.owner}`, v.phase && `in phase ${v.phase}`].filter(Boolean).join(' ');
  return html`<p class="muted" id="workspace-count">${v.items.length} workspace${v.items.length === 1 ? '' : 's'}${filtered && ` ${filtered}`}.</p>
${dataTable('workspaces', columns, rows)}`;
}

export function adminWorkspacesPage(assets: AssetUrls, viewer: Viewer, v: WorkspacesView, outcome: AdminOutcome = {}): string {
  const option = (value: string, label: string, selected: string) => html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;
  const body = html`<form method="get" action="/admin/workspaces" class="row" id="workspace-filter">
  <label class="check" for="filter-owner">Owner</label><select id="filter-owner" name="owner">${option('', 'everyone', v.owner)}${v.owners.map((o) => option(o, o, v.owner))}</select>
  <label class="check" for="filter-phase">Phase</label><select id="filter-phase" name="phase">${option('', 'any', v.phase)}${PHASES.map((p) => option(p, p, v.phase))}</select>
  <label class="check" for="sort">Sort by</label><select id="sort" name="sort">${WORKSPACE_SORTS.map((s) => option(s, s, v.sort))}</select>
  <button type="submit" class="secondary">Apply</button>
</form>
${refusal(outcome, 'workspaces')}
${liveRegion(`/admin/workspaces?${listQuery(v)}`, adminWorkspacesList(v, viewer.csrf))}`;
  return frame(assets, viewer, 'workspaces', 'All workspaces', outcome, body, ['live.js']);
}

/** What the delete confirmation of someone's workspace is drawn from. */
export interface WorkspaceDeleteView {
  name: string;
  namespace: string;
  claim: string;
  /** The list's query (`owner`, `phase`, `sort`) to come back to. */
  backQuery: string;
  refusal?: string;
}

/** Deleting someone's workspace from the list: the same confirmation as on its own page (the volume too, by default, once its name is typed). */
export function adminWorkspaceDeletePage(assets: AssetUrls, viewer: Viewer, v: WorkspaceDeleteView, outcome: AdminOutcome = {}): string {
  const back = `/admin/workspaces${v.backQuery && `?${v.backQuery}`}`;
  const body = html`${refusal(outcome, 'workspaces')}<section class="card" aria-labelledby="delete-title"><h2 id="delete-title">${v.name} in ${v.namespace}</h2>
${deleteForm({ name: v.name, claim: v.claim, action: `/admin/workspaces/${v.namespace}/${v.name}/delete`, csrf: viewer.csrf, hidden: html`<input type="hidden" name="back_query" value="${v.backQuery}">`, refusal: v.refusal })}
<p><a href="${back}">Keep it: back to all workspaces</a></p></section>`;
  return frame(assets, viewer, 'workspaces', `Delete ${v.name}`, outcome, body);
}
