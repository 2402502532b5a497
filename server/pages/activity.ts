// The activity pages: `/admin/activity` (every namespace the viewer may read; its list is the
// page's live part, web/templates/live.ts) and the workspace page's Activity tab list
// (`/w/{name}/activity`), read with the viewer's own minted token through REST's functions
// (server/api/activity.ts).
// Listing Events cluster-wide is the cluster's to allow: a person who may not gets its 403.
import type { AnySchema, InferType } from 'yup';
import { ACTIVITY_KINDS, limitOf, readActivity } from '../api/activity.js';
import { activityFilterQuery, adminActivityQuery } from '../api/schemas.js';
import { validate } from '../http/validate.js';
import { activityList } from '../../web/templates/activity.js';
import { adminActivityPage } from '../../web/templates/admin.js';
import { viewerOf } from './middleware.js';
import { sendPage, wantsLivePart } from './send.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';

/** A filter form's query, checked as REST checks it; the empty fields a form sends mean "any". */
export function pageFilter<S extends AnySchema>(ctx: PageContext, schema: S): InferType<S> {
  const filled: Record<string, string> = {};
  for (const [key, value] of Object.entries(ctx.query)) {
    if (Array.isArray(value)) return validate(schema, ctx.query, 'query');
    if (value) filled[key] = value.trim();
  }
  return validate(schema, filled, 'query');
}

async function adminActivity(ctx: PageContext, deps: PageDeps): Promise<void> {
  const q = pageFilter(ctx, adminActivityQuery);
  const filter = { person: q.person, workspace: q.workspace, kind: q.kind };
  const entries = await readActivity(ctx.state.kube, {}, { ...filter, limit: limitOf(q.limit) });
  if (wantsLivePart(ctx)) return sendPage(ctx, activityList(entries, deps.now(), true).text);
  const query = new URLSearchParams(Object.entries({ ...filter, limit: q.limit }).filter((kv): kv is [string, string] => !!kv[1])).toString();
  sendPage(ctx, adminActivityPage(ctx.state.assets, viewerOf(ctx)!, { kinds: ACTIVITY_KINDS, filter, query, entries, now: deps.now() }));
}

async function workspaceActivityList(ctx: PageContext, deps: PageDeps): Promise<void> {
  const q = pageFilter(ctx, activityFilterQuery);
  const entries = await readActivity(ctx.state.kube, { namespace: ctx.state.caller.namespace, workspace: ctx.params.name! }, { person: q.person, kind: q.kind, limit: limitOf(q.limit) });
  sendPage(ctx, activityList(entries, deps.now(), false).text);
}

export function mountActivityPages(router: PageRouter, deps: PageDeps): void {
  router.get('/admin/activity', (ctx) => adminActivity(ctx, deps));
  router.get('/w/:name/activity', (ctx) => workspaceActivityList(ctx, deps));
}
