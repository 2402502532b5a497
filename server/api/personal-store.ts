// The person's variables and git credentials (contract/personal.ts), read and written with
// their own forwarded token: the cluster's RBAC (get and patch on exactly those two Secrets in
// their own namespace) decides. Values go to the API server and nowhere else: no log line, no
// Event, no answer but a non-secret variable's own value.
import type { KubeClient } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import { HttpError } from '../../koa/errors.js';
import { rewriteObject } from './rewrite-object.js';
import {
  DEFAULT_GIT_USERNAME,
  ENV_COUNT_MAX,
  GIT_CREDENTIALS_KEY,
  GIT_CREDENTIALS_SECRET,
  PERSONAL_ENV_SECRET,
  PLAIN_NAMES_ANNOTATION,
  credentialStoreFile,
  envNameProblem,
  parseCredentialStoreFile,
  type GitProtocol,
} from '../../contract/personal.js';

export interface StoredSecret {
  metadata?: { resourceVersion?: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
}

/** One variable as REST answers it: a secret one's value is never answered. */
export interface EnvVariable {
  name: string;
  secret: boolean;
  value?: string;
}

export interface GitCredentialLine {
  host: string;
  protocol: GitProtocol;
  username: string;
}

export async function readSecret(kube: KubeClient, name: string, namespace: string): Promise<StoredSecret> {
  try {
    return await kube.get<StoredSecret>(RESOURCES.secret, name, namespace);
  } catch (err) {
    // The manager creates both Secrets with the person's namespace; a 404 is a space still being set up.
    if (err instanceof KubeApiError && err.status === 404) {
      throw new HttpError(503, `your space is still being set up (Secret ${name} does not exist yet in ${namespace}): try again in a few seconds`, { 'Retry-After': '2' });
    }
    throw err;
  }
}

/** Reads, changes and patches one Secret, conditional on its resourceVersion; a concurrent write is retried. */
export async function rewrite(kube: KubeClient, name: string, namespace: string, change: (current: StoredSecret) => object): Promise<void> {
  await rewriteObject(kube, RESOURCES.secret, name, namespace, change, { read: () => readSecret(kube, name, namespace), fieldManager: 'den-server' });
}

function plainNamesOf(secret: StoredSecret): Set<string> {
  const listed = secret.metadata?.annotations?.[PLAIN_NAMES_ANNOTATION] ?? '';
  return new Set(listed.split(',').filter(Boolean));
}

export function decode(value: string): string {
  return Buffer.from(value, 'base64').toString('utf8');
}

/** The variables kept in `namespace` (the caller's own unless they name another), sorted by name. */
export async function listEnv(kube: KubeClient, namespace: string): Promise<EnvVariable[]> {
  const secret = await readSecret(kube, PERSONAL_ENV_SECRET, namespace);
  const plain = plainNamesOf(secret);
  return Object.keys(secret.data ?? {})
    .sort()
    .map((name) => (plain.has(name) ? { name, secret: false, value: decode(secret.data![name]!) } : { name, secret: true }));
}

/** 400 naming the field when `name` cannot be a personal variable. */
export function checkEnvName(name: string): void {
  const problem = envNameProblem(name);
  if (problem) throw new HttpError(400, problem);
}

/** Sets one variable; answers it as REST shows it. */
export async function setEnv(kube: KubeClient, namespace: string, name: string, value: string, secret: boolean): Promise<EnvVariable> {
  checkEnvName(name);
  await rewrite(kube, PERSONAL_ENV_SECRET, namespace, (current) => {
    const names = Object.keys(current.data ?? {});
    if (!names.includes(name) && names.length >= ENV_COUNT_MAX) {
      throw new HttpError(400, `name: you keep ${names.length} variables, the most Den keeps: remove one (den env rm <name>) before adding ${name}`);
    }
    const plain = plainNamesOf(current);
    if (secret) plain.delete(name);
    else plain.add(name);
    return { metadata: { annotations: { [PLAIN_NAMES_ANNOTATION]: [...plain].sort().join(',') || null } }, data: { [name]: Buffer.from(value, 'utf8').toString('base64') } };
  });
  return secret ? { name, secret } : { name, secret, value };
}

export async function removeEnv(kube: KubeClient, namespace: string, name: string): Promise<void> {
  checkEnvName(name);
  await rewrite(kube, PERSONAL_ENV_SECRET, namespace, (current) => {
    if (!Object.hasOwn(current.data ?? {}, name)) throw new HttpError(404, `you have no variable named ${name}`);
    const plain = plainNamesOf(current);
    plain.delete(name);
    return { metadata: { annotations: { [PLAIN_NAMES_ANNOTATION]: [...plain].sort().join(',') || null } }, data: { [name]: null } };
  });
}

function credentialsOf(secret: StoredSecret) {
  const file = secret.data?.[GIT_CREDENTIALS_KEY];
  return file ? parseCredentialStoreFile(decode(file)) : [];
}

/** The person's den-git-credentials Secret: its tokens, SSH keys and dotfiles are each read from this one answer. */
export function readGitCredentialsSecret(kube: KubeClient, namespace: string): Promise<StoredSecret> {
  return readSecret(kube, GIT_CREDENTIALS_SECRET, namespace);
}

/** The hosts the person keeps a token for, with the username git sends; never the token. */
export function gitCredentialLinesOf(secret: StoredSecret): GitCredentialLine[] {
  return credentialsOf(secret)
    .map(({ host, protocol, username }) => ({ host, protocol, username }))
    .sort((a, b) => a.host.localeCompare(b.host));
}

/** Keeps `token` for `host` (replacing the one it had); answers the line without the token. */
export async function setGitCredential(kube: KubeClient, namespace: string, req: { host: string; token: string; username?: string; protocol?: GitProtocol }): Promise<GitCredentialLine> {
  const line = { host: req.host, protocol: req.protocol ?? 'https', username: req.username || DEFAULT_GIT_USERNAME };
  await rewrite(kube, GIT_CREDENTIALS_SECRET, namespace, (current) => {
    const others = credentialsOf(current).filter((c) => c.host !== req.host);
    const file = credentialStoreFile([...others, { ...line, token: req.token }].sort((a, b) => a.host.localeCompare(b.host)));
    return { data: { [GIT_CREDENTIALS_KEY]: Buffer.from(file, 'utf8').toString('base64') } };
  });
  return line;
}

export async function removeGitCredential(kube: KubeClient, namespace: string, host: string): Promise<void> {
  await rewrite(kube, GIT_CREDENTIALS_SECRET, namespace, (current) => {
    const all = credentialsOf(current);
    if (!all.some((c) => c.host === host)) throw new HttpError(404, `you have no git credential for ${host}`);
    const file = credentialStoreFile(all.filter((c) => c.host !== host));
    return { data: { [GIT_CREDENTIALS_KEY]: file ? Buffer.from(file, 'utf8').toString('base64') : null } };
  });
}
