// REST for the person's own variables and git credentials (docs/personal-env.md):
//   GET /profile/env, PUT and DELETE /profile/env/{variable}
//   GET /profile/git-credentials, PUT and DELETE /profile/git-credentials/{host}
//   GET, PUT and DELETE /profile/dotfiles
//   PUT and DELETE /profile/git-credentials/{host}/ssh-key (an SSH key and the host's key)
// Each call runs with the caller's forwarded token against their own namespace (GET may name
// another `namespace`, and the cluster answers 403 for anyone else's). A secret value is never
// answered, a token never.
import type Router from '@koa/router';
import { HttpError } from '../../koa/errors.js';
import { exact, fields, noQuery, validateBody, validateQuery } from '../http/validate.js';
import type { CoreState } from '../auth/authenticate.js';
import { DNS1123_LABEL, DNS1123_LABEL_MAX } from '../../kube/names.js';
import { ENV_VALUE_MAX, GIT_HOST_MAX, GIT_HOST_PATTERN, GIT_PROTOCOLS, GIT_TOKEN_MAX, GIT_USERNAME_MAX } from '../../contract/personal.js';
import { readDotfiles, removeDotfiles, setDotfiles } from './dotfiles-store.js';
import { removeSshKey, setSshKey, sshKeyLinesOf } from './ssh-key-store.js';
import { gitCredentialLinesOf, listEnv, readGitCredentialsSecret, removeEnv, removeGitCredential, setEnv, setGitCredential } from './personal-store.js';

type Context = Router.RouterContext<CoreState>;

const NAMESPACE_RULE = 'namespace must be 1-63 lower-case letters, digits or "-", starting and ending with a letter or digit';
export const namespaceQuery = exact({ namespace: fields.string().max(DNS1123_LABEL_MAX, NAMESPACE_RULE).matches(DNS1123_LABEL, NAMESPACE_RULE) });

export const envRequest = exact({
  value: fields.string().defined('value is required'),
  secret: fields.boolean(),
});

export const gitCredentialRequest = exact({
  token: fields.string().required('token is required'),
  username: fields.string().max(GIT_USERNAME_MAX, `username must be at most ${GIT_USERNAME_MAX} characters`).matches(/^[^\s:@/]*$/, 'username must not contain spaces, ":", "@" or "/"'),
  protocol: fields.string().oneOf([...GIT_PROTOCOLS], 'protocol must be https or http'),
});

export const sshKeyRequest = exact({
  ssh_private_key: fields.string().required('ssh_private_key is required: the contents of the private key file Den clones with'),
  ssh_known_host: fields.string().required('ssh_known_host is required: one line of ssh-keyscan <host>, so Den can check it talks to the real host'),
});

/** 400 naming `value` when it is too long or holds what no environment string can. */
export function checkEnvValue(value: string): void {
  if (Buffer.byteLength(value, 'utf8') > ENV_VALUE_MAX) throw new HttpError(400, `value must be at most ${ENV_VALUE_MAX} bytes`);
  if (value.includes('\0')) throw new HttpError(400, 'value must not contain a NUL character');
}

/** 400 naming the field when `host` is not a git host Den keeps a credential for. */
export function checkGitHost(host: string): void {
  if (host.length === 0 || host.length > GIT_HOST_MAX || !GIT_HOST_PATTERN.test(host)) {
    throw new HttpError(400, `host "${host}" is not a git host: give a lower-case host name with an optional port, such as github.com or git.example.com:8443 (no scheme, no path)`);
  }
}

/** 400 naming `token` unless it is one line of printable characters. */
export function checkGitToken(token: string): void {
  if (token.length > GIT_TOKEN_MAX) throw new HttpError(400, `token must be at most ${GIT_TOKEN_MAX} characters`);
  if (!/^[\x21-\x7e]+$/.test(token)) throw new HttpError(400, 'token must be one word of printable ASCII characters (no spaces or line breaks)');
}

function namespaceOf(ctx: Context): string {
  return validateQuery(ctx, namespaceQuery).namespace || ctx.state.caller.namespace;
}

async function getEnv(ctx: Context): Promise<void> {
  ctx.body = { items: await listEnv(ctx.state.kube, namespaceOf(ctx)) };
}

async function putEnv(ctx: Context): Promise<void> {
  validateQuery(ctx, noQuery);
  const req = validateBody(ctx, envRequest);
  checkEnvValue(req.value);
  ctx.body = await setEnv(ctx.state.kube, ctx.state.caller.namespace, ctx.params.variable!, req.value, req.secret ?? true);
}

async function deleteEnv(ctx: Context): Promise<void> {
  validateQuery(ctx, noQuery);
  await removeEnv(ctx.state.kube, ctx.state.caller.namespace, ctx.params.variable!);
  ctx.status = 204;
}

async function getGitCredentials(ctx: Context): Promise<void> {
  const namespace = namespaceOf(ctx);
  const secret = await readGitCredentialsSecret(ctx.state.kube, namespace);
  ctx.body = { items: gitCredentialLinesOf(secret), ssh_keys: sshKeyLinesOf(secret) };
}

async function putGitCredential(ctx: Context): Promise<void> {
  validateQuery(ctx, noQuery);
  const host = ctx.params.host!;
  checkGitHost(host);
  const req = validateBody(ctx, gitCredentialRequest);
  checkGitToken(req.token);
  ctx.body = await setGitCredential(ctx.state.kube, ctx.state.caller.namespace, { host, token: req.token, username: req.username, protocol: req.protocol as 'https' | 'http' | undefined });
}

async function deleteGitCredential(ctx: Context): Promise<void> {
  validateQuery(ctx, noQuery);
  checkGitHost(ctx.params.host!);
  await removeGitCredential(ctx.state.kube, ctx.state.caller.namespace, ctx.params.host!);
  ctx.status = 204;
}

export const dotfilesRequest = exact({ url: fields.string().required('url is required') });

async function getDotfiles(ctx: Context): Promise<void> {
  ctx.body = await readDotfiles(ctx.state.kube, namespaceOf(ctx));
}

async function putDotfiles(ctx: Context): Promise<void> {
  validateQuery(ctx, noQuery);
  const req = validateBody(ctx, dotfilesRequest);
  ctx.body = await setDotfiles(ctx.state.kube, ctx.state.caller.namespace, req.url);
}

async function deleteDotfiles(ctx: Context): Promise<void> {
  validateQuery(ctx, noQuery);
  await removeDotfiles(ctx.state.kube, ctx.state.caller.namespace);
  ctx.status = 204;
}

async function putSshKey(ctx: Context): Promise<void> {
  validateQuery(ctx, noQuery);
  const host = ctx.params.host!;
  checkGitHost(host);
  const req = validateBody(ctx, sshKeyRequest);
  ctx.body = await setSshKey(ctx.state.kube, ctx.state.caller.namespace, host, req.ssh_private_key, req.ssh_known_host);
}

async function deleteSshKey(ctx: Context): Promise<void> {
  validateQuery(ctx, noQuery);
  checkGitHost(ctx.params.host!);
  await removeSshKey(ctx.state.kube, ctx.state.caller.namespace, ctx.params.host!);
  ctx.status = 204;
}

export function mountPersonalRoutes(router: Router<CoreState>): void {
  router.get('/profile/dotfiles', getDotfiles);
  router.put('/profile/dotfiles', putDotfiles);
  router.delete('/profile/dotfiles', deleteDotfiles);
  router.get('/profile/env', getEnv);
  router.put('/profile/env/:variable', putEnv);
  router.delete('/profile/env/:variable', deleteEnv);
  router.get('/profile/git-credentials', getGitCredentials);
  router.put('/profile/git-credentials/:host', putGitCredential);
  router.delete('/profile/git-credentials/:host', deleteGitCredential);
  router.put('/profile/git-credentials/:host/ssh-key', putSshKey);
  router.delete('/profile/git-credentials/:host/ssh-key', deleteSshKey);
}
