// The sign-in page: the local form when local sign-in is on, and one button per identity provider.
import { html } from '../html.js';
import { csrfField, page, type AssetUrls } from './layout.js';

/** An identity provider offered on the sign-in page; its button leads to /login/<name>. */
export interface IdentityProviderLink {
  name: string;
  label: string;
}

export interface LoginView {
  localAuth: boolean;
  providers: readonly IdentityProviderLink[];
  /** Where to go after signing in (already checked to be a path on this site). */
  next: string;
  /** What went wrong with the last attempt. */
  error?: string;
  username?: string;
  /** The pre-session CSRF token the form carries (server/pages/login-csrf.ts). */
  csrf: string;
}

export function loginPage(assets: AssetUrls, view: LoginView): string {
  const providers = view.providers.map(
    (p) => html`<li><a class="button secondary" href="/login/${encodeURIComponent(p.name)}?next=${encodeURIComponent(view.next)}">Sign in with ${p.label}</a></li>`,
  );
  const local =
    view.localAuth &&
    html`<form method="post" action="/login" class="card narrow" novalidate>
  ${csrfField(view.csrf)}
  <input type="hidden" name="next" value="${view.next}">
  <div class="field"><label for="username">Username</label>
    <input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${view.username ?? ''}"></div>
  <div class="field"><label for="password">Password</label>
    <input type="password" id="password" name="password" autocomplete="current-password" required></div>
  <button type="submit">Sign in</button>
</form>`;
  const nothing = !view.localAuth && view.providers.length === 0 && html`<p class="notice error">No way to sign in is configured on this server: ask its administrator.</p>`;
  return page({
    title: 'Sign in',
    assets,
    body: html`<h1>Sign in to Den</h1>
${view.error && html`<div class="notice error" role="alert" id="login-error">${view.error}</div>`}
${view.providers.length > 0 && html`<ul class="row" aria-label="Identity providers">${providers}</ul>`}
${local}
${nothing}`,
  });
}
