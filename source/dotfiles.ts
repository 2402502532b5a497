// The person's dotfiles repository (issue 34 part 3): cloned by the clone step into ~/.dotfiles on
// a workspace's first start, with the git credential kept for its host, like spec.source. Which
// install script it has (the Codespaces/Coder convention) goes in the report; the workspace image
// runs it (hooks/workspace/children/lifecycle.ts), or links the dot files when it has none.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitCredential } from '../contract/personal.js';
import type { DotfilesReport } from '../contract/devcontainer.js';
import { DEN_HOME_DIR, gitUrlProblem } from '../contract/workspace-source.js';
import { cloneOnce } from './clone.js';

/** Where the dotfiles land, relative to the home. */
export const DOTFILES_DIRECTORY = '.dotfiles';
/** Written once ~/.dotfiles is in place: a later start never clones it again. */
export const DOTFILES_CLONED_MARKER = `${DEN_HOME_DIR}/dotfiles-cloned.json`;
/** The first of these that is a file is the install script (Codespaces' order). */
export const DOTFILES_SCRIPTS = ['install.sh', 'install', 'bootstrap.sh', 'bootstrap', 'script/bootstrap', 'setup.sh', 'setup', 'script/setup'] as const;

async function installScript(dir: string): Promise<string | undefined> {
  for (const script of DOTFILES_SCRIPTS) {
    if (await stat(join(dir, script)).then((s) => s.isFile(), () => false)) return script;
  }
  return undefined;
}

/** The dotfiles as this start finds them: cloned now, cloned on an earlier start, or why not. */
export async function cloneDotfiles(home: string, url: string, credentials: readonly GitCredential[], log: (line: string) => void = () => {}, credentialsDir?: string): Promise<DotfilesReport> {
  const dir = join(home, DOTFILES_DIRECTORY);
  const marker = join(home, DOTFILES_CLONED_MARKER);
  const kept = await readFile(marker, 'utf8').then((text) => JSON.parse(text) as { url?: unknown }, () => undefined);
  if (kept) {
    const script = await installScript(dir);
    return { url: typeof kept.url === 'string' ? kept.url : url, fresh: false, ...(script ? { script } : {}) };
  }
  const problem = gitUrlProblem(url);
  if (problem) return { url, fresh: true, problem: `your dotfiles repository ${problem}; set another on your profile page (or den dotfiles set).` };
  const outcome = await cloneOnce({ url, home, directory: DOTFILES_DIRECTORY, credentials: [...credentials], ...(credentialsDir ? { credentialsDir } : {}), marker: DOTFILES_CLONED_MARKER }, log);
  if (!outcome.ok) return { url, fresh: true, problem: outcome.message };
  const script = await installScript(dir);
  return { url, fresh: true, ...(script ? { script } : {}) };
}

/** The clone step's sentence about the dotfiles. */
export function dotfilesNote(report: DotfilesReport): string {
  if (report.problem) return ` Your dotfiles were not cloned: ${report.problem}`;
  const next = report.script ? `~/.dotfiles/${report.script} runs` : 'its dot files are linked into the home';
  return report.fresh ? ` Cloned your dotfiles ${report.url} into ~/.dotfiles; ${next} once, in the workspace image.` : ` Your dotfiles are in ~/.dotfiles (cloned on an earlier start).`;
}
