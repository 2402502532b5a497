// What a workspace is, on its page: the image by its title, CPU and memory asked for and
// allowed, the home volume's size (which never changes), the idle timeout and when it would
// stop, who created it and when, and its last activity; then the form that changes what may
// change after creation (SPEC 2.5: size with GPUs, idle timeout, image; never the home volume).
import { html, type Html } from '../html.js';
import { ago, type WorkspaceView } from './format.js';
import { csrfField } from './layout.js';
import { clusterText, scheduleFields, type NewField } from './new.js';

export interface ImageChoice {
  name: string;
  displayName: string;
}

/** What the change form shows after a refusal: the refused field's message and what was typed. */
export interface ChangeRefusal {
  field?: ChangeField;
  message: string;
  /** The cluster's own text, when `message` is the refusing rule's words for a person. */
  cluster?: string;
  values: Record<ChangeField, string>;
}

export const CHANGE_FIELDS = ['cpu', 'memory', 'gpu', 'idle_timeout', 'image'] as const;
export type ChangeField = (typeof CHANGE_FIELDS)[number];

function sized(ws: WorkspaceView, resource: 'cpu' | 'memory'): string {
  const request = ws.spec?.resources?.requests?.[resource];
  const limit = ws.spec?.resources?.limits?.[resource];
  if (!request && !limit) return 'the namespace default';
  if (!limit || request === limit) return `${request ?? limit}`;
  return `${request ?? '–'} requested, at most ${limit}`;
}

/** The repository a workspace is cloned from (spec.source.git), as the page's server read it. */
export interface SourceFact {
  url: string;
  ref?: string;
  /** The folder in the home it is cloned into (`api`, `src/app`). */
  directory?: string;
  /** Where the clone is, in the Workspace hook's words (the Cloned condition's message). */
  state: string;
}

/** What the page's server worked out for the facts. */
export interface FactsView {
  /** Who created it, in words (the person's e-mail for their own session). */
  createdBy?: string;
  /** The idle timeout and when it would stop, in words. */
  idle: string;
  /** What starts and stops it by the clock, in words (contract/schedule.ts scheduleSummary). */
  schedule: string;
  /** The resource name GPUs are counted under (the platform's configuration). */
  gpuResource: string;
  /** Where people reach den gateway: named after the SSH address when it is not 22. */
  gatewayPort: number;
  /** The repository it starts from, when it has one. */
  source?: SourceFact;
}

/** Where the workspace's pod runs: read from the pod with the page and with the polls that ask for slow parts. */
export interface PlacementView {
  pod?: string;
  node?: string;
  /** Why there is no pod to name (stopped, not created yet, unreadable). */
  note?: string;
}

/** GPUs reserved: an extended resource's limit is what the pod gets (its request equals it); '' for none. */
function gpusOf(ws: WorkspaceView, gpuResource: string): string {
  const gpus = String(ws.spec?.resources?.limits?.[gpuResource] ?? ws.spec?.resources?.requests?.[gpuResource] ?? '');
  return /^0+$/.test(gpus) ? '' : gpus;
}

/** Does a value typed in the change form ask for what the workspace has already (0 GPUs is none)? */
export function sameAsCurrent(field: ChangeField, typed: string, current: string): boolean {
  if (field === 'gpu' && /^0+$/.test(typed)) return current === '';
  return typed === current;
}

/** What a value the form cannot send means, in words, beside its field (the request's own words folded away). */
export const CHANGE_FIELD_ADVICE: Record<ChangeField, (typed: string) => string> = {
  cpu: (typed) => `"${typed}" is not an amount of CPU: write cores, such as 2 or 500m.`,
  memory: (typed) => `"${typed}" is not an amount of memory: write a number and a unit, such as 4Gi or 512Mi.`,
  gpu: (typed) => `"${typed}" is not a number of GPUs: write a whole number, such as 1, or 0 for none.`,
  idle_timeout: (typed) => `"${typed}" is not a duration: write one such as 4h, 90m or 1h30m; 0s never stops.`,
  image: (typed) => `"${typed}" is not the name of a catalog entry: choose an image from the list.`,
};

/**
 * The Image fact: the catalog entry's title (when the entry is there to read and has one) and
 * name. A part of its own, as not every status poll reads the entry.
 */
export function imageFact(ws: WorkspaceView, imageTitle: string | undefined): Html {
  const image = ws.spec?.imageRef?.name ?? '';
  return html`<dt>Image</dt><dd>${imageTitle ?? image}${imageTitle && imageTitle !== image && html` <span class="muted">(${image})</span>`}</dd>`;
}

function sourceFact(source: SourceFact | undefined): Html | '' {
  if (!source) return '';
  const at = source.ref ? html`at <code>${source.ref}</code>` : 'at its default branch';
  return html`<dt>Repository</dt><dd><code>${source.url}</code> ${at}${source.directory && html`, into <code>~/${source.directory}</code>`}. <span class="muted">${source.state}</span></dd>`;
}

function endpointFact(ws: WorkspaceView, port: number): Html {
  const endpoint = ws.status?.endpoint;
  if (!endpoint) return html`<dt>SSH address</dt><dd class="muted">not known yet</dd>`;
  return html`<dt>SSH address</dt><dd><code>${endpoint}</code>${port !== 22 && html`, port ${String(port)}`}</dd>`;
}

/** The Pod and Node facts: a part of their own, as only some polls read the pod. */
export function placementFacts(p: PlacementView): Html {
  return html`<dt>Pod</dt><dd>${p.pod ?? html`<span class="muted">${p.note ?? '–'}</span>`}</dd>
  <dt>Node</dt><dd>${p.node ?? html`<span class="muted">${p.pod ? 'not scheduled yet' : '–'}</span>`}</dd>`;
}

/** The other facts, rows of the Details card's list after the Image fact. */
export function factsList(ws: WorkspaceView, facts: FactsView, now: number): Html {
  const { createdBy } = facts;
  return html`<dt>CPU</dt><dd>${sized(ws, 'cpu')}</dd>
  <dt>Memory</dt><dd>${sized(ws, 'memory')}</dd>
  <dt>GPUs</dt><dd>${gpusOf(ws, facts.gpuResource) || 'none'}</dd>
  <dt>Home volume</dt><dd>${ws.spec?.storage ?? '–'} <span class="muted">(its size cannot change)</span></dd>
  ${sourceFact(facts.source)}
  ${endpointFact(ws, facts.gatewayPort)}
  <dt>Idle timeout</dt><dd>${facts.idle}</dd>
  <dt>Schedule</dt><dd id="schedule-fact">${facts.schedule}</dd>
  <dt>Created</dt><dd>${ago(ws.metadata?.creationTimestamp, now)}${createdBy && ` by ${createdBy}`}</dd>
  <dt>Last activity</dt><dd>${ago(ws.status?.lastActivityTime, now)}</dd>`;
}

/** The values the change form starts from: the workspace's own (a limit is what it gets). */
export function currentValues(ws: WorkspaceView, gpuResource: string): Record<ChangeField, string> {
  const of = (r: 'cpu' | 'memory') => ws.spec?.resources?.limits?.[r] ?? ws.spec?.resources?.requests?.[r] ?? '';
  return { cpu: of('cpu'), memory: of('memory'), gpu: gpusOf(ws, gpuResource), idle_timeout: ws.spec?.idleTimeout ?? '', image: ws.spec?.imageRef?.name ?? '' };
}

export function changeForm(ws: WorkspaceView, gpuResource: string, action: string, csrf: string, images: ImageChoice[], namespaceField: Html | '', refusal?: ChangeRefusal): Html {
  const values = refusal?.values ?? currentValues(ws, gpuResource);
  const field = (id: ChangeField, label: string, control: Html, hint: string) => {
    const error = refusal?.field === id ? refusal.message : undefined;
    return html`<div class="field${error ? ' invalid' : ''}"><label for="change-${id}">${label}</label>${control}<p class="hint" id="change-${id}-hint">${hint}</p>${error && html`<p class="error" id="change-${id}-error" role="alert">${error}</p>`}${error && refusal?.cluster && clusterText(`change-${id}-cluster`, refusal.cluster)}</div>`;
  };
  const described = (id: ChangeField) => html` aria-describedby="change-${id}-hint${refusal?.field === id ? ` change-${id}-error` : ''}"${refusal?.field === id ? html` aria-invalid="true"` : ''}`;
  const text = (id: ChangeField) => html`<input type="text" id="change-${id}" name="${id}" value="${values[id]}"${described(id)} autocapitalize="none" spellcheck="false">`;
  const known = images.some((i) => i.name === values.image);
  const options = [...(known ? [] : [{ name: values.image, displayName: values.image }]), ...images].map(
    (i) => html`<option value="${i.name}"${i.name === values.image ? html` selected` : ''}>${i.displayName}${i.displayName !== i.name && ` (${i.name})`}</option>`,
  );
  return html`<details id="change"${refusal ? html` open` : ''}><summary>Change size, idle timeout or image…</summary>
<form method="post" action="${action}" novalidate>${csrfField(csrf)}${namespaceField}
  ${refusal && !refusal.field && html`<div class="notice error" role="alert" id="change-error"><p>${refusal.message}</p>${refusal.cluster && clusterText('change-error-cluster', refusal.cluster)}</div>`}
  <p class="muted">A new size or image restarts a running workspace's pod: open sessions end, the home folder stays. Your quota applies to the new size.</p>
  <div class="grid2">
    ${field('cpu', 'CPU', text('cpu'), 'Cores, e.g. 2 or 500m.')}
    ${field('memory', 'Memory', text('memory'), 'e.g. 4Gi.')}
    ${field('gpu', 'GPUs', text('gpu'), 'Whole GPUs, reserved for it while it runs; 0 for none.')}
    ${field('idle_timeout', 'Idle timeout', text('idle_timeout'), 'e.g. 4h or 90m; 0s never stops.')}
    ${field('image', 'Image', html`<select id="change-image" name="image"${described('image')}>${options}</select>`, 'Another image restarts the pod with it.')}
  </div>
  <p class="muted">Home volume: ${ws.spec?.storage ?? '–'}, fixed when the workspace was created.</p>
  <p><button type="submit">Save changes</button></p>
</form></details>`;
}

export type ScheduleField = 'autostart' | 'autostop' | 'max_running' | 'time_zone';

/** What the schedule form shows after a refusal: the refused field's message and what was typed. */
export interface ScheduleRefusal {
  field?: ScheduleField;
  message: string;
  cluster?: string;
  values: Record<ScheduleField, string>;
}

/** The schedule form of the workspace page: the four fields of the create form, as the workspace has them; empty removes a part. */
export function scheduleForm(values: Record<ScheduleField, string>, action: string, csrf: string, namespaceField: Html | '', refusal?: ScheduleRefusal, policy?: string): Html {
  const errors: Partial<Record<NewField, string>> = refusal?.field ? { [refusal.field]: refusal.message } : {};
  const clusterSaid: Partial<Record<NewField, string>> = refusal?.field && refusal.cluster ? { [refusal.field]: refusal.cluster } : {};
  return html`<details id="schedule"${refusal ? html` open` : ''}><summary>Change the schedule…</summary>
<form method="post" action="${action}" novalidate>${csrfField(csrf)}${namespaceField}
  ${refusal && !refusal.field && html`<div class="notice error" role="alert" id="schedule-error"><p>${refusal.message}</p>${refusal.cluster && clusterText('schedule-error-cluster', refusal.cluster)}</div>`}
  <p class="muted">Den starts and stops the workspace at these times; you may still start or stop it yourself, and a stop by hand holds until the next start time. Empty a field to remove it.</p>
  ${policy && html`<p class="muted" id="schedule-policy">${policy}</p>`}
  ${scheduleFields({ values: refusal?.values ?? values, errors, clusterSaid })}
  <p><button type="submit">Save the schedule</button></p>
</form></details>`;
}
