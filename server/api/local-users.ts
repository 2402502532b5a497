// SPEC 4.6, local users: administrator-only, and absent (404) when local authentication
// is off. The users live in Secrets the server writes with its own identity, so the
// administrator check is an access review made with the caller's forwarded token.
import type Router from '@koa/router';
import { HttpError } from '../../koa/errors.js';
import { noQuery, validateBody, validateQuery } from '../http/validate.js';
import { requireAdministrator } from '../auth/admin.js';
import type { CoreState } from '../auth/authenticate.js';
import { LocalUserExistsError, type LocalUser, type LocalUserStore } from '../auth/local-users.js';
import type { SessionStore } from '../auth/sessions.js';
import { localUserRequest } from './account-schemas.js';

export interface LocalUserRouteDeps {
  localAuth: boolean;
  localUsers: LocalUserStore;
  sessions: SessionStore;
  now: () => number;
}

type AdminContext = Router.RouterContext<CoreState>;

function describeLocalUser(user: LocalUser) {
  return { name: user.username, username: user.username, owner: user.owner };
}

function localUserManagement(deps: LocalUserRouteDeps): Router.Middleware<CoreState> {
  return async function enabledForAdministrators(ctx, next): Promise<void> {
    if (!deps.localAuth) throw new HttpError(404, 'local user management is disabled');
    const { kube, caller } = ctx.state;
    await requireAdministrator(kube, caller);
    await next();
  };
}

async function listLocalUsers(ctx: AdminContext, deps: LocalUserRouteDeps): Promise<void> {
  validateQuery(ctx, noQuery);
  ctx.body = { items: (await deps.localUsers.list()).map(describeLocalUser) };
}

/** Creates a local user of a checked request; REST and the admin page both call it (after the administrator check). */
export async function createLocalUserOf(deps: Pick<LocalUserRouteDeps, 'localUsers' | 'now'>, req: { username: string; password: string; owner: string }): Promise<LocalUser> {
  try {
    return await deps.localUsers.create(req, deps.now());
  } catch (err) {
    if (err instanceof LocalUserExistsError) throw new HttpError(409, err.message);
    throw err;
  }
}

/** Removes a local user and ends their sessions. */
export async function deleteLocalUserOf(deps: Pick<LocalUserRouteDeps, 'localUsers' | 'sessions'>, name: string): Promise<void> {
  if (!(await deps.localUsers.remove(name))) throw new HttpError(404, `no local user named ${name}`);
  await deps.sessions.destroyForUsername(name);
}

async function createLocalUser(ctx: AdminContext, deps: LocalUserRouteDeps): Promise<void> {
  validateQuery(ctx, noQuery);
  const req = validateBody(ctx, localUserRequest);
  ctx.body = describeLocalUser(await createLocalUserOf(deps, req));
  ctx.status = 201;
}

async function deleteLocalUser(ctx: AdminContext, deps: LocalUserRouteDeps): Promise<void> {
  validateQuery(ctx, noQuery);
  await deleteLocalUserOf(deps, ctx.params.name!);
  ctx.status = 204;
}

export function mountLocalUserRoutes(router: Router<CoreState>, deps: LocalUserRouteDeps): void {
  const guard = localUserManagement(deps);
  router.get('/admin/local-users', guard, (ctx) => listLocalUsers(ctx, deps));
  router.post('/admin/local-users', guard, (ctx) => createLocalUser(ctx, deps));
  router.delete('/admin/local-users/:name', guard, (ctx) => deleteLocalUser(ctx, deps));
}
