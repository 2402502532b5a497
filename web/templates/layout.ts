// The frame of every page: skip link, header with the navigation and the sign-out form,
// `<main>`, and the hashed stylesheet and scripts. No inline script or style anywhere
// (the pages' CSP forbids them): behaviour comes from /assets scripts reading data-* attributes.
import { html, type Html } from '../html.js';

/** Where a page finds its asset URLs (server/pages/assets.ts BuiltAssets). */
export interface AssetUrls {
  url(name: string): string;
  has(name: string): boolean;
}

/** The hidden field every form POST carries; server/pages/middleware.ts checks it. */
export const CSRF_FIELD = '_csrf';

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

export type NavKey = 'dashboard' | 'catalog' | 'new' | 'profile' | 'admin';

const NAV: { key: NavKey; href: string; label: string; adminOnly?: boolean }[] = [
  { key: 'dashboard', href: '/', label: 'Dashboard' },
  { key: 'catalog', href: '/catalog', label: 'Catalog' },
  { key: 'new', href: '/new', label: 'New' },
  { key: 'profile', href: '/profile', label: 'Profile' },
  { key: 'admin', href: '/admin/overview', label: 'Admin', adminOnly: true },
];

/** The signed-in person as the header shows them. */
export interface Viewer {
  email: string;
  role: 'user' | 'admin';
  /** The session's CSRF token, for the sign-out form and every other form. */
  csrf: string;
}

export interface PageView {
  title: string;
  assets: AssetUrls;
  body: Html;
  /** Absent on the sign-in and error pages of someone not signed in. */
  viewer?: Viewer;
  active?: NavKey;
  /** Logical script names (`workspace.js`); `app.js` is always included. */
  scripts?: string[];
  /** Extra stylesheets by logical name (`terminal.css`); `den.css` is always included. */
  styles?: string[];
}

function header(viewer: Viewer | undefined, active: NavKey | undefined): Html {
  if (!viewer) {
    return html`<header class="top"><a class="brand" href="/">Den</a></header>`;
  }
  const items = NAV.filter((n) => !n.adminOnly || viewer.role === 'admin').map(
    (n) => html`<li><a href="${n.href}"${n.key === active ? html` aria-current="page"` : ''}>${n.label}</a></li>`,
  );
  return html`<header class="top">
  <a class="brand" href="/">Den</a>
  <nav aria-label="Main"><ul>${items}</ul></nav>
  <div class="who"><span>${viewer.email}</span>
    <form class="inline" method="post" action="/logout">${csrfField(viewer.csrf)}<button type="submit" class="secondary">Sign out</button></form>
  </div>
</header>`;
}

export function page(view: PageView): string {
  const styles = ['den.css', ...(view.styles ?? [])].map((s) => html`<link rel="stylesheet" href="${view.assets.url(s)}">`);
  const scripts = ['app.js', ...(view.scripts ?? [])].map((s) => html`<script src="${view.assets.url(s)}" defer></script>`);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${view.title} · Den</title>
<link rel="icon" href="${view.assets.url('favicon.svg')}" type="image/svg+xml">
${styles}
${scripts}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header(view.viewer, view.active)}
<main id="main" tabindex="-1">
${view.body}
</main>
</body>
</html>
`.text;
}

/** What a refusal of the cluster's RBAC means for the person, above the cluster's own words. */
export const CLUSTER_FORBIDDEN_ADVICE = 'Your account does not have the right to do this. If you need it, ask an administrator; the cluster names the missing right below.';

/**
 * The page for a request that failed: what went wrong, in the cluster's words when it was the
 * cluster; a missing right (`forbiddenByCluster`) first says what it means and what to do.
 */
export function errorPage(assets: AssetUrls, status: number, message: string, viewer?: Viewer, forbiddenByCluster = false): string {
  const title = status === 403 ? 'Not allowed' : status === 404 ? 'Not found' : status >= 500 ? 'Something went wrong' : 'Request refused';
  return page({
    title,
    assets,
    viewer,
    body: html`<h1>${title}</h1>
<div class="notice error" role="alert">${forbiddenByCluster && html`<p id="advice">${CLUSTER_FORBIDDEN_ADVICE}</p>`}<p><strong>${status}</strong>: ${message}</p></div>
<p><a href="/">Back to the dashboard</a></p>`,
  });
}

/**
 * An error page served on an app's own host (host-based preview), where Den's assets and
 * pages do not live: no stylesheet or script, and links to Den by its absolute address.
 */
export function appHostErrorPage(status: number, message: string, denUrl: string): string {
  const title = status === 403 ? 'Not allowed' : status === 404 ? 'Not found' : status >= 500 ? 'Something went wrong' : 'Request refused';
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · Den</title></head>
<body>
<h1>${title}</h1>
<div role="alert"><p><strong>${String(status)}</strong>: ${message}</p></div>
<p><a href="${denUrl}/">Back to Den</a></p>
</body>
</html>
`.toString();
}
