// The administration pages (SPEC 4.7): overview, people and local users, quotas with usage,
// catalog entries and image registries, every workspace, and the settings. Each form posts
// back to its page; a refusal (the cluster's words, a 403 naming the missing right included)
// is shown above the form it is about.
// This file holds the overview, activity and settings; the rest by page: admin-people.ts,
// admin-catalog.ts, admin-workspaces.ts, drawn in admin-frame.ts.
import { html } from '../html.js';
import type { AssetUrls, Viewer } from './layout.js';
import { activityFilterForm, activityList, type ActivityFilterView, type ActivityLine } from './activity.js';
import { liveRegion } from './live.js';
import { frame } from './admin-frame.js';

// Overview

export interface OverviewView {
  people: number;
  admins: number;
  disabled: number;
  phases: [string, number][];
  workspaces: number;
  images: number;
  deprecated: number;
  registries: { name: string; ready: string; message: string }[];
}

export function adminOverviewPage(assets: AssetUrls, viewer: Viewer, v: OverviewView): string {
  const body = html`<div class="cards" id="overview">
<section class="card"><h2>People</h2><p><strong data-count="people">${v.people}</strong> UserSpaces, ${v.admins} administrators, ${v.disabled} disabled.</p><p><a href="/admin/users">Manage people</a></p></section>
<section class="card"><h2>Workspaces</h2><p><strong data-count="workspaces">${v.workspaces}</strong> in the cluster${v.phases.length > 0 && html`: ${v.phases.map(([p, n], i) => html`${i > 0 ? ', ' : ''}${n} ${p}`)}`}.</p><p><a href="/admin/workspaces">See all workspaces</a></p></section>
<section class="card"><h2>Catalog</h2><p><strong data-count="images">${v.images}</strong> entries, ${v.deprecated} deprecated; ${v.registries.length} registries.</p>
${v.registries.length > 0 && html`<ul>${v.registries.map((r) => html`<li>${r.name}: ${r.ready}${r.message && html` (${r.message})`}</li>`)}</ul>`}<p><a href="/admin/catalog">Manage the catalog</a></p></section>
</div>`;
  return frame(assets, viewer, 'overview', 'Administration', {}, body);
}

// Activity

export function adminActivityPage(assets: AssetUrls, viewer: Viewer, v: { kinds: readonly string[]; filter: ActivityFilterView; query: string; entries: ActivityLine[]; now: number }): string {
  const body = html`<p class="muted">What people did with workspaces in every namespace you may read: SSH sessions, browser terminals, starts and stops (and by whom), resizes and deletions, as Den records them in Events on each Workspace. Newest first; the list follows the cluster while this page is open.</p>
${activityFilterForm({ id: 'activity', action: '/admin/activity', kinds: v.kinds, filter: v.filter, withWorkspace: true })}
${liveRegion(`/admin/activity${v.query ? `?${v.query}` : ''}`, activityList(v.entries, v.now, true))}`;
  return frame(assets, viewer, 'activity', 'Activity', {}, body, ['live.js']);
}

// Settings

export function adminSettingsPage(assets: AssetUrls, viewer: Viewer, settings: [string, string][]): string {
  const body = html`<p class="muted">How this den server runs, read-only: it is set by the install (flags and DEN_* variables). Secrets are never shown.</p>
<dl class="facts card" id="settings">${settings.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
  return frame(assets, viewer, 'settings', 'Settings', {}, body);
}
