// GET /profile and its forms: quota usage, my SSH keys (my own UserSpace, patched with my
// token: SPEC 1.2 rule 6), my environment variables and git credentials (server/api/personal-store.ts), my API tokens and my password, through the same functions as
// REST (server/api/tokens.ts, server/api/profile.ts). A refusal is shown beside the
// form it is about; the page is rendered again, never a stack trace.
import { RESOURCES } from '../../kube/resources.js';
import type { HomeClaim, PodRequests } from '../../contract/quota-use.js';
import type { Workspace } from '../../contract/workspace.js';
import { profilePage, type ProfileView } from '../../web/templates/profile.js';
import { HttpError } from '../../koa/errors.js';
import type { ClientAddressState } from '../http/client-address.js';
import { addSavedKeyOf, changePasswordOf, savedKeysOf } from '../api/profile.js';
import { issueTokenQuery, passwordRequest } from '../api/account-schemas.js';
import { installCommand, npmInstallCommand } from '../api/cli-distribution.js';
import { LAPTOP_NODE } from '../../process/version.js';
import { describeToken, issueTokenFor, revokeTokenOf } from '../api/tokens.js';
import { dotfilesOf, removeDotfiles, setDotfiles } from '../api/dotfiles-store.js';
import { checkEnvValue, checkGitHost, checkGitToken, gitCredentialRequest } from '../api/personal.js';
import { gitCredentialLinesOf, listEnv, readGitCredentialsSecret, removeEnv, removeGitCredential, setEnv, setGitCredential } from '../api/personal-store.js';
import { removeSshKey, setSshKey, sshKeyLinesOf } from '../api/ssh-key-store.js';
import type { PersonalView } from '../../web/templates/profile-personal.js';
import { viewerOf } from './middleware.js';
import { refusalOf } from './refusal.js';
import { quotaLines } from './new.js';
import { sendPage } from './send.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';

interface OwnUserSpace {
  spec?: { quota?: Record<string, unknown>; sshAuthorizedKeys?: string[] };
}

type Extra = Pick<ProfileView, 'issued' | 'error' | 'done'> & { personalError?: PersonalView['error']; sshKeyError?: PersonalView['sshKeyError'] };

async function render(ctx: PageContext, deps: PageDeps, extra: Extra = {}, status = 200): Promise<void> {
  const { kube, caller, assets } = ctx.state;
  const [userSpace, workspaces, pods, claims] = await Promise.all([
    kube.get<OwnUserSpace>(RESOURCES.userSpace, caller.userspace),
    kube.list<Workspace>(RESOURCES.workspace, { namespace: caller.namespace }),
    kube.list<PodRequests>(RESOURCES.pod, { namespace: caller.namespace }),
    kube.list<HomeClaim>(RESOURCES.persistentVolumeClaim, { namespace: caller.namespace }),
  ]);
  const view: ProfileView = {
    quota: quotaLines(userSpace, workspaces.items, deps.resources.gpuResource, pods.items, claims.items),
    keys: userSpace.spec?.sshAuthorizedKeys ?? [],
    tokens: (await deps.auth.tokens.list(caller.email)).map(describeToken).map((t) => ({ name: t.name, createdAt: t.created_at })),
    localLogin: caller.localLogin,
    username: caller.username,
    install: { curl: installCommand(deps.baseUrl), npm: npmInstallCommand(deps.baseUrl), node: LAPTOP_NODE },
    personal: { ...(await personalOf(ctx)), error: extra.personalError, sshKeyError: extra.sshKeyError },
    ...extra,
  };
  sendPage(ctx, profilePage(assets, viewerOf(ctx)!, view), status);
}

/** My variables and git credentials, or why they cannot be shown (the page still renders). */
async function personalOf(ctx: PageContext): Promise<PersonalView> {
  const { kube, caller } = ctx.state;
  try {
    const [env, git] = await Promise.all([listEnv(kube, caller.namespace), readGitCredentialsSecret(kube, caller.namespace)]);
    return { env, gitCredentials: gitCredentialLinesOf(git), dotfiles: dotfilesOf(git).url, sshKeys: sshKeyLinesOf(git) };
  } catch (err) {
    return { unreadable: refusal(err).message };
  }
}

async function saveEnv(ctx: PageContext, deps: PageDeps): Promise<void> {
  const form = ctx.request.form ?? {};
  const name = (form.name ?? '').trim();
  try {
    const value = form.value ?? '';
    checkEnvValue(value);
    await setEnv(ctx.state.kube, ctx.state.caller.namespace, name, value, form.secret === 'true');
    ctx.redirect('/profile?done=env-saved');
  } catch (err) {
    const { message, status, cluster } = refusal(err);
    await render(ctx, deps, { personalError: { form: 'env', message, cluster, name } }, status);
  }
}

async function forgetEnv(ctx: PageContext, deps: PageDeps): Promise<void> {
  try {
    await removeEnv(ctx.state.kube, ctx.state.caller.namespace, ctx.request.form?.name ?? '');
    ctx.redirect('/profile?done=env-removed');
  } catch (err) {
    const { message, status } = refusal(err);
    await render(ctx, deps, { personalError: { form: 'env', message } }, status);
  }
}

async function saveGitCredential(ctx: PageContext, deps: PageDeps): Promise<void> {
  const form = ctx.request.form ?? {};
  const host = (form.host ?? '').trim().toLowerCase();
  try {
    checkGitHost(host);
    const req = gitCredentialRequest.validateSync({ token: (form.token ?? '').trim(), ...(form.username?.trim() ? { username: form.username.trim() } : {}) }, { strict: true });
    checkGitToken(req.token);
    await setGitCredential(ctx.state.kube, ctx.state.caller.namespace, { host, token: req.token, username: req.username });
    ctx.redirect('/profile?done=git-saved');
  } catch (err) {
    const { message, status, cluster } = refusal(err);
    await render(ctx, deps, { personalError: { form: 'git', message, cluster, host } }, status);
  }
}

async function forgetGitCredential(ctx: PageContext, deps: PageDeps): Promise<void> {
  try {
    const host = ctx.request.form?.host ?? '';
    checkGitHost(host);
    await removeGitCredential(ctx.state.kube, ctx.state.caller.namespace, host);
    ctx.redirect('/profile?done=git-removed');
  } catch (err) {
    const { message, status } = refusal(err);
    await render(ctx, deps, { personalError: { form: 'git', message } }, status);
  }
}

async function saveDotfiles(ctx: PageContext, deps: PageDeps): Promise<void> {
  const url = (ctx.request.form?.url ?? '').trim();
  try {
    await setDotfiles(ctx.state.kube, ctx.state.caller.namespace, url);
    ctx.redirect('/profile?done=dotfiles-saved');
  } catch (err) {
    const { message, status, cluster } = refusal(err);
    await render(ctx, deps, { personalError: { form: 'dotfiles', message, cluster, url } }, status);
  }
}

async function forgetDotfiles(ctx: PageContext, deps: PageDeps): Promise<void> {
  try {
    await removeDotfiles(ctx.state.kube, ctx.state.caller.namespace);
    ctx.redirect('/profile?done=dotfiles-removed');
  } catch (err) {
    const { message, status } = refusal(err);
    await render(ctx, deps, { personalError: { form: 'dotfiles', message } }, status);
  }
}

async function saveSshKey(ctx: PageContext, deps: PageDeps): Promise<void> {
  const form = ctx.request.form ?? {};
  const host = (form.host ?? '').trim().toLowerCase();
  const knownHost = (form.ssh_known_host ?? '').trim();
  try {
    checkGitHost(host);
    await setSshKey(ctx.state.kube, ctx.state.caller.namespace, host, form.ssh_private_key ?? '', knownHost);
    ctx.redirect('/profile?done=ssh-key-saved');
  } catch (err) {
    const { message, status, cluster } = refusal(err);
    await render(ctx, deps, { sshKeyError: { message, cluster, host, knownHost } }, status);
  }
}

async function forgetSshKey(ctx: PageContext, deps: PageDeps): Promise<void> {
  try {
    const host = ctx.request.form?.host ?? '';
    checkGitHost(host);
    await removeSshKey(ctx.state.kube, ctx.state.caller.namespace, host);
    ctx.redirect('/profile?done=ssh-key-removed');
  } catch (err) {
    const { message, status } = refusal(err);
    await render(ctx, deps, { sshKeyError: { message } }, status);
  }
}

/** A refusal as the profile shows it beside its form (./refusal.ts); anything else is re-thrown. */
function refusal(err: unknown): { message: string; status: number; cluster?: string } {
  const { said, status, cluster } = refusalOf(err);
  return { message: said, status, cluster };
}

async function addKey(ctx: PageContext, deps: PageDeps): Promise<void> {
  const key = (ctx.request.form?.key ?? '').trim().replace(/\s+/g, ' ');
  try {
    await addSavedKeyOf(ctx.state.kube, ctx.state.caller, key);
    ctx.redirect('/profile?done=key-added');
  } catch (err) {
    const { message, status, cluster } = refusal(err);
    await render(ctx, deps, { error: { form: 'keys', message, cluster, value: key } }, status);
  }
}

async function removeKey(ctx: PageContext, deps: PageDeps): Promise<void> {
  const key = ctx.request.form?.key ?? '';
  try {
    const keys = await savedKeysOf(ctx.state.kube, ctx.state.caller);
    if (!keys.includes(key)) throw new HttpError(404, 'that key is not among your saved keys (it may have been removed already)');
    await ctx.state.kube.patch(RESOURCES.userSpace, ctx.state.caller.userspace, { spec: { sshAuthorizedKeys: keys.filter((k) => k !== key) } });
    ctx.redirect('/profile?done=key-removed');
  } catch (err) {
    const { message, status } = refusal(err);
    await render(ctx, deps, { error: { form: 'keys', message } }, status);
  }
}

async function issueToken(ctx: PageContext, deps: PageDeps): Promise<void> {
  const form = ctx.request.form ?? {};
  const request = Object.fromEntries(Object.entries({ name: form.name?.trim(), scope: form.scope }).filter(([, v]) => v));
  try {
    const req = issueTokenQuery.validateSync(request, { strict: true });
    const { token, record } = await issueTokenFor({ tokens: deps.auth.tokens, now: deps.now, log: deps.log }, ctx.state.caller, req, 'web');
    // The plaintext is in this answer only: no redirect, so it never sits in a URL or history entry.
    await render(ctx, deps, { issued: { name: record.name, token, scope: record.scope } }, 201);
  } catch (err) {
    const { message, status } = refusal(err);
    await render(ctx, deps, { error: { form: 'tokens', message } }, status);
  }
}

async function revokeToken(ctx: PageContext, deps: PageDeps): Promise<void> {
  try {
    await revokeTokenOf({ tokens: deps.auth.tokens, now: deps.now, log: deps.log }, ctx.state.caller, ctx.params.name!, 'web');
    ctx.redirect('/profile?done=token-revoked');
  } catch (err) {
    const { message, status } = refusal(err);
    await render(ctx, deps, { error: { form: 'tokens', message } }, status);
  }
}

async function changePassword(ctx: PageContext, deps: PageDeps): Promise<void> {
  const form = ctx.request.form ?? {};
  try {
    const req = passwordRequest.validateSync({ current_password: form.current_password ?? '', new_password: form.new_password ?? '' }, { strict: true });
    await changePasswordOf({ ...deps.auth, now: deps.now }, ctx.state.caller, ctx.state.credential, req, (ctx.state as ClientAddressState).clientAddress);
    ctx.redirect('/profile?done=password-changed');
  } catch (err) {
    const { message, status } = refusal(err);
    await render(ctx, deps, { error: { form: 'password', message } }, status);
  }
}

const DONE: Record<string, string> = {
  'key-added': 'The key was saved.',
  'key-removed': 'The key was removed.',
  'token-revoked': 'The token was revoked.',
  'password-changed': 'Your password was changed; your other sessions were signed out.',
  'env-saved': 'The variable was saved; your workspaces get it at their next start.',
  'env-removed': 'The variable was removed; your workspaces lose it at their next start.',
  'git-saved': 'The token was saved; git in your workspaces uses it.',
  'git-removed': 'The token was forgotten.',
  'dotfiles-saved': 'Your dotfiles repository was saved; each new workspace clones it on its first start.',
  'dotfiles-removed': 'Your dotfiles repository was forgotten.',
  'ssh-key-saved': 'The SSH key was saved; a workspace cloning an SSH address of its host uses it.',
  'ssh-key-removed': 'The SSH key was forgotten.',
};

export function mountProfilePages(router: PageRouter, deps: PageDeps): void {
  router.get('/profile', (ctx) => {
    const key = String(ctx.query.done ?? '');
    return render(ctx, deps, Object.hasOwn(DONE, key) ? { done: DONE[key] } : {});
  });
  router.post('/profile/keys', (ctx) => addKey(ctx, deps));
  router.post('/profile/keys/remove', (ctx) => removeKey(ctx, deps));
  router.post('/profile/tokens', (ctx) => issueToken(ctx, deps));
  router.post('/profile/tokens/:name/revoke', (ctx) => revokeToken(ctx, deps));
  router.post('/profile/password', (ctx) => changePassword(ctx, deps));
  router.post('/profile/env', (ctx) => saveEnv(ctx, deps));
  router.post('/profile/env/remove', (ctx) => forgetEnv(ctx, deps));
  router.post('/profile/git-credentials', (ctx) => saveGitCredential(ctx, deps));
  router.post('/profile/git-credentials/remove', (ctx) => forgetGitCredential(ctx, deps));
  router.post('/profile/dotfiles', (ctx) => saveDotfiles(ctx, deps));
  router.post('/profile/dotfiles/remove', (ctx) => forgetDotfiles(ctx, deps));
  router.post('/profile/git-credentials/ssh-key', (ctx) => saveSshKey(ctx, deps));
  router.post('/profile/git-credentials/ssh-key/remove', (ctx) => forgetSshKey(ctx, deps));
}
