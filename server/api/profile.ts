// SPEC 4.5: password change for a session that signed in with a local password. The
// account comes from the session; a wrong current password is a 400 (not 401, which
// would read as "your session ended"), and counts as a failed login for throttling.
// Also the person's saved SSH keys (their UserSpace's spec.sshAuthorizedKeys, read and
// patched with their own forwarded token: SPEC 1.2 rule 6), for `den config-ssh`.
import type Router from '@koa/router';
import type { KubeClient } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { checkAuthorizedKey } from '../../ssh/authorized-keys.js';
import { HttpError } from '../../koa/errors.js';
import { noQuery, validateBody, validateQuery } from '../http/validate.js';
import type { CoreState, Credential } from '../auth/authenticate.js';
import type { Caller } from '../http/context.js';
import type { LocalUserStore } from '../auth/local-users.js';
import { verifyPassword } from '../auth/passwords.js';
import type { SessionStore } from '../auth/sessions.js';
import type { LoginThrottle } from '../auth/throttle.js';
import { passwordRequest, sshKeyRequest } from './account-schemas.js';
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
  if (!(await verifyPassword(req.current_password, user.passwordHash))) throw new HttpError(400, 'current_password is wrong: type the password you sign in with now. Your password was not changed.');
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

interface OwnUserSpace {
  spec?: { sshAuthorizedKeys?: string[] };
}

/** The keys saved in `caller`'s UserSpace, read with their own token. */
export async function savedKeysOf(kube: KubeClient, caller: Caller): Promise<string[]> {
  const us = await kube.get<OwnUserSpace>(RESOURCES.userSpace, caller.userspace);
  return us.spec?.sshAuthorizedKeys ?? [];
}

/** Saves `key` (one line, spaces collapsed) in `caller`'s UserSpace unless it is there; REST and the profile page both call it. */
export async function addSavedKeyOf(kube: KubeClient, caller: Caller, raw: string): Promise<string[]> {
  const key = raw.trim().replace(/\s+/g, ' ');
  const check = checkAuthorizedKey(key);
  if (!check.ok) throw new HttpError(400, `the key ${check.reason}`);
  const keys = await savedKeysOf(kube, caller);
  if (keys.includes(key)) return keys;
  await kube.patch(RESOURCES.userSpace, caller.userspace, { spec: { sshAuthorizedKeys: [...keys, key] } });
  return [...keys, key];
}

async function listKeys(ctx: Router.RouterContext<CoreState>): Promise<void> {
  validateQuery(ctx, noQuery);
  ctx.body = { items: await savedKeysOf(ctx.state.kube, ctx.state.caller) };
}

async function addKey(ctx: Router.RouterContext<CoreState>): Promise<void> {
  validateQuery(ctx, noQuery);
  const req = validateBody(ctx, sshKeyRequest);
  ctx.body = { items: await addSavedKeyOf(ctx.state.kube, ctx.state.caller, req.key) };
}

export function mountProfileRoutes(router: Router<CoreState>, deps: ProfileRouteDeps): void {
  router.post('/profile/password', (ctx) => changePassword(ctx, deps));
  router.get('/profile/ssh-keys', listKeys);
  router.post('/profile/ssh-keys', addKey);
}
