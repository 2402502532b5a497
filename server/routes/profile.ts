// SPEC 4.5: password change for a session that signed in with a local password. The
// account comes from the session; a wrong current password is a 400 (not 401, which
// would read as "your session ended"), and counts as a failed login for throttling.
import type Router from '@koa/router';
import { HttpError } from '../../koa/errors.js';
import { noQuery, validateBody, validateQuery } from '../http/validate.js';
import type { CoreState, Credential } from '../auth/authenticate.js';
import type { Caller } from '../http/context.js';
import type { LocalUserStore } from '../auth/local-users.js';
import { verifyPassword } from '../auth/passwords.js';
import type { SessionStore } from '../auth/sessions.js';
import type { LoginThrottle } from '../auth/throttle.js';
import { passwordRequest } from './schemas.js';
import { beginPasswordAttempt } from './session.js';

export interface ProfileRouteDeps {
  localUsers: LocalUserStore;
  sessions: SessionStore;
  throttle: LoginThrottle;
  now: () => number;
}

/** The password change of SPEC 4.5 for `caller`; REST and the profile page both call it. */
export async function changePasswordOf(deps: ProfileRouteDeps, caller: Caller, credential: Credential, req: { current_password: string; new_password: string }, clientAddress: string): Promise<void> {
  if (credential.kind !== 'cookie' || !caller.localLogin || !caller.username) {
    throw new HttpError(409, 'this session did not sign in with a local username and password, so it has no password to change');
  }
  const user = await deps.localUsers.get(caller.username);
  if (!user || user.owner !== caller.email) throw new HttpError(409, `the account ${caller.email} has no local password (local user ${caller.username} no longer exists)`);
  const attempt = { username: user.username, address: clientAddress };
  beginPasswordAttempt(deps.throttle, attempt, deps.now());
  if (!(await verifyPassword(req.current_password, user.passwordHash))) throw new HttpError(400, 'current_password is wrong');
  deps.throttle.recordSuccess(attempt);
  await deps.localUsers.setPassword(user.username, req.new_password);
  // Whoever else knew the old password is signed out; this session stays.
  await deps.sessions.destroyForUsername(user.username, credential.session.secretName);
}

async function changePassword(ctx: Router.RouterContext<CoreState>, deps: ProfileRouteDeps): Promise<void> {
  validateQuery(ctx, noQuery);
  const req = validateBody(ctx, passwordRequest);
  await changePasswordOf(deps, ctx.state.caller, ctx.state.credential, req, ctx.state.clientAddress);
  ctx.status = 204;
}

export function mountProfileRoutes(router: Router<CoreState>, deps: ProfileRouteDeps): void {
  router.post('/profile/password', (ctx) => changePassword(ctx, deps));
}
