// The create form: every field with its label, hint and (after a refusal) the reason beside
// it; what was typed is written back; the quota still available is shown above the sizes.
import { html, type Html } from '../html.js';
import { csrfField, page, type AssetUrls, type Viewer } from './layout.js';

export const NEW_FIELDS = ['name', 'image', 'cpu', 'memory', 'gpu', 'storage', 'ssh_public_key', 'repo', 'repo_ref', 'repo_path', 'repo_devcontainer', 'autostart', 'autostop', 'max_running', 'time_zone'] as const;
export type NewField = (typeof NEW_FIELDS)[number];

export interface NewValues {
  name: string;
  image: string;
  cpu: string;
  memory: string;
  gpu: string;
  storage: string;
  ssh_public_key: string;
  /** The repository cloned into the home on the first start (REST's source.git), its ref and folder. */
  repo: string;
  repo_ref: string;
  repo_path: string;
  repo_devcontainer: string;
  /** When it starts and stops by itself (REST's schedule, docs/schedules.md), in words. */
  autostart: string;
  autostop: string;
  max_running: string;
  time_zone: string;
  save_key: boolean;
}

export interface QuotaLine {
  what: string;
  used: string;
  limit: string;
}

export interface NewView {
  values: NewValues;
  images: { name: string; displayName: string }[];
  quota: QuotaLine[];
  errors: Partial<Record<NewField, string>>;
  /** The cluster's own text of a refusal shown in the rule's words beside a field, folded under it. */
  clusterSaid?: Partial<Record<NewField, string>>;
  /** A refusal that names no single field. */
  formError?: string;
  /** The cluster's own text of that refusal, when `formError` is in the person's words. */
  formCluster?: string;
  /** Whether my UserSpace already holds keys (the key field was prefilled from them). */
  hasSavedKeys: boolean;
}

function field(id: NewField, label: string, control: Html, error: string | undefined, hint?: string, cluster?: string): Html {
  return html`<div class="field${error ? ' invalid' : ''}">
  <label for="${id}">${label}</label>
  ${control}
  ${hint && html`<p class="hint" id="${id}-hint">${hint}</p>`}
  ${error && html`<p class="error" id="${id}-error" role="alert">${error}</p>`}
  ${error && cluster && clusterText(`${id}-cluster`, cluster)}
</div>`;
}

/** The cluster's own words behind a refusal shown in people's words, folded. */
export function clusterText(id: string, text: string): Html {
  return html`<details class="cluster-said" id="${id}"><summary>What the cluster said</summary><p>${text}</p></details>`;
}

function described(id: NewField, error: string | undefined, hint: boolean): Html {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`${ids && html` aria-describedby="${ids}"`}${error ? html` aria-invalid="true"` : ''}`;
}

function text(id: NewField, v: NewView, extra: Html | string = ''): Html {
  return html`<input type="text" id="${id}" name="${id}" value="${v.values[id]}"${described(id, v.errors[id], true)}${extra}>`;
}

/** The schedule's four fields, on the create form and (with the same names) the workspace page's schedule form. */
export function scheduleFields(v: { values: Pick<NewValues, 'autostart' | 'autostop' | 'max_running' | 'time_zone'>; errors: Partial<Record<NewField, string>>; clusterSaid?: Partial<Record<NewField, string>> }): Html {
  const words = html` autocapitalize="none" spellcheck="false"`;
  const input = (id: NewField, extra: Html) => html`<input type="text" id="${id}" name="${id}" value="${(v.values as Record<string, string>)[id] ?? ''}"${described(id, v.errors[id], true)}${extra}>`;
  return html`<div class="grid2">
    ${field('autostart', 'Start by itself at (optional)', input('autostart', html`${words} placeholder="weekdays 08:30"`), v.errors.autostart, 'Days and a time of day: weekdays 08:30, daily 07:00 or Mon,Wed 09:15.', v.clusterSaid?.autostart)}
    ${field('autostop', 'Stop by itself at (optional)', input('autostop', html`${words} placeholder="19:00"`), v.errors.autostop, 'The same words; 19:00 is every day. A workspace you start by hand still stops then.', v.clusterSaid?.autostop)}
    ${field('max_running', 'Longest running time (optional)', input('max_running', html`${words} placeholder="8h"`), v.errors.max_running, 'Stopped after running this long, such as 8h.', v.clusterSaid?.max_running)}
    ${field('time_zone', 'Time zone', input('time_zone', html`${words} placeholder="Europe/Berlin" data-browser-zone`), v.errors.time_zone, 'The times are read in this zone, such as Europe/Berlin; needed with a start or stop time.', v.clusterSaid?.time_zone)}
  </div>`;
}

export function newPage(assets: AssetUrls, viewer: Viewer, v: NewView): string {
  const { values, errors } = v;
  const imageOptions = v.images.map((i) => html`<option value="${i.name}"${i.name === values.image ? html` selected` : ''}>${i.displayName} (${i.name})</option>`);
  const body = html`<h1>New workspace</h1>
${v.formError && html`<div class="notice error" role="alert" id="form-error"><p>${v.formError}</p>${v.formCluster && clusterText('form-error-cluster', v.formCluster)}</div>`}
<form method="post" action="/new" class="card" novalidate>
  ${csrfField(viewer.csrf)}
  ${field('name', 'Name', text('name', v, html` required autocapitalize="none" spellcheck="false"`), errors.name, 'Lower-case letters, digits and "-"; also your SSH user name.', v.clusterSaid?.name)}
  ${field(
    'image',
    'Image',
    html`<select id="image" name="image"${described('image', errors.image, false)}><option value="">Choose a catalog entry</option>${imageOptions}</select>`,
    errors.image,
    undefined,
    v.clusterSaid?.image,
  )}
  <h2>Size</h2>
  ${v.quota.length > 0 && html`<p class="muted" id="quota-left">Your quota: ${v.quota.map((q, i) => html`${i > 0 ? ', ' : ''}${q.what} ${q.used} of ${q.limit} used`)}.</p>`}
  <div class="grid2">
    ${field('cpu', 'CPU', text('cpu', v), errors.cpu, 'Cores, e.g. 2 or 500m. Empty: the namespace default.', v.clusterSaid?.cpu)}
    ${field('memory', 'Memory', text('memory', v), errors.memory, 'e.g. 4Gi. Empty: the namespace default.', v.clusterSaid?.memory)}
    ${field('gpu', 'GPUs', text('gpu', v), errors.gpu, 'Whole GPUs; empty for none.', v.clusterSaid?.gpu)}
    ${field('storage', 'Home volume', text('storage', v, html` required`), errors.storage, 'Size of your home folder, e.g. 10Gi. It cannot change later.', v.clusterSaid?.storage)}
  </div>
  ${field(
    'ssh_public_key',
    'SSH public key',
    html`<textarea id="ssh_public_key" name="ssh_public_key" rows="3" spellcheck="false"${described('ssh_public_key', errors.ssh_public_key, true)}>${values.ssh_public_key}</textarea>`,
    errors.ssh_public_key,
    v.hasSavedKeys ? 'Prefilled from the keys saved in your profile.' : 'One line, as in ~/.ssh/id_ed25519.pub.',
    v.clusterSaid?.ssh_public_key,
  )}
  <label class="check"><input type="checkbox" name="save_key" value="1"${values.save_key ? html` checked` : ''}> Save this key to my profile for my next workspaces</label>
  <h2>Repository</h2>
  ${field('repo', 'Repository to clone (optional)', text('repo', v, html` autocapitalize="none" spellcheck="false" placeholder="https://github.com/owner/repo.git"`), errors.repo, 'Cloned into your home on the first start, before the workspace is running; a later start leaves it alone. An https address (a private repository with the token you keep for its host on your profile) or an SSH address such as git@github.com:owner/repo.git (with the SSH key you keep for its host).', v.clusterSaid?.repo)}
  <div class="grid2">
    ${field('repo_ref', 'Branch, tag or commit', text('repo_ref', v, html` autocapitalize="none" spellcheck="false"`), errors.repo_ref, 'Empty: the default branch.', v.clusterSaid?.repo_ref)}
    ${field('repo_path', 'Folder in your home', text('repo_path', v, html` autocapitalize="none" spellcheck="false"`), errors.repo_path, 'Empty: the repository\'s name, as in ~/repo.', v.clusterSaid?.repo_path)}
    ${field('repo_devcontainer', 'Dev container configuration', text('repo_devcontainer', v, html` autocapitalize="none" spellcheck="false"`), errors.repo_devcontainer, 'Empty: .devcontainer/devcontainer.json. A name picks .devcontainer/<name>/devcontainer.json.', v.clusterSaid?.repo_devcontainer)}
  </div>
  <h2>Schedule</h2>
  ${scheduleFields(v)}
  <p><button type="submit">Create workspace</button> <a href="/">Cancel</a></p>
</form>`;
  return page({ title: 'New workspace', assets, viewer, active: 'new', body });
}
