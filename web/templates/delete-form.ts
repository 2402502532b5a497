// The delete confirmation of a workspace, on its page and on the administrators' list alike
// (SPEC 1.7: it names the retained home volume and offers its deletion, checked by default):
// with the volume, only once the workspace's name is typed, since what is lost cannot come back.
import { html, type Html } from '../html.js';
import { csrfField } from './layout.js';

export interface DeleteFormView {
  name: string;
  /** Its home volume (PersistentVolumeClaim) by name. */
  claim: string;
  action: string;
  csrf: string;
  /** Hidden fields the action needs besides the CSRF token (the namespace, the list's query). */
  hidden: Html | '';
  /** Why the last attempt deleted nothing (the name typed did not match), shown beside the name. */
  refusal?: string;
}

export function deleteForm(v: DeleteFormView): Html {
  const { claim } = v;
  return html`<form method="post" action="${v.action}" id="delete-form" novalidate>
    ${csrfField(v.csrf)}${v.hidden}
    <p>This deletes the workspace <strong>${v.name}</strong> and its pod. Its home folder lives on the volume <code>${claim}</code>.</p>
    <label class="check"><input type="checkbox" name="delete_volume" value="1" id="delete-volume" aria-describedby="delete-volume-kept" checked> Also delete the volume ${claim} (everything in the home folder is lost)</label>
    <p class="hint" id="delete-volume-kept">Unchecked, the volume ${claim} is kept: a new workspace named ${v.name} starts with it, and it still counts against the space's storage quota.</p>
    <div class="field${v.refusal ? ' invalid' : ''}"><label for="confirm-name">To delete it with its volume, type its name, ${v.name}</label>
    <input type="text" id="confirm-name" name="confirm_name" autocomplete="off" autocapitalize="none" spellcheck="false" aria-describedby="confirm-name-hint${v.refusal ? ' confirm-name-error' : ''}"${v.refusal ? html` aria-invalid="true"` : ''}>
    <p class="hint" id="confirm-name-hint">Not needed when the volume is kept.</p>
    ${v.refusal && html`<p class="error" id="confirm-name-error" role="alert">${v.refusal}</p>`}</div>
    <p><button type="submit" class="danger">Delete ${v.name}</button></p>
  </form>`;
}

/** Why a delete with the volume was not done: the name typed is not the workspace's. Undefined when it may go ahead. */
export function deleteRefusalOf(name: string, form: Record<string, string>): string | undefined {
  if (form.delete_volume !== '1') return undefined;
  const typed = (form.confirm_name ?? '').trim();
  if (typed === name) return undefined;
  const why = typed ? `"${typed}" is not this workspace's name.` : 'The name was not typed.';
  return `${why} Type ${name} to delete it with its home volume, or uncheck the volume to keep it. Nothing was deleted.`;
}
