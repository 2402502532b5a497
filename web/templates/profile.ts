// The profile: my quota used against its limits, my SSH keys, my environment variables and git
// credentials, my API tokens (a new one is shown once), and the password form for a session that signed in with a local password.
import { html, type Html } from '../html.js';
import { csrfField, page, type AssetUrls, type Viewer } from './layout.js';
import { clusterText, type QuotaLine } from './new.js';
import { dataTable } from './table.js';
import { dotfilesSection, envSection, gitSection, type PersonalView } from './profile-personal.js';

export interface TokenLine {
  name: string;
  createdAt: string;
}

export type ProfileForm = 'keys' | 'tokens' | 'password';

export interface ProfileView {
  quota: QuotaLine[];
  keys: string[];
  tokens: TokenLine[];
  /** Whether this session may change a password (SPEC 4.5): signed in with a local one. */
  localLogin: boolean;
  username?: string;
  /** The plaintext of a token issued by this very request; never shown again. */
  issued?: { name: string; token: string; scope: string };
  /** A refusal, shown beside the form it is about; `value` is what was typed (keys only). */
  error?: { form: ProfileForm; message: string; value?: string; cluster?: string };
  /** What the last action did. */
  done?: string;
  /** How to install den from this Den: the curl line, the npm one, and the oldest Node it runs on. */
  install: { curl: string; npm: string; node: number };
  /** My environment variables and git credentials (./profile-personal.ts). */
  personal: PersonalView;
}

/** A key as a short line: type, a cut of the key, and its comment. */
function keySummary(key: string): string {
  const [type = '', blob = '', ...comment] = key.trim().split(/\s+/);
  const cut = blob.length > 24 ? `${blob.slice(0, 12)}…${blob.slice(-8)}` : blob;
  return [type, cut, comment.join(' ')].filter(Boolean).join(' ');
}

function formError(v: ProfileView, form: ProfileForm, id: string): Html | '' {
  return v.error?.form === form ? html`<p class="error" id="${id}" role="alert">${v.error.message}</p>${v.error.cluster && clusterText(`${id}-cluster`, v.error.cluster)}` : '';
}

function quotaTable(lines: QuotaLine[]): Html {
  return html`<table id="quota"><caption class="muted">What your workspaces hold now against what your quota allows.</caption>
<thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Limit</th></tr></thead>
<tbody>${lines.map((l) => html`<tr data-quota="${l.what}"><th scope="row">${l.what}</th><td>${l.used}</td><td>${l.limit}</td></tr>`)}</tbody></table>`;
}

function keysSection(v: ProfileView, csrf: string): Html {
  const list =
    v.keys.length === 0
      ? html`<p class="muted">No saved keys. New workspaces that name no key get these.</p>`
      : html`<ul id="keys">${v.keys.map(
          (key, i) => html`<li><code>${keySummary(key)}</code>
  <form class="inline" method="post" action="/profile/keys/remove" data-confirm="Remove the key ${keySummary(key)}? New workspaces no longer get it; workspaces that have it keep it.">${csrfField(csrf)}<input type="hidden" name="key" value="${key}"><button type="submit" class="secondary" aria-label="Remove key ${i + 1}">Remove</button></form></li>`,
        )}</ul>`;
  const invalid = v.error?.form === 'keys';
  return html`<section class="card" aria-labelledby="keys-title"><h2 id="keys-title">SSH keys</h2>
<p class="muted">Copied into each new workspace that names no key of its own.</p>
${list}
<form method="post" action="/profile/keys">${csrfField(csrf)}
  <div class="field${invalid ? ' invalid' : ''}"><label for="new-key">Add a public key</label>
  <textarea id="new-key" name="key" required placeholder="ssh-ed25519 AAAA… you@laptop"${invalid ? html` aria-invalid="true" aria-describedby="key-error"` : ''}>${invalid ? v.error?.value ?? '' : ''}</textarea>
  ${formError(v, 'keys', 'key-error')}</div>
  <button type="submit">Add key</button>
</form></section>`;
}

function tokensSection(v: ProfileView, csrf: string): Html {
  const issued = v.issued
    ? html`<div class="notice" role="status" id="issued-token"><p>Your new ${v.issued.scope === 'read' ? 'read-only' : 'full'} token <strong>${v.issued.name}</strong>. Copy it now: it is not shown again.</p>
<div class="copy"><code id="token-value">${v.issued.token}</code><button type="button" class="secondary" data-copy="${v.issued.token}" aria-label="Copy the token">Copy</button></div></div>`
    : '';
  const rows = v.tokens.map((t) => ({
    attrs: html` data-token="${t.name}"`,
    cells: [
      t.name,
      t.createdAt,
      html`<form class="inline" method="post" action="/profile/tokens/${t.name}/revoke" data-confirm="Revoke the token ${t.name}? Scripts using it stop working.">${csrfField(csrf)}<button type="submit" class="secondary" aria-label="Revoke ${t.name}">Revoke</button></form>`,
    ],
  }));
  return html`<section class="card" aria-labelledby="tokens-title"><h2 id="tokens-title">API tokens</h2>
<p class="muted">For scripts: <code>Authorization: Bearer svc_…</code> on <code>/api/v1</code>. A read-only token can look but not change anything.</p>
${issued}
${v.tokens.length === 0 ? html`<p class="muted">You have no API tokens.</p>` : dataTable('tokens', [{ label: 'Name' }, { label: 'Created' }, { label: 'Actions', hiddenLabel: true }], rows)}
<form method="post" action="/profile/tokens" class="row">${csrfField(csrf)}
  <div class="field"><label for="token-name">Name (optional)</label><input type="text" id="token-name" name="name" autocapitalize="none" spellcheck="false"></div>
  <div class="field"><label for="token-scope">Scope</label><select id="token-scope" name="scope"><option value="full">full: everything you can do</option><option value="read">read: look only</option></select></div>
  <button type="submit">Issue token</button>
</form>
${formError(v, 'tokens', 'token-error')}</section>`;
}

function cliSection(v: ProfileView): Html {
  return html`<section class="card" aria-labelledby="cli-title"><h2 id="cli-title">The den command line</h2>
<p class="muted">Sign in, ssh, VS Code and port forwarding from your computer. It needs Node.js ${v.install.node} or newer. Install it, or upgrade it to this Den's version, with:</p>
<div class="copy"><code id="cli-install">${v.install.curl}</code><button type="button" class="secondary" data-copy="${v.install.curl}" aria-label="Copy the install command">Copy</button></div>
<p class="muted">Or with npm: <code id="cli-npm">${v.install.npm}</code>. Then <code>den login</code> with this Den's address; <code>den version</code> says whether yours still matches.</p></section>`;
}

function passwordSection(v: ProfileView, csrf: string): Html {
  if (!v.localLogin) {
    return html`<section class="card" aria-labelledby="password-title"><h2 id="password-title">Password</h2>
<p id="no-password">This session did not sign in with a Den username and password (it came through an identity provider), so there is no password to change here. Even if you also have a local account, sign in with it to change its password.</p>
${formError(v, 'password', 'password-error')}</section>`;
  }
  return html`<section class="card narrow" aria-labelledby="password-title"><h2 id="password-title">Password</h2>
<form method="post" action="/profile/password">${csrfField(csrf)}
  <p class="muted">Local user <strong>${v.username ?? ''}</strong>. Your other sessions are signed out when it changes.</p>
  <div class="field"><label for="current_password">Current password</label><input type="password" id="current_password" name="current_password" autocomplete="current-password" required></div>
  <div class="field"><label for="new_password">New password</label><input type="password" id="new_password" name="new_password" autocomplete="new-password" required></div>
  ${formError(v, 'password', 'password-error')}
  <button type="submit">Change password</button>
</form></section>`;
}

export function profilePage(assets: AssetUrls, viewer: Viewer, v: ProfileView): string {
  const body = html`<h1>Profile</h1>
<p class="muted">${viewer.email}</p>
${v.done && html`<div class="notice" role="status" id="done">${v.done}</div>`}
<section class="card" aria-labelledby="quota-title"><h2 id="quota-title">Quota</h2>${quotaTable(v.quota)}</section>
${keysSection(v, viewer.csrf)}
${envSection(v.personal, viewer.csrf)}
${gitSection(v.personal, viewer.csrf)}
${dotfilesSection(v.personal, viewer.csrf)}
${tokensSection(v, viewer.csrf)}
${cliSection(v)}
${passwordSection(v, viewer.csrf)}`;
  return page({ title: 'Profile', assets, viewer, active: 'profile', body });
}
