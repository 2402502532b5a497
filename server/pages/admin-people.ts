// The people and quota pages of the administration: UserSpaces (membership, disabled), local
// users when local sign-in is on, and each person's quota beside what they use.
import type { KubeObject } from '../../kube/client.js';
import { isDisabled, roleOf } from '../../contract/user-space.js';
import { RESOURCES } from '../../kube/resources.js';
import { adminQuotaPage, adminUsersPage, type PersonLine, type SchedulePolicyValues } from '../../web/templates/admin-people.js';
import { HttpError } from '../../koa/errors.js';
import { membershipPatch, quotaOf, quotaPatch, schedulePolicyLineOf, schedulePolicyPatch, userSpaceObject, type SchedulePolicyLine } from '../api/mapping.js';
import { membershipRequest, quotaRequest, schedulePolicyRequest, userSpaceRequest } from '../api/schemas.js';
import { DEFAULT_QUOTA, userSpacesWithUsage } from '../api/userspaces.js';
import { createLocalUserOf, deleteLocalUserOf } from '../api/local-users.js';
import { localUserRequest } from '../api/account-schemas.js';
import { requireAdministrator } from '../auth/admin.js';
import { viewerOf } from './middleware.js';
import { sendPage } from './send.js';
import { action, checked, doneOf, formRequest, nameOf, nameParam, specOf, statusOf, type On, type Render } from './admin-forms.js';
import type { PageDeps, PageRouter } from './types.js';

/** A UserSpace as a line of the people table. */
export function personLine(u: KubeObject): PersonLine {
  return { name: nameOf(u), owner: String(specOf(u).owner ?? ''), role: roleOf(u), disabled: isDisabled(u), phase: String(statusOf(u).phase ?? 'Pending') };
}

const renderUsers: Render = async (ctx, deps, outcome, status = 200) => {
  const { kube, caller, assets } = ctx.state;
  const people = await kube.list(RESOURCES.userSpace);
  // Local users are the server's own records: shown only to whom the cluster calls an administrator.
  if (deps.localAuth) await requireAdministrator(kube, caller);
  sendPage(
    ctx,
    adminUsersPage(
      assets,
      viewerOf(ctx)!,
      {
        people: people.items
          .map(personLine)
          .sort((a, b) => a.name.localeCompare(b.name)),
        localAuth: deps.localAuth,
        localUsers: deps.localAuth ? (await deps.auth.localUsers.list()).map((u) => ({ username: u.username, owner: u.owner })).sort((a, b) => a.username.localeCompare(b.username)) : [],
      },
      outcome,
    ),
    status,
  );
};

function requireLocalAuth(deps: PageDeps): void {
  if (!deps.localAuth) throw new HttpError(404, 'local user management is disabled (--local-auth=false)');
}

/** null (none set) as the empty field that, saved, keeps none. */
function formValues(line: SchedulePolicyLine): SchedulePolicyValues {
  return { max_running_limit: line.max_running_limit ?? '', default_max_running: line.default_max_running ?? '', default_autostop: line.default_autostop ?? '', time_zone: line.time_zone ?? '' };
}

const renderQuota: Render = async (ctx, deps, outcome, status = 200) => {
  const { kube, assets } = ctx.state;
  const items = await userSpacesWithUsage(kube, deps.resources.gpuResource);
  const lines = items.map((u) => ({ name: nameOf(u), owner: String(specOf(u).owner ?? ''), quota: quotaOf(u), usage: u.usage, schedules: formValues(schedulePolicyLineOf(u)) })).sort((a, b) => a.name.localeCompare(b.name));
  sendPage(ctx, adminQuotaPage(assets, viewerOf(ctx)!, lines, outcome), status);
};

export function mountPeoplePages(router: PageRouter, deps: PageDeps, on: On): void {
  const name = nameParam;
  router.get('/admin/users', (ctx) => renderUsers(ctx, deps, doneOf(ctx)));
  router.post('/admin/users', on(action(renderUsers, '/admin/users', 'person-created', () => 'person', async (ctx) => {
    const req = checked(userSpaceRequest, formRequest(ctx.request.form ?? {}, { name: 'string', owner: 'string', role: 'string' }, false));
    await ctx.state.kube.create(RESOURCES.userSpace, userSpaceObject(req, DEFAULT_QUOTA));
  })));
  router.post('/admin/users/local', on(action(renderUsers, '/admin/users', 'local-user-created', () => 'local', async (ctx, d) => {
    requireLocalAuth(d);
    await requireAdministrator(ctx.state.kube, ctx.state.caller);
    const req = checked(localUserRequest, formRequest(ctx.request.form ?? {}, { username: 'string', password: 'string', owner: 'string' }, false));
    await createLocalUserOf({ localUsers: d.auth.localUsers, now: d.now }, req);
  })));
  router.post('/admin/users/local/:name/delete', on(action(renderUsers, '/admin/users', 'local-user-deleted', () => 'local', async (ctx, d) => {
    requireLocalAuth(d);
    await requireAdministrator(ctx.state.kube, ctx.state.caller);
    await deleteLocalUserOf(d.auth, name(ctx));
  })));
  router.post('/admin/users/:name/membership', on(action(renderUsers, '/admin/users', 'membership-saved', () => 'membership', async (ctx) => {
    const req = checked(membershipRequest, formRequest(ctx.request.form ?? {}, { role: 'string', disabled: 'boolean' }, false));
    await ctx.state.kube.patch(RESOURCES.userSpace, name(ctx), membershipPatch(req));
  })));

  router.get('/admin/quota', (ctx) => renderQuota(ctx, deps, doneOf(ctx)));
  router.post('/admin/quota/:name', on(action(renderQuota, '/admin/quota', 'quota-saved', (ctx) => `quota-${name(ctx)}`, async (ctx) => {
    const req = checked(quotaRequest, formRequest(ctx.request.form ?? {}, { workspaces: 'integer', cpu: 'string', memory: 'string', storage: 'string', gpu: 'integer' }, false));
    await ctx.state.kube.patch(RESOURCES.userSpace, name(ctx), quotaPatch(req));
  })));
  // Every field is sent: an emptied one removes its part, so what the form shows is what is kept.
  router.post('/admin/quota/:name/schedules', on(action(renderQuota, '/admin/quota', 'schedules-saved', (ctx) => `schedules-${name(ctx)}`, async (ctx) => {
    const req = checked(schedulePolicyRequest, formRequest(ctx.request.form ?? {}, { max_running_limit: 'string', default_max_running: 'string', default_autostop: 'string', time_zone: 'string' }, true));
    await ctx.state.kube.patch(RESOURCES.userSpace, name(ctx), schedulePolicyPatch(req));
  })));
}
