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

/** Whether the kubelet hands `text` over whole: within CLONE_REPORT_LIMIT bytes, under the last 4096 it keeps of a termination message. */
function fits(text: string): boolean {
  return Buffer.byteLength(text) <= CLONE_REPORT_LIMIT;
}

/**
 * `render(words)` when it fits, else `render` of the longest start of `words` (whole code points,
 * `…` where cut) that does; undefined when it does not fit even with no words. Bytes, not characters: a
 * multi-byte character, or a control character JSON escapes, takes more than one.
 */
function cutToFit(words: string, render: (cut: string) => string): string | undefined {
  if (fits(render(words))) return render(words);
  const points = Array.from(words);
  const at = (n: number) => render(n === 0 ? '' : `${points.slice(0, n).join('')}…`);
  if (!fits(at(0))) return undefined;
  let [low, high] = [0, points.length - 1];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(at(middle))) low = middle;
    else high = middle - 1;
  }
  return at(low);
}

/** The report with a summary that would not fit replaced by a problem saying so, so the workspace says why nothing of the file applies. */
function withoutSummary(report: CloneReport & { devcontainer: DevcontainerSummary }): CloneReport {
  const size = Buffer.byteLength(JSON.stringify(report.devcontainer));
  const problem = `what Den would apply from it takes ${size} bytes, more than the ${CLONE_REPORT_LIMIT - 500} the clone step can hand to the workspace: move long commands into a script in the repository (postCreateCommand: "sh .devcontainer/setup.sh") and keep the environment short`;
  const devcontainer: DevcontainerSummary = { file: report.devcontainer.file, problem };
  return { ...report, devcontainer, message: `${report.message.replace(/ Read ~\/\S+; the workspace applies it\.$/, '')} ~/${devcontainer.file}: ${problem}; Den applies none of it.`.slice(0, 1000) };
}

/**
 * The termination message: JSON `{message, devcontainer, dotfiles}` the Workspace hook reads
 * (contract/devcontainer.ts parseCloneReport), always within CLONE_REPORT_LIMIT bytes, as the
 * kubelet keeps only the end of a longer one (no longer JSON). A summary that would not fit is
 * replaced by a problem saying so; then the message is cut; a report whose dotfiles or file name
 * alone would not fit keeps only its (cut) message.
 */
export function cloneReport(report: CloneReport): string {
  const told = fits(JSON.stringify(report)) || !report.devcontainer ? report : withoutSummary({ ...report, devcontainer: report.devcontainer });
  return cutToFit(told.message, (message) => JSON.stringify({ ...told, message })) ?? cutToFit(told.message, (message) => JSON.stringify({ message }))!;
}

/** A failed clone's plain words, cut (at the end) to what the kubelet keeps. */
function failureReport(message: string): string {
  return cutToFit(message, (words) => words)!;
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
    : failureReport(outcome.message);
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
