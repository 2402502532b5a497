// The administration pages (SPEC 4.7): overview, people and local users, quotas with usage,
// catalog entries and image registries, every workspace, and the settings. Each form posts
// back to its page; a refusal (the cluster's words, a 403 naming the missing right included)
// is shown above the form it is about.
import { html, type Html } from '../html.js';
import { csrfField, page, type AssetUrls, type Viewer } from './layout.js';
import { activityFilterForm, activityList, type ActivityFilterView, type ActivityLine } from './activity.js';
import { liveRegion } from './live.js';
import { dataTable } from './table.js';
import { clusterText } from './new.js';
import { deleteForm } from './delete-form.js';
import { PHASES } from './format.js';

export type AdminSection = 'overview' | 'users' | 'quota' | 'catalog' | 'workspaces' | 'activity' | 'settings';

const SECTIONS: { key: AdminSection; label: string }[] = [
  { key: 'overview', label: 'Overview' },
  { key: 'users', label: 'People' },
  { key: 'quota', label: 'Quota' },
  { key: 'catalog', label: 'Catalog' },
  { key: 'workspaces', label: 'Workspaces' },
  { key: 'activity', label: 'Activity' },
  { key: 'settings', label: 'Settings' },
];

/** What the last action did, or why it was refused (and what was typed into that form). */
export interface AdminOutcome {
  done?: string;
  /** A refused form: what to tell the person, and the cluster's own text when that is not it. */
  error?: { form: string; message: string; cluster?: string };
  values?: Record<string, string>;
}

export interface QuotaValues {
  cpu: string;
  memory: string;
  storage: string;
  gpu: number;
  workspaces: number;
}

function frame(assets: AssetUrls, viewer: Viewer, section: AdminSection, title: string, outcome: AdminOutcome, body: Html, scripts?: string[]): string {
  const nav = html`<nav aria-label="Administration" class="subnav"><ul class="row">${SECTIONS.map(
    (s) => html`<li><a href="/admin/${s.key}"${s.key === section ? html` aria-current="page"` : ''}>${s.label}</a></li>`,
  )}</ul></nav>`;
  return page({
    title,
    assets,
    viewer,
    active: 'admin',
    body: html`<h1>${title}</h1>${nav}${outcome.done && html`<div class="notice" role="status" id="done">${outcome.done}</div>`}${body}`,
    scripts,
  });
}

function refusal(outcome: AdminOutcome, form: string): Html | '' {
  const error = outcome.error?.form === form ? outcome.error : undefined;
  return error ? html`<div class="notice error" role="alert" id="error-${form}"><p>${error.message}</p>${error.cluster && clusterText(`error-${form}-cluster`, error.cluster)}</div>` : '';
}

/** A form value after a refusal of that form, else `fallback`. */
function kept(outcome: AdminOutcome, form: string, field: string, fallback = ''): string {
  return outcome.error?.form === form ? outcome.values?.[field] ?? fallback : fallback;
}

function input(form: string, name: string, label: string, outcome: AdminOutcome, opts: { value?: string; type?: string; hint?: string; required?: boolean } = {}): Html {
  const id = `${form}-${name}`;
  return html`<div class="field"><label for="${id}">${label}</label><input type="${opts.type ?? 'text'}" id="${id}" name="${name}" value="${kept(outcome, form, name, opts.value ?? '')}"${opts.required ? html` required` : ''}${opts.hint ? html` aria-describedby="${id}-hint"` : ''}>${opts.hint && html`<p class="hint" id="${id}-hint">${opts.hint}</p>`}</div>`;
}

function checkbox(form: string, name: string, label: string, checked: boolean): Html {
  // The hidden 0 goes first: a checked box's 1 comes later in the body and wins.
  return html`<input type="hidden" name="${name}" value="0"><label class="check"><input type="checkbox" name="${name}" value="1"${checked ? html` checked` : ''}> ${label}</label>`;
}

function select(form: string, name: string, label: string, options: string[], value: string): Html {
  const id = `${form}-${name}`;
  return html`<div class="field"><label for="${id}">${label}</label><select id="${id}" name="${name}">${options.map((o) => html`<option value="${o}"${o === value ? html` selected` : ''}>${o}</option>`)}</select></div>`;
}

// Overview

export interface OverviewView {
  people: number;
  admins: number;
  disabled: number;
  phases: [string, number][];
  workspaces: number;
  images: number;
  deprecated: number;
  registries: { name: string; ready: string; message: string }[];
}

export function adminOverviewPage(assets: AssetUrls, viewer: Viewer, v: OverviewView): string {
  const body = html`<div class="cards" id="overview">
<section class="card"><h2>People</h2><p><strong data-count="people">${v.people}</strong> UserSpaces, ${v.admins} administrators, ${v.disabled} disabled.</p><p><a href="/admin/users">Manage people</a></p></section>
<section class="card"><h2>Workspaces</h2><p><strong data-count="workspaces">${v.workspaces}</strong> in the cluster${v.phases.length > 0 && html`: ${v.phases.map(([p, n], i) => html`${i > 0 ? ', ' : ''}${n} ${p}`)}`}.</p><p><a href="/admin/workspaces">See all workspaces</a></p></section>
<section class="card"><h2>Catalog</h2><p><strong data-count="images">${v.images}</strong> entries, ${v.deprecated} deprecated; ${v.registries.length} registries.</p>
${v.registries.length > 0 && html`<ul>${v.registries.map((r) => html`<li>${r.name}: ${r.ready}${r.message && html` (${r.message})`}</li>`)}</ul>`}<p><a href="/admin/catalog">Manage the catalog</a></p></section>
</div>`;
  return frame(assets, viewer, 'overview', 'Administration', {}, body);
}

// People

export interface PersonLine {
  name: string;
  owner: string;
  role: string;
  disabled: boolean;
  phase: string;
}

export interface UsersView {
  people: PersonLine[];
  localAuth: boolean;
  localUsers: { username: string; owner: string }[];
}

export function adminUsersPage(assets: AssetUrls, viewer: Viewer, v: UsersView, outcome: AdminOutcome): string {
  const csrf = viewer.csrf;
  const rows = v.people.map((p) => ({
    attrs: html` data-person="${p.name}"`,
    cells: [
      p.name,
      p.owner,
      p.phase,
      html`<form method="post" action="/admin/users/${p.name}/membership" class="row">${csrfField(csrf)}
  <label class="check" for="role-${p.name}">Role</label><select id="role-${p.name}" name="role">${['user', 'admin'].map((r) => html`<option value="${r}"${r === p.role ? html` selected` : ''}>${r}</option>`)}</select>
  ${checkbox('membership', 'disabled', 'disabled', p.disabled)}
  <button type="submit" class="secondary" aria-label="Save ${p.name}">Save</button></form>`,
    ],
  }));
  const local = v.localAuth
    ? html`<section class="card" aria-labelledby="local-title"><h2 id="local-title">Local users</h2>
<p class="muted">Username and password sign-in; each names the person (UserSpace owner) it signs in as.</p>
${v.localUsers.length === 0 ? html`<p class="muted">No local users.</p>` : dataTable(
        'local-users',
        [{ label: 'Username' }, { label: 'Signs in as' }, { label: 'Actions', hiddenLabel: true }],
        v.localUsers.map((u) => ({
          attrs: html` data-local-user="${u.username}"`,
          cells: [u.username, u.owner, html`<form class="inline" method="post" action="/admin/users/local/${u.username}/delete" data-confirm="Delete the local user ${u.username}? Their sessions end.">${csrfField(csrf)}<button type="submit" class="secondary" aria-label="Delete ${u.username}">Delete</button></form>`],
        })),
      )}
${refusal(outcome, 'local')}
<form method="post" action="/admin/users/local" class="grid2">${csrfField(csrf)}
  ${input('local', 'username', 'Username', outcome, { required: true })}
  ${input('local', 'password', 'Password', outcome, { type: 'password', required: true })}
  ${input('local', 'owner', 'Signs in as (owner)', outcome, { required: true, hint: 'The e-mail or cluster username a UserSpace names as its owner.' })}
  <div><button type="submit">Create local user</button></div>
</form></section>`
    : html`<section class="card"><h2>Local users</h2><p class="muted">Local sign-in is off (--local-auth=false); people sign in through an identity provider.</p></section>`;
  const body = html`<section class="card" aria-labelledby="people-title"><h2 id="people-title">People (UserSpaces)</h2>
${refusal(outcome, 'membership')}
${dataTable('people', [{ label: 'Name' }, { label: 'Owner' }, { label: 'Phase' }, { label: 'Role and access' }], rows)}
<h3>Add a person</h3>
${refusal(outcome, 'person')}
<form method="post" action="/admin/users" class="grid2">${csrfField(csrf)}
  ${input('person', 'name', 'Name', outcome, { required: true, hint: 'Their namespace becomes svc-<name>.' })}
  ${input('person', 'owner', 'Owner', outcome, { required: true, hint: 'E-mail or cluster username.' })}
  ${select('person', 'role', 'Role', ['user', 'admin'], kept(outcome, 'person', 'role', 'user'))}
  <div><button type="submit">Create</button></div>
</form></section>
${local}`;
  return frame(assets, viewer, 'users', 'People', outcome, body);
}

// Quota

export interface QuotaLineView {
  name: string;
  owner: string;
  quota: QuotaValues;
  usage: QuotaValues | null;
}

export function adminQuotaPage(assets: AssetUrls, viewer: Viewer, lines: QuotaLineView[], outcome: AdminOutcome): string {
  const cell = (used: string | number | undefined, limit: string | number) => `${used ?? '–'} / ${limit}`;
  const rows = lines.map((l) => ({
    attrs: html` data-quota="${l.name}"`,
    cells: [
      html`${l.name}<br><span class="muted">${l.owner}</span>`,
      cell(l.usage?.workspaces, l.quota.workspaces),
      cell(l.usage?.cpu, l.quota.cpu),
      cell(l.usage?.memory, l.quota.memory),
      cell(l.usage?.storage, l.quota.storage),
      cell(l.usage?.gpu, l.quota.gpu),
      html`<details${outcome.error?.form === `quota-${l.name}` ? html` open` : ''}><summary>Edit</summary>
${refusal(outcome, `quota-${l.name}`)}
<form method="post" action="/admin/quota/${l.name}">${csrfField(viewer.csrf)}
  ${input(`quota-${l.name}`, 'workspaces', 'Workspaces', outcome, { value: String(l.quota.workspaces) })}
  ${input(`quota-${l.name}`, 'cpu', 'CPU', outcome, { value: l.quota.cpu })}
  ${input(`quota-${l.name}`, 'memory', 'Memory', outcome, { value: l.quota.memory })}
  ${input(`quota-${l.name}`, 'storage', 'Storage', outcome, { value: l.quota.storage })}
  ${input(`quota-${l.name}`, 'gpu', 'GPUs', outcome, { value: String(l.quota.gpu) })}
  <button type="submit" aria-label="Save the quota of ${l.name}">Save</button>
</form></details>`,
    ],
  }));
  const body = html`<p class="muted">Used (from each namespace's ResourceQuota) / limit. "–" while a namespace is not ready.</p>
${dataTable('quotas', [{ label: 'Person', rowHeader: true }, ...['Workspaces', 'CPU', 'Memory', 'Storage', 'GPUs'].map((label) => ({ label })), { label: 'Edit', hiddenLabel: true }], rows)}`;
  return frame(assets, viewer, 'quota', 'Quota', outcome, body);
}

// Catalog

export interface ImageLine {
  name: string;
  displayName: string;
  image: string;
  description: string;
  icon: string;
  tags: string[];
  deprecated: boolean;
  registry: string;
}

export interface RegistryLine {
  name: string;
  region: string;
  registryId: string;
  roleArn: string;
  intervalSeconds: string;
  include: string[];
  exclude: string[];
  tagMode: string;
  tagPatterns: string[];
  tagLimit: string;
  prune: boolean;
  pullSecret: string;
  ready: string;
  lastSync: string;
  images: string;
}

function imageFields(form: string, outcome: AdminOutcome, img?: ImageLine): Html {
  return html`${input(form, 'image', 'Container image', outcome, { value: img?.image, required: !img })}
  ${input(form, 'display_name', 'Title', outcome, { value: img?.displayName })}
  ${input(form, 'description', 'Description', outcome, { value: img?.description })}
  ${input(form, 'icon', 'Icon URL', outcome, { value: img?.icon, hint: 'https:// or data:image/…' })}
  ${input(form, 'tags', 'Tags', outcome, { value: img?.tags.join(', '), hint: 'Comma-separated.' })}`;
}

function registryFields(form: string, outcome: AdminOutcome, r?: RegistryLine): Html {
  return html`${input(form, 'region', 'Region', outcome, { value: r?.region, required: !r })}
  ${input(form, 'registry_id', 'Account id', outcome, { value: r?.registryId, hint: 'Empty: the credentials\u2019 own account.' })}
  ${input(form, 'role_arn', 'Role to assume', outcome, { value: r?.roleArn })}
  ${input(form, 'interval_seconds', 'Sync every (seconds)', outcome, { value: r?.intervalSeconds, hint: 'At least 60; default 900.' })}
  ${input(form, 'include', 'Include (RE2, comma-separated)', outcome, { value: r?.include.join(', ') })}
  ${input(form, 'exclude', 'Exclude (RE2, comma-separated)', outcome, { value: r?.exclude.join(', ') })}
  ${select(form, 'tag_mode', 'Tags', ['latest', 'pattern'], kept(outcome, form, 'tag_mode', r?.tagMode || 'latest'))}
  ${input(form, 'tag_patterns', 'Tag patterns (RE2, comma-separated)', outcome, { value: r?.tagPatterns.join(', ') })}
  ${input(form, 'tag_limit', 'Newest tags per repository', outcome, { value: r?.tagLimit })}
  ${input(form, 'image_pull_secret', 'Pull Secret', outcome, { value: r?.pullSecret })}
  ${checkbox(form, 'prune', 'Delete entries whose image is gone', r?.prune ?? false)}`;
}

export function adminCatalogPage(assets: AssetUrls, viewer: Viewer, v: { images: ImageLine[]; registries: RegistryLine[] }, outcome: AdminOutcome): string {
  const csrf = viewer.csrf;
  const images = v.images.map((img) => ({
    attrs: html` data-image="${img.name}"`,
    cells: [
      html`${img.displayName}<br><span class="muted">${img.name}</span>`,
      html`<code>${img.image}</code>`,
      html`${img.deprecated ? 'deprecated' : 'offered'}${img.registry && html`<br><span class="muted">from ${img.registry}</span>`}`,
      html`<form class="inline" method="post" action="/admin/catalog/images/${img.name}/deprecate">${csrfField(csrf)}<input type="hidden" name="deprecated" value="${img.deprecated ? '0' : '1'}"><button type="submit" class="secondary" aria-label="${img.deprecated ? 'Offer' : 'Deprecate'} ${img.name}">${img.deprecated ? 'Offer again' : 'Deprecate'}</button></form>
<details${outcome.error?.form === `image-${img.name}` ? html` open` : ''}><summary>Edit</summary>${refusal(outcome, `image-${img.name}`)}
<form method="post" action="/admin/catalog/images/${img.name}">${csrfField(csrf)}${imageFields(`image-${img.name}`, outcome, img)}<button type="submit">Save</button></form></details>`,
    ],
  }));
  const registries = v.registries.map((r) => ({
    attrs: html` data-registry="${r.name}"`,
    cells: [
      r.name,
      r.region,
      r.ready,
      r.lastSync || 'never',
      r.images || '0',
      html`<form class="inline" method="post" action="/admin/catalog/registries/${r.name}/force-sync">${csrfField(csrf)}<button type="submit" class="secondary" aria-label="Sync ${r.name} now">Sync now</button></form>
<details${outcome.error?.form === `registry-${r.name}` ? html` open` : ''}><summary>Edit</summary>${refusal(outcome, `registry-${r.name}`)}
<form method="post" action="/admin/catalog/registries/${r.name}">${csrfField(csrf)}${registryFields(`registry-${r.name}`, outcome, r)}<button type="submit">Save</button></form></details>`,
    ],
  }));
  const body = html`<section class="card" aria-labelledby="images-title"><h2 id="images-title">Catalog entries</h2>
${refusal(outcome, 'deprecate')}
${dataTable('images', [{ label: 'Entry' }, { label: 'Image' }, { label: 'State' }, { label: 'Actions', hiddenLabel: true }], images)}
<details${outcome.error?.form === 'image' ? html` open` : ''}><summary>Add an entry</summary>${refusal(outcome, 'image')}
<form method="post" action="/admin/catalog/images">${csrfField(csrf)}${input('image', 'name', 'Name', outcome, { required: true })}${imageFields('image', outcome)}<button type="submit">Create entry</button></form></details>
</section>
<section class="card" aria-labelledby="registries-title"><h2 id="registries-title">Image registries</h2>
${refusal(outcome, 'sync')}
${dataTable('registries', [...['Name', 'Region', 'Ready', 'Last sync', 'Entries'].map((label) => ({ label })), { label: 'Actions', hiddenLabel: true }], registries)}
<details${outcome.error?.form === 'registry' ? html` open` : ''}><summary>Add a registry</summary>${refusal(outcome, 'registry')}
<form method="post" action="/admin/catalog/registries">${csrfField(csrf)}${input('registry', 'name', 'Name', outcome, { required: true })}${registryFields('registry', outcome)}<button type="submit">Create registry</button></form></details>
</section>`;
  return frame(assets, viewer, 'catalog', 'Catalog administration', outcome, body);
}

// Workspaces

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

// Activity

export function adminActivityPage(assets: AssetUrls, viewer: Viewer, v: { kinds: readonly string[]; filter: ActivityFilterView; query: string; entries: ActivityLine[]; now: number }): string {
  const body = html`<p class="muted">What people did with workspaces in every namespace you may read: SSH sessions, browser terminals, starts and stops (and by whom), resizes and deletions, as Den records them in Events on each Workspace. Newest first; the list follows the cluster while this page is open.</p>
${activityFilterForm({ id: 'activity', action: '/admin/activity', kinds: v.kinds, filter: v.filter, withWorkspace: true })}
${liveRegion(`/admin/activity${v.query ? `?${v.query}` : ''}`, activityList(v.entries, v.now, true))}`;
  return frame(assets, viewer, 'activity', 'Activity', {}, body, ['live.js']);
}

// Settings

export function adminSettingsPage(assets: AssetUrls, viewer: Viewer, settings: [string, string][]): string {
  const body = html`<p class="muted">How this den server runs, read-only: it is set by the install (flags and DEN_* variables). Secrets are never shown.</p>
<dl class="facts card" id="settings">${settings.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
  return frame(assets, viewer, 'settings', 'Settings', {}, body);
}
