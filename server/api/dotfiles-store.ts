// The person's dotfiles repository (issue 34 part 3, docs/personal-env.md): the `dotfiles` key of
// their den-git-credentials Secret, read and written with their own token like the credentials.
import { HttpError } from '../../koa/errors.js';
import type { KubeClient } from '../../kube/client.js';
import { DOTFILES_KEY, GIT_CREDENTIALS_SECRET } from '../../contract/personal.js';
import { gitUrlProblem } from '../../contract/workspace-source.js';
import { decode, readSecret, rewrite, type StoredSecret } from './personal-store.js';

export interface Dotfiles {
  /** The repository's https URL, or null when none is kept. */
  url: string | null;
}

/** 400 naming `url` when Den could not clone it (the rule of spec.source.git.url). */
function checkDotfilesUrl(url: string): void {
  const problem = gitUrlProblem(url);
  if (problem) throw new HttpError(400, `url ${problem}`);
}

export async function readDotfiles(kube: KubeClient, namespace: string): Promise<Dotfiles> {
  return dotfilesOf(await readSecret(kube, GIT_CREDENTIALS_SECRET, namespace));
}

export function dotfilesOf(secret: StoredSecret): Dotfiles {
  const value = secret.data?.[DOTFILES_KEY];
  return { url: value ? decode(value) : null };
}

export async function setDotfiles(kube: KubeClient, namespace: string, url: string): Promise<Dotfiles> {
  checkDotfilesUrl(url);
  await rewrite(kube, GIT_CREDENTIALS_SECRET, namespace, () => ({ data: { [DOTFILES_KEY]: Buffer.from(url, 'utf8').toString('base64') } }));
  return { url };
}

export async function removeDotfiles(kube: KubeClient, namespace: string): Promise<void> {
  await rewrite(kube, GIT_CREDENTIALS_SECRET, namespace, (current) => {
    if (!current.data?.[DOTFILES_KEY]) throw new HttpError(404, 'you keep no dotfiles repository');
    return { data: { [DOTFILES_KEY]: null } };
  });
}
