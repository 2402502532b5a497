// The administration pages, read and written with the person's own minted token through the
// REST mappings and schemas (server/api/*.ts, server/api/local-users.ts): the cluster's RBAC
// decides, and someone without the rights sees its 403 message naming the missing right.
// Forms post back to their page; a refusal is shown above that form with what was typed.
// This file holds the overview and settings and mounts the rest by page: admin-people.ts
// (people, quota), admin-catalog.ts, admin-workspaces.ts; what they share is admin-forms.ts.
import { isDisabled, roleOf } from '../../contract/user-space.js';
import { GROUP, SYSTEM_NAMESPACE, VERSION } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { adminOverviewPage, adminSettingsPage } from '../../web/templates/admin.js';
import { requireAdministrator } from '../auth/admin.js';
import { viewerOf } from './middleware.js';
import { sendPage } from './send.js';
import { nameOf, readiness, specOf, statusOf, type On } from './admin-forms.js';
import { mountCatalogPages } from './admin-catalog.js';
import { mountPeoplePages } from './admin-people.js';
import { mountWorkspaceAdminPages } from './admin-workspaces.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';

async function overview(ctx: PageContext): Promise<void> {
  const { kube, assets } = ctx.state;
  const [people, workspaces, images, registries] = await Promise.all([
    kube.list(RESOURCES.userSpace),
    kube.list(RESOURCES.workspace),
    kube.list(RESOURCES.workspaceImage),
    kube.list(RESOURCES.imageRegistry),
  ]);
  const phases = new Map<string, number>();
  for (const w of workspaces.items) {
    const phase = String(statusOf(w).phase ?? 'Unknown');
    phases.set(phase, (phases.get(phase) ?? 0) + 1);
  }
  sendPage(
    ctx,
    adminOverviewPage(assets, viewerOf(ctx)!, {
      people: people.items.length,
      admins: people.items.filter((u) => roleOf(u) === 'admin').length,
      disabled: people.items.filter(isDisabled).length,
      workspaces: workspaces.items.length,
      phases: [...phases.entries()].sort(([a], [b]) => a.localeCompare(b)),
      images: images.items.length,
      deprecated: images.items.filter((i) => specOf(i).deprecated === true).length,
      registries: registries.items.map((r) => ({ name: nameOf(r), ...readiness(r) })),
    }),
  );
}

async function settings(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { kube, caller, assets } = ctx.state;
  await requireAdministrator(kube, caller);
  const policy = deps.auth.sessions.policy;
  const hours = (ms: number) => `${Math.round(ms / 3_600_000)} h`;
  const rows: [string, string][] = [
    ['API group', `${GROUP}/${VERSION}`],
    ['Platform namespace', SYSTEM_NAMESPACE],
    ['Local sign-in', deps.localAuth ? 'on (username and password)' : 'off'],
    ['Base URL', deps.baseUrl],
    ['Identity providers', deps.providers.choices().map((p) => `${p.label} (${p.name})`).join(', ') || 'none'],
    ['Secure cookies (https base URL)', deps.secureCookies ? 'yes' : 'no'],
    ['Session ends after idle', hours(policy.idleMs)],
    ['Session ends at the latest after', hours(policy.absoluteMs)],
    ['GPU resource name', deps.resources.gpuResource],
    ['Catalog access reviews at once', String(deps.resources.catalogConcurrency ?? 16)],
  ];
  sendPage(ctx, adminSettingsPage(assets, viewerOf(ctx)!, rows));
}

export function mountAdminPages(router: PageRouter, deps: PageDeps): void {
  const on: On = (handler) => (ctx) => handler(ctx, deps);

  router.get('/admin', (ctx) => ctx.redirect('/admin/overview'));
  router.get('/admin/overview', on(overview));
  mountPeoplePages(router, deps, on);
  mountCatalogPages(router, deps, on);
  mountWorkspaceAdminPages(router, deps, on);
  router.get('/admin/settings', on(settings));
}
