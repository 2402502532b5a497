// The profile's environment variables and git credentials sections: names (and the values of
// variables that are not secret), never a secret value or a token, with forms to add and remove.
import { html, type Html } from '../html.js';
import { csrfField } from './layout.js';
import { clusterText } from './new.js';
import { dataTable } from './table.js';
import { sshKeysPart, type SshKeyError, type SshKeyView } from './profile-ssh-keys.js';

export interface PersonalView {
  /** Undefined when they could not be read; `unreadable` says why. */
  env?: { name: string; secret: boolean; value?: string }[];
  gitCredentials?: { host: string; protocol: string; username: string }[];
  /** The dotfiles repository kept, or null. */
  dotfiles?: string | null;
  /** The hosts an SSH key is kept for (its public half), never the private key. */
  sshKeys?: SshKeyView[];
  /** A refusal of the SSH key form. */
  sshKeyError?: SshKeyError;
  unreadable?: string;
  /** A refusal of the env, git or dotfiles form; `name`, `host` or `url` is what was typed (never a value or token). */
  error?: { form: 'env' | 'git' | 'dotfiles'; message: string; cluster?: string; name?: string; host?: string; url?: string };
}

function formError(v: PersonalView, form: 'env' | 'git' | 'dotfiles', id: string): Html | '' {
  return v.error?.form === form ? html`<p class="error" id="${id}" role="alert">${v.error.message}</p>${v.error.cluster && clusterText(`${id}-cluster`, v.error.cluster)}` : '';
}

function envTable(v: PersonalView, csrf: string): Html {
  const env = v.env ?? [];
  if (env.length === 0) return html`<p class="muted" id="no-env">No variables yet.</p>`;
  const rows = env.map((e) => ({
    attrs: html` data-env="${e.name}"`,
    cells: [
      html`<code>${e.name}</code>`,
      e.secret ? html`<span class="muted">secret, not shown</span>` : html`<code>${e.value ?? ''}</code>`,
      html`<form class="inline" method="post" action="/profile/env/remove" data-confirm="Remove ${e.name}? Workspaces lose it at their next start.">${csrfField(csrf)}<input type="hidden" name="name" value="${e.name}"><button type="submit" class="secondary" aria-label="Remove ${e.name}">Remove</button></form>`,
    ],
  }));
  return dataTable('env', [{ label: 'Name' }, { label: 'Value' }, { label: 'Actions', hiddenLabel: true }], rows);
}

export function envSection(v: PersonalView, csrf: string): Html {
  const invalid = v.error?.form === 'env';
  return html`<section class="card" aria-labelledby="env-title"><h2 id="env-title">Environment variables</h2>
<p class="muted">Set in every workspace of yours from its next start; a workspace's own <code>env</code> wins. A secret value is never shown again, here or anywhere.</p>
${v.unreadable ? html`<p class="error" role="alert">${v.unreadable}</p>` : envTable(v, csrf)}
<form method="post" action="/profile/env" class="row" autocomplete="off">${csrfField(csrf)}
  <div class="field${invalid ? ' invalid' : ''}"><label for="env-name">Name</label><input type="text" id="env-name" name="name" required autocapitalize="none" spellcheck="false" placeholder="NPM_TOKEN" value="${invalid ? v.error?.name ?? '' : ''}"${invalid ? html` aria-invalid="true" aria-describedby="env-error"` : ''}></div>
  <div class="field"><label for="env-value">Value</label><input type="password" id="env-value" name="value" autocomplete="off" spellcheck="false"></div>
  <div class="field"><label for="env-secret"><input type="checkbox" id="env-secret" name="secret" value="true" checked> Secret (never shown again)</label></div>
  <button type="submit">Save variable</button>
</form>
${formError(v, 'env', 'env-error')}</section>`;
}

export function gitSection(v: PersonalView, csrf: string): Html {
  const creds = v.gitCredentials ?? [];
  const rows = creds.map((c) => ({
    attrs: html` data-git-host="${c.host}"`,
    cells: [
      html`<code>${c.host}</code>`,
      c.protocol,
      c.username,
      html`<form class="inline" method="post" action="/profile/git-credentials/remove" data-confirm="Forget the token for ${c.host}?">${csrfField(csrf)}<input type="hidden" name="host" value="${c.host}"><button type="submit" class="secondary" aria-label="Forget the token for ${c.host}">Forget</button></form>`,
    ],
  }));
  const invalid = v.error?.form === 'git';
  return html`<section class="card" aria-labelledby="git-title"><h2 id="git-title">Git credentials</h2>
<p class="muted">A token per git host: <code>git clone</code> and <code>git push</code> over HTTPS in your workspaces use it, without it being in a repository's config. The token is never shown again. For GitHub, a fine-grained token with <strong>Contents: read and write</strong> on the repositories you push to.</p>
${v.unreadable ? '' : creds.length === 0 ? html`<p class="muted" id="no-git">No git credentials yet.</p>` : dataTable('git-credentials', [{ label: 'Host' }, { label: 'Protocol' }, { label: 'Username' }, { label: 'Actions', hiddenLabel: true }], rows)}
<form method="post" action="/profile/git-credentials" class="row" autocomplete="off">${csrfField(csrf)}
  <div class="field${invalid ? ' invalid' : ''}"><label for="git-host">Host</label><input type="text" id="git-host" name="host" required autocapitalize="none" spellcheck="false" placeholder="github.com" value="${invalid ? v.error?.host ?? '' : ''}"${invalid ? html` aria-invalid="true" aria-describedby="git-error"` : ''}></div>
  <div class="field"><label for="git-username">Username (optional)</label><input type="text" id="git-username" name="username" autocapitalize="none" spellcheck="false" placeholder="x-access-token"></div>
  <div class="field"><label for="git-token">Token</label><input type="password" id="git-token" name="token" required autocomplete="off"></div>
  <button type="submit">Save token</button>
</form>
${formError(v, 'git', 'git-error')}
${v.unreadable ? '' : sshKeysPart(v.sshKeys, v.sshKeyError, csrf)}</section>`;
}

export function dotfilesSection(v: PersonalView, csrf: string): Html {
  const invalid = v.error?.form === 'dotfiles';
  const kept = v.dotfiles ?? null;
  return html`<section class="card" aria-labelledby="dotfiles-title"><h2 id="dotfiles-title">Dotfiles</h2>
<p class="muted">A repository of your dotfiles, cloned into <code>~/.dotfiles</code> on each new workspace's first start (a private one with your git credential for its host). The first of <code>install.sh</code>, <code>install</code>, <code>bootstrap.sh</code>, <code>bootstrap</code>, <code>script/bootstrap</code>, <code>setup.sh</code>, <code>setup</code>, <code>script/setup</code> runs once; without one, its dot files are linked into your home.</p>
${v.unreadable ? '' : kept === null ? html`<p class="muted" id="no-dotfiles">No dotfiles repository yet.</p>` : html`<div class="row" id="dotfiles-kept"><p><code>${kept}</code></p><form class="inline" method="post" action="/profile/dotfiles/remove" data-confirm="Forget your dotfiles repository? Workspaces that have ~/.dotfiles keep it.">${csrfField(csrf)}<button type="submit" class="secondary" aria-label="Forget the dotfiles repository">Forget</button></form></div>`}
<form method="post" action="/profile/dotfiles" class="row" autocomplete="off">${csrfField(csrf)}
  <div class="field${invalid ? ' invalid' : ''}"><label for="dotfiles-url">Repository (https or SSH)</label><input type="text" inputmode="url" id="dotfiles-url" name="url" required autocapitalize="none" spellcheck="false" placeholder="https://github.com/you/dotfiles.git" value="${invalid ? v.error?.url ?? '' : kept ?? ''}"${invalid ? html` aria-invalid="true" aria-describedby="dotfiles-error"` : ''}></div>
  <button type="submit">Save dotfiles</button>
</form>
${formError(v, 'dotfiles', 'dotfiles-error')}</section>`;
}
