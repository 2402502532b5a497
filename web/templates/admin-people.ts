// The people page (UserSpaces, local users) and the quota page of the administration.
import { html } from '../html.js';
import { csrfField, type AssetUrls, type Viewer } from './layout.js';
import { dataTable } from './table.js';
import { frame, refusal, kept, input, checkbox, select, type AdminOutcome, type QuotaValues } from './admin-frame.js';

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

/** A space's schedule limit and defaults as the form shows them ("" where none is set). */
export interface SchedulePolicyValues {
  max_running_limit: string;
  default_max_running: string;
  default_autostop: string;
  time_zone: string;
}

export interface QuotaLineView {
  name: string;
  owner: string;
  quota: QuotaValues;
  usage: QuotaValues | null;
  schedules: SchedulePolicyValues;
}

function schedulesInWords(p: SchedulePolicyValues): string {
  const parts = [
    p.max_running_limit && `runs at most ${p.max_running_limit}`,
    p.default_max_running && `${p.default_max_running} when a workspace sets none`,
    p.default_autostop && `stops ${p.default_autostop} ${p.time_zone} unless a workspace says otherwise`,
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'none';
}

function schedulesCell(viewer: Viewer, l: QuotaLineView, outcome: AdminOutcome) {
  const form = `schedules-${l.name}`;
  const p = l.schedules;
  return html`${schedulesInWords(p)}<details${outcome.error?.form === form ? html` open` : ''}><summary>Edit<span class="visually-hidden"> the schedules of ${l.name}</span></summary>
${refusal(outcome, form)}
<form method="post" action="/admin/quota/${l.name}/schedules">${csrfField(viewer.csrf)}
  ${input(form, 'max_running_limit', 'Longest run', outcome, { value: p.max_running_limit, hint: 'No workspace may run longer at a time, such as 12h. Empty: no limit.' })}
  ${input(form, 'default_max_running', 'Default longest run', outcome, { value: p.default_max_running, hint: 'For a workspace that sets none, at most the limit.' })}
  ${input(form, 'default_autostop', 'Default autostop', outcome, { value: p.default_autostop, hint: 'For a workspace that sets none, such as "weekdays 19:00".' })}
  ${input(form, 'time_zone', 'Time zone', outcome, { value: p.time_zone, hint: 'Of the default autostop, such as Europe/Berlin.' })}
  <button type="submit" aria-label="Save the schedules of ${l.name}">Save</button>
</form></details>`;
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
      schedulesCell(viewer, l, outcome),
    ],
  }));
  const body = html`<p class="muted">Used (from each namespace's ResourceQuota) / limit. "–" while a namespace is not ready. Schedules: the longest a workspace may run and the defaults for workspaces that set none (docs/schedules.md).</p>
${dataTable('quotas', [{ label: 'Person', rowHeader: true }, ...['Workspaces', 'CPU', 'Memory', 'Storage', 'GPUs'].map((label) => ({ label })), { label: 'Edit', hiddenLabel: true }, { label: 'Schedules' }], rows)}`;
  return frame(assets, viewer, 'quota', 'Quota', outcome, body);
}
