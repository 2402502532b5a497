// `den clone-source`: what the `clone` init container of a workspace pod runs (hooks/workspace/
// children/clone.ts renders it). It reads the request from its environment, clones, and leaves
// one message in the termination log, which the kubelet copies into the pod's status for the
// Workspace hook to read. Exit 0 when the home holds the repository, 1 when it could not.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DOTFILES_FILE, GIT_CREDENTIALS_FILE, parseCredentialStoreFile, type GitCredential } from '../contract/personal.js';
import { CLONE_ENV, TERMINATION_LOG } from '../contract/workspace-source.js';
import { cloneSource } from './clone.js';
import { cloneDotfiles, dotfilesNote } from './dotfiles.js';
import { CLONE_REPORT_LIMIT, type CloneReport, type DevcontainerSummary } from '../contract/devcontainer.js';

/**
 * The termination message: JSON `{message, devcontainer}` the Workspace hook reads
 * (contract/devcontainer.ts parseCloneReport). A summary that would not fit is replaced by a
 * problem saying so, so the workspace says why nothing of the file applies instead of losing it.
 */
export function cloneReport(report: CloneReport): string {
  const whole = JSON.stringify(report);
  if (Buffer.byteLength(whole) <= CLONE_REPORT_LIMIT || !report.devcontainer) return whole.length <= CLONE_REPORT_LIMIT ? whole : JSON.stringify({ message: report.message.slice(0, CLONE_REPORT_LIMIT - 100) });
  const size = Buffer.byteLength(JSON.stringify(report.devcontainer));
  const problem = `what Den would apply from it takes ${size} bytes, more than the ${CLONE_REPORT_LIMIT - 500} the clone step can hand to the workspace: move long commands into a script in the repository (postCreateCommand: "sh .devcontainer/setup.sh") and keep the environment short`;
  const devcontainer: DevcontainerSummary = { file: report.devcontainer.file, problem };
  return JSON.stringify({ ...report, devcontainer, message: `${report.message.replace(/ Read ~\/\S+; the workspace applies it\.$/, '')} ~/${devcontainer.file}: ${problem}; Den applies none of it.`.slice(0, 1000) });
}

export async function runCloneCommand(env: NodeJS.ProcessEnv, out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  const url = env[CLONE_ENV.url];
  const directory = env[CLONE_ENV.directory];
  const home = env[CLONE_ENV.home];
  const statusFile = env[CLONE_ENV.statusFile] || TERMINATION_LOG;
  // Every workspace pod runs the clone step (the person's dotfiles); only one with spec.source has a repository.
  const missing = [...(url ? [[CLONE_ENV.directory, directory]] : []), [CLONE_ENV.home, home]].filter(([, v]) => !v).map(([k]) => k);
  if (missing.length > 0) {
    const message = `den clone-source needs ${missing.join(', ')} in its environment; it runs as the init container Den renders for every workspace.`;
    out(message);
    await writeFile(statusFile, message).catch(() => {});
    return 2;
  }
  const credentialsFile = env[CLONE_ENV.credentialsFile] || GIT_CREDENTIALS_FILE;
  const credentials = await keptCredentials(credentialsFile);
  // The SSH keys are files beside the tokens' (the same mounted Secret).
  const credentialsDir = dirname(credentialsFile);
  const outcome = url
    ? await cloneSource({ url, ref: env[CLONE_ENV.ref] || undefined, home: home!, directory: directory!, credentials, credentialsDir, devcontainer: env[CLONE_ENV.devcontainer] || undefined }, out)
    : { ok: true, message: 'This workspace has no repository to clone.' };
  // The dotfiles never fail the step: what went wrong is reported, and the workspace starts.
  const dotfilesUrl = outcome.ok ? await keptDotfiles(env[CLONE_ENV.dotfilesFile] || DOTFILES_FILE) : undefined;
  const dotfiles = dotfilesUrl ? await cloneDotfiles(home!, dotfilesUrl, credentials, out, credentialsDir) : undefined;
  const message = outcome.message + (dotfiles ? dotfilesNote(dotfiles) : '');
  out(message);
  // A failure stays plain words; a success carries what the clone's devcontainer.json says and the dotfiles.
  const report = outcome.ok
    ? cloneReport({ message, ...('devcontainer' in outcome && outcome.devcontainer ? { devcontainer: outcome.devcontainer } : {}), ...(dotfiles ? { dotfiles } : {}) })
    : outcome.message.slice(0, CLONE_REPORT_LIMIT);
  await writeFile(statusFile, report).catch((err: unknown) => out(`(could not write ${statusFile}: ${(err as Error).message})`));
  return outcome.ok ? 0 : 1;
}

/** The person's dotfiles repository as mounted from their den-git-credentials Secret (its `dotfiles` key); none when absent. */
async function keptDotfiles(file: string): Promise<string | undefined> {
  const url = await readFile(file, 'utf8').then((t) => t.trim(), () => '');
  return url === '' ? undefined : url;
}

/** The person's git credentials as mounted from their den-git-credentials Secret; none when it is absent or empty. */
async function keptCredentials(file: string): Promise<GitCredential[]> {
  try {
    return parseCredentialStoreFile(await readFile(file, 'utf8'));
  } catch {
    return [];
  }
}
