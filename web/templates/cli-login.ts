// The hand-off of `den login`: first the question (a form back to Den, CSRF-guarded), then
// the new token in a form posted to the command's loopback listener, submitted at once by
// app.js (`data-submit-on-load`) and by the button when scripts are off. The token is in a
// POST body only: never in a URL, so never in the browser's history.
import { html } from '../html.js';
import { csrfField, page, type AssetUrls, type Viewer } from './layout.js';

export interface CliRequest {
  port: number;
  state: string;
}

export function cliLoginQuestionPage(assets: AssetUrls, viewer: Viewer, request: CliRequest): string {
  return page({
    title: 'Sign in the den command',
    assets,
    viewer,
    body: html`<h1>Sign in the den command</h1>
<p>A <code>den login</code> on this computer asks for an API token that acts as <strong>${viewer.email}</strong>. Allow it only if you have just run <code>den login</code> yourself.</p>
<form method="post" action="/cli/login">${csrfField(viewer.csrf)}
<input type="hidden" name="port" value="${String(request.port)}">
<input type="hidden" name="state" value="${request.state}">
<button type="submit">Allow den on this computer</button>
</form>
<p><a href="/">Cancel</a></p>`,
  });
}

export function cliLoginHandOffPage(assets: AssetUrls, viewer: Viewer, request: CliRequest, token: { name: string; token: string }): string {
  return page({
    title: 'Returning to den',
    assets,
    viewer,
    body: html`<h1>Returning to den</h1>
<p>The token <code>${token.name}</code> was made for the den command. It is being handed to the command waiting on this computer.</p>
<form method="post" action="http://127.0.0.1:${String(request.port)}/callback" data-submit-on-load>
<input type="hidden" name="state" value="${request.state}">
<input type="hidden" name="name" value="${token.name}">
<input type="hidden" name="token" value="${token.token}">
<button type="submit">Continue to den</button>
</form>`,
  });
}
