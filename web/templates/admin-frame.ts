// What every administration page (SPEC 4.7) is drawn in: the section navigation, the notice of
// what the last action did, a refusal above the form it is about, and the form fields that
// keep what was typed after a refusal.
import { html, type Html } from '../html.js';
import { page, type AssetUrls, type Viewer } from './layout.js';
import { clusterText } from './new.js';

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

export function frame(assets: AssetUrls, viewer: Viewer, section: AdminSection, title: string, outcome: AdminOutcome, body: Html, scripts?: string[]): string {
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

export function refusal(outcome: AdminOutcome, form: string): Html | '' {
  const error = outcome.error?.form === form ? outcome.error : undefined;
  return error ? html`<div class="notice error" role="alert" id="error-${form}"><p>${error.message}</p>${error.cluster && clusterText(`error-${form}-cluster`, error.cluster)}</div>` : '';
}

/** A form value after a refusal of that form, else `fallback`. */
export function kept(outcome: AdminOutcome, form: string, field: string, fallback = ''): string {
  return outcome.error?.form === form ? outcome.values?.[field] ?? fallback : fallback;
}

export function input(form: string, name: string, label: string, outcome: AdminOutcome, opts: { value?: string; type?: string; hint?: string; required?: boolean } = {}): Html {
  const id = `${form}-${name}`;
  return html`<div class="field"><label for="${id}">${label}</label><input type="${opts.type ?? 'text'}" id="${id}" name="${name}" value="${kept(outcome, form, name, opts.value ?? '')}"${opts.required ? html` required` : ''}${opts.hint ? html` aria-describedby="${id}-hint"` : ''}>${opts.hint && html`<p class="hint" id="${id}-hint">${opts.hint}</p>`}</div>`;
}

export function checkbox(form: string, name: string, label: string, checked: boolean): Html {
  // The hidden 0 goes first: a checked box's 1 comes later in the body and wins.
  return html`<input type="hidden" name="${name}" value="0"><label class="check"><input type="checkbox" name="${name}" value="1"${checked ? html` checked` : ''}> ${label}</label>`;
}

export function select(form: string, name: string, label: string, options: string[], value: string): Html {
  const id = `${form}-${name}`;
  return html`<div class="field"><label for="${id}">${label}</label><select id="${id}" name="${name}">${options.map((o) => html`<option value="${o}"${o === value ? html` selected` : ''}>${o}</option>`)}</select></div>`;
}
