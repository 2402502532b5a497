// The git credentials card's SSH keys: a key per git host that clones a workspace's SSH address
// (git@host:owner/repo), listed by its public half and the host key's fingerprint, never the
// private key; a form to keep one and a button to forget one.
import { html, type Html } from '../html.js';
import { csrfField } from './layout.js';
import { clusterText } from './new.js';
import { dataTable } from './table.js';

export interface SshKeyView {
  host: string;
  public_key: string;
  host_key_fingerprint: string;
}

/** A refusal of the SSH key form: `host` and `knownHost` are what was typed (public); the private key is never echoed. */
export interface SshKeyError {
  message: string;
  cluster?: string;
  host?: string;
  knownHost?: string;
}

export function sshKeysPart(keys: SshKeyView[] | undefined, error: SshKeyError | undefined, csrf: string): Html {
  const rows = (keys ?? []).map((k) => ({
    attrs: html` data-ssh-host="${k.host}"`,
    cells: [
      html`<code>${k.host}</code>`,
      html`<code class="wrap">${k.public_key}</code>`,
      html`<code>${k.host_key_fingerprint}</code>`,
      html`<form class="inline" method="post" action="/profile/git-credentials/ssh-key/remove" data-confirm="Forget the SSH key for ${k.host}? Workspaces can no longer clone its SSH addresses.">${csrfField(csrf)}<input type="hidden" name="host" value="${k.host}"><button type="submit" class="secondary" aria-label="Forget the SSH key for ${k.host}">Forget</button></form>`,
    ],
  }));
  return html`<h3 id="ssh-keys-title">SSH keys for cloning</h3>
<p class="muted">A workspace created from an SSH address (<code>git@github.com:owner/repo.git</code>) is cloned with the key you keep for its host. Den connects only to a host showing the host key you give here: paste one line of <code>ssh-keyscan github.com</code> (<code>ssh-keyscan -p 2222 git.example.com</code> for a port). The key must have no passphrase; add its public half to the host (as an account or deploy key). The private key is never shown again.</p>
${keys === undefined ? '' : keys.length === 0 ? html`<p class="muted" id="no-ssh-keys">No SSH keys yet.</p>` : dataTable('ssh-keys', [{ label: 'Host' }, { label: 'Public key' }, { label: 'Host key' }, { label: 'Actions', hiddenLabel: true }], rows)}
<form method="post" action="/profile/git-credentials/ssh-key" autocomplete="off">${csrfField(csrf)}
  <div class="field${error ? ' invalid' : ''}"><label for="ssh-host">SSH host</label><input type="text" id="ssh-host" name="host" required autocapitalize="none" spellcheck="false" placeholder="github.com" value="${error?.host ?? ''}"${error ? html` aria-invalid="true" aria-describedby="ssh-key-error"` : ''}></div>
  <div class="field"><label for="ssh-private-key">Private key (no passphrase)</label><textarea id="ssh-private-key" name="ssh_private_key" required rows="4" spellcheck="false" autocomplete="off" placeholder="-----BEGIN OPENSSH PRIVATE KEY-----"></textarea></div>
  <div class="field"><label for="ssh-known-host">Host key (one line of ssh-keyscan)</label><input type="text" id="ssh-known-host" name="ssh_known_host" required autocapitalize="none" spellcheck="false" placeholder="github.com ssh-ed25519 AAAA…" value="${error?.knownHost ?? ''}"></div>
  <button type="submit">Save SSH key</button>
</form>
${error ? html`<p class="error" id="ssh-key-error" role="alert">${error.message}</p>${error.cluster && clusterText('ssh-key-error-cluster', error.cluster)}` : ''}`;
}
