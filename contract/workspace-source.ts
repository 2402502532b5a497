// `spec.source.git` of a Workspace (issue 34): the repository cloned into the home on the first
// start. The rules the URL, ref and path must satisfy, shared by the admission webhook, REST and
// the clone step itself (source/clone.ts), and where in the home the clone lands.
import { posix } from 'node:path';
import { GIT_HOST_MAX, GIT_HOST_PATTERN } from './personal.js';

export interface GitSource {
  url?: string;
  ref?: string;
  path?: string;
}

export interface WorkspaceSource {
  git?: GitSource;
  /** Which devcontainer.json of the clone applies: a configuration name or a path relative to the clone (DEVCONTAINER_CHOICE). */
  devcontainer?: string;
}

/** Where containers.dev looks when no configuration is chosen, in its order. */
export const DEVCONTAINER_FILES = ['.devcontainer/devcontainer.json', '.devcontainer.json'] as const;

/** A configuration name: `.devcontainer/<name>/devcontainer.json`. */
const DEVCONTAINER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/**
 * The file spec.source.devcontainer chooses, relative to the clone: a name gives
 * `.devcontainer/<name>/devcontainer.json`, a path ending in `.json` is taken as it is.
 */
export function devcontainerFileOf(choice: string): string {
  return DEVCONTAINER_NAME.test(choice) && !choice.endsWith('.json') ? `.devcontainer/${choice}/devcontainer.json` : posix.normalize(choice);
}

/** What is wrong with spec.source.devcontainer, or undefined. */
export function devcontainerChoiceProblem(choice: unknown): string | undefined {
  if (typeof choice !== 'string' || choice === '') return 'must be a configuration name (.devcontainer/<name>/devcontainer.json) or a path to a .json file in the repository';
  if (choice.length > MAX_PATH) return `must be at most ${MAX_PATH} characters`;
  if (DEVCONTAINER_NAME.test(choice) && !choice.endsWith('.json')) return undefined;
  if (!choice.endsWith('.json')) return `"${choice}" is neither a configuration name (letters, digits, . _ -) nor a path ending in .json`;
  if (choice.startsWith('/') || choice.startsWith('~') || /[\x00-\x1f\\]/.test(choice)) return `"${choice}" must be relative to the repository (no leading / or ~, no control characters or \\)`;
  const normalized = posix.normalize(choice);
  if (normalized === '..' || normalized.startsWith('../')) return `"${choice}" must stay inside the repository`;
  return undefined;
}

/** Den's release image: what runs `den clone-source` when the manager is given no --clone-image, and the install chart's default image. */
export const DEN_RELEASE_IMAGE = 'ghcr.io/den-dev/den:0.1.0';

/** The directory in the home where Den keeps the clone's marker and its temporary directories. */
export const DEN_HOME_DIR = '.den';
/** Written after the clone is in place: a later start finds it and leaves the home alone. */
export const CLONE_MARKER = `${DEN_HOME_DIR}/source-cloned.json`;

/** The variables the clone init container is given (and the file its message goes to, for tests). */
export const CLONE_ENV = {
  url: 'DEN_SOURCE_URL',
  ref: 'DEN_SOURCE_REF',
  directory: 'DEN_SOURCE_DIRECTORY',
  home: 'HOME',
  statusFile: 'DEN_SOURCE_STATUS_FILE',
  /** Where the person's git credentials are (default: where the workspace pod mounts them). */
  credentialsFile: 'DEN_SOURCE_CREDENTIALS_FILE',
  /** Where the person's dotfiles URL is (default: the `dotfiles` key of the mounted den-git-credentials). */
  dotfilesFile: 'DEN_SOURCE_DOTFILES_FILE',
  /** spec.source.devcontainer, when set. */
  devcontainer: 'DEN_SOURCE_DEVCONTAINER',
} as const;

/** The kubelet copies this file into the container's terminated state as its message. */
export const TERMINATION_LOG = '/dev/termination-log';

/** The name of the workspace pod's init container that clones spec.source. */
export const CLONE_CONTAINER = 'clone';

export interface SourceViolation {
  /** Path of the offending field (`spec.source.git.url`). */
  field: string;
  /** What is wrong, with the value involved. */
  message: string;
  /** The same in the person's words, saying what to do. */
  advice: string;
}

const FIELD = 'spec.source.git';
const MAX_URL = 2048;
const MAX_REF = 255;
const MAX_PATH = 255;

/** `git@host:owner/repo.git`, the scp-like form of an SSH URL (git's own rule: a user, a host, a colon, no slash before it). */
const SCP_LIKE = /^([^/@:]+)@([^/@:]+):(.*)$/;
/** `ssh://[user@]host[:port]/path`. */
const SSH_URL = /^ssh:\/\/(?:([^/@:]+)@)?([^/@:]+)(?::(\d*))?(\/.*)?$/i;
const SSH_USER = /^[A-Za-z0-9._-]+$/;
/** The user git names when an ssh:// URL gives none: every forge's. */
export const DEFAULT_SSH_USER = 'git';

/** An SSH remote as the clone step connects to it. */
export interface SshRemote {
  user: string;
  /** Lower-case, with `:port` unless the port is 22: the host a key is kept for (GIT_HOST_PATTERN). */
  host: string;
  hostname: string;
  port: number;
  /** What `git-upload-pack` is given: absolute for ssh://, as written (relative to the account's home) for the scp-like form. */
  path: string;
}

/** Whether `url` is written as an SSH URL (either form), sound or not. */
export function looksLikeSsh(url: string): boolean {
  return /^ssh:\/\//i.test(url) || SCP_LIKE.test(url);
}

/** The SSH remote `url` names, or undefined when it is not an SSH URL Den reads (always so when it does not looksLikeSsh). */
export function sshRemoteOf(url: string): SshRemote | undefined {
  const scp = /^ssh:\/\//i.test(url) ? undefined : SCP_LIKE.exec(url);
  const full = scp ? undefined : SSH_URL.exec(url);
  const [user, hostname, portText, path] = scp ? [scp[1], scp[2], undefined, scp[3]] : full ? [full[1], full[2], full[3], full[4]] : [];
  if (hostname === undefined || path === undefined) return undefined;
  const port = portText === undefined || portText === '' ? 22 : Number(portText);
  const name = hostname.toLowerCase();
  return { user: user ?? DEFAULT_SSH_USER, hostname: name, port, host: port === 22 ? name : `${name}:${port}`, path };
}

/** The repository's name from its URL (`https://h/o/api.git` gives `api`), or undefined when the URL has none. */
export function repositoryName(url: string): string | undefined {
  let last: string;
  const ssh = sshRemoteOf(url);
  try {
    last = ssh ? ssh.path.split('/').filter(Boolean).pop() ?? '' : decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean).pop() ?? '');
  } catch {
    return undefined;
  }
  const name = last.replace(/\.git$/, '');
  if (name === '' || name === '.' || name === '..' || name.startsWith('.') || /[\/\\\0]/.test(name)) return undefined;
  return name;
}

/** Where the clone lands, relative to the home: the chosen path, else the repository's name. */
export function cloneDirectory(source: GitSource): string | undefined {
  if (source.path) return posix.normalize(source.path).replace(/\/+$/, '');
  return source.url ? repositoryName(source.url) : undefined;
}

function sshUrlViolations(url: string): SourceViolation[] {
  const field = `${FIELD}.url`;
  const example = 'such as git@github.com:owner/repo.git or ssh://git@git.example.com:2222/owner/repo.git';
  if (/^ssh:\/\/[^/@]*:[^/@]*@/i.test(url)) {
    return [{ field, message: 'must not carry a password: the Workspace is readable by anyone who can read your namespace', advice: `Remove the password from the address; Den clones over SSH with the key you keep for the host (den git-credential set <host> --ssh-key-file <file>).` }];
  }
  const remote = sshRemoteOf(url);
  if (!remote) return [{ field, message: `"${url}" is not an SSH URL Den can read (ssh://[user@]host[:port]/path or user@host:path)`, advice: `Give the repository's SSH address as the git host shows it, ${example}.` }];
  if (!SSH_USER.test(remote.user)) return [{ field, message: `"${url}" names the user "${remote.user}"; an SSH user is letters, digits, ".", "_" or "-"`, advice: `Give the SSH address as the git host shows it, ${example}.` }];
  if (remote.port < 1 || remote.port > 65535 || remote.host.length > GIT_HOST_MAX || !GIT_HOST_PATTERN.test(remote.host)) {
    return [{ field, message: `"${url}" names no host Den can connect to ("${remote.host}"): a host name with an optional port 1-65535`, advice: `Check the address's host and port, ${example}.` }];
  }
  const path = remote.path.replace(/^\/+/, '');
  if (path === '' || /[\x00-\x1f\x7f]/.test(remote.path) || path.startsWith('-')) {
    return [{ field, message: `"${url}" names no repository on ${remote.host} (its path is empty, starts with "-" or holds control characters)`, advice: `Add the repository to the address, ${example}.` }];
  }
  return [];
}

function urlViolations(url: unknown): SourceViolation[] {
  const field = `${FIELD}.url`;
  if (typeof url !== 'string' || url.trim() === '') {
    return [{ field, message: 'must be the repository\'s URL (https://host/owner/repo.git or git@host:owner/repo.git)', advice: 'Give the repository\'s https or SSH address, such as https://github.com/owner/repo.git or git@github.com:owner/repo.git.' }];
  }
  if (url.length > MAX_URL) return [{ field, message: `must be at most ${MAX_URL} characters`, advice: 'This repository address is too long: check what was pasted.' }];
  if (looksLikeSsh(url)) return sshUrlViolations(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [{ field, message: `"${url}" is not a URL`, advice: 'Give the repository\'s full https or SSH address, such as https://github.com/owner/repo.git or git@github.com:owner/repo.git.' }];
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return [{ field, message: `"${url}" uses ${parsed.protocol.replace(/:$/, '')}; only https (or http) and SSH URLs can be cloned`, advice: 'Give the repository\'s https or SSH address, such as https://github.com/owner/repo.git or git@github.com:owner/repo.git.' }];
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return [{
      field,
      message: 'must not carry a user name or token: the Workspace is readable by anyone who can read your namespace',
      advice: 'Remove the user name and token from the address; a token in a repository address would be stored in plain sight.',
    }];
  }
  if (parsed.search !== '' || parsed.hash !== '') {
    return [{ field, message: `"${url}" has a query or fragment; a repository URL has neither`, advice: 'Give the repository\'s plain address, without ? or # parts.' }];
  }
  if (parsed.pathname === '/' || parsed.pathname === '') {
    return [{ field, message: `"${url}" names a host but no repository`, advice: 'Add the repository to the address, such as https://github.com/owner/repo.git.' }];
  }
  return [];
}

/** What is wrong with a repository URL Den would clone (the rule of spec.source.git.url), or undefined. */
export function gitUrlProblem(url: unknown): string | undefined {
  return urlViolations(url)[0]?.message;
}

/** git check-ref-format's rules for one branch, tag or commit name. */
export function refProblem(ref: string): string | undefined {
  if (ref === '') return 'must not be empty (leave it out for the default branch)';
  if (ref.length > MAX_REF) return `must be at most ${MAX_REF} characters`;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(ref)) return 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  if (ref.startsWith('-') || ref.startsWith('/') || ref.endsWith('/') || ref.endsWith('.')) return 'must not start with - or /, nor end with / or .';
  if (ref.includes('..') || ref.includes('//') || ref.includes('@{') || ref === '@') return 'must not contain .., //, @{ nor be @';
  if (ref.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))) return 'no part may start with . or end with .lock';
  return undefined;
}

function pathViolations(path: unknown, url: unknown): SourceViolation[] {
  const field = `${FIELD}.path`;
  if (path === undefined || path === null) {
    if (typeof url === 'string' && urlViolations(url).length === 0 && repositoryName(url) === undefined) {
      return [{ field, message: `the URL "${url}" ends in no repository name to clone into; give a path`, advice: 'Den cannot tell the folder name from this address: give a folder to clone into, such as src/app.' }];
    }
    return [];
  }
  const advice = 'Give a folder inside your home, such as src/app (no leading /, no ..).';
  if (typeof path !== 'string' || path.trim() === '') return [{ field, message: 'must be a folder inside the home', advice }];
  if (path.length > MAX_PATH) return [{ field, message: `must be at most ${MAX_PATH} characters`, advice }];
  if (path.startsWith('/') || path.startsWith('~')) return [{ field, message: `"${path}" must be relative to the home (no leading / or ~)`, advice }];
  if (/[\x00-\x1f\\]/.test(path)) return [{ field, message: `"${path}" must not contain control characters or \\`, advice }];
  const normalized = posix.normalize(path).replace(/\/+$/, '');
  if (normalized === '.' || normalized === '..' || normalized.startsWith('../')) return [{ field, message: `"${path}" must name a folder inside the home, not the home itself or above it`, advice }];
  if (normalized === DEN_HOME_DIR || normalized.startsWith(`${DEN_HOME_DIR}/`)) {
    return [{ field, message: `"${path}" is inside ~/${DEN_HOME_DIR}, where Den keeps its own files`, advice: `Choose a folder outside ~/${DEN_HOME_DIR}, such as src/app.` }];
  }
  return [];
}

/** What is wrong with `spec.source`; empty when it is absent or sound. */
export function sourceViolations(source: unknown): SourceViolation[] {
  if (source === undefined || source === null) return [];
  if (typeof source !== 'object' || Array.isArray(source)) return [{ field: 'spec.source', message: 'must be an object with a git field', advice: 'Give the repository as source.git.url.' }];
  const git = (source as { git?: unknown }).git;
  const choice = (source as { devcontainer?: unknown }).devcontainer;
  const choiceProblem = choice === undefined || choice === null ? undefined : devcontainerChoiceProblem(choice);
  const choiceViolations: SourceViolation[] = choiceProblem
    ? [{ field: 'spec.source.devcontainer', message: choiceProblem, advice: 'Name a configuration of the repository (the folder under .devcontainer/, such as python), or a path such as .devcontainer/python/devcontainer.json; leave it empty for .devcontainer/devcontainer.json.' }]
    : [];
  if (git === undefined || git === null || typeof git !== 'object' || Array.isArray(git)) {
    return [{ field: FIELD, message: 'must be an object with the repository\'s url (and optionally ref and path)', advice: 'Give the repository as source.git.url.' }, ...choiceViolations];
  }
  const { url, ref, path } = git as { url?: unknown; ref?: unknown; path?: unknown };
  const violations = urlViolations(url);
  if (ref !== undefined && ref !== null) {
    const problem = typeof ref === 'string' ? refProblem(ref) : 'must be a branch, tag or commit name';
    if (problem) {
      violations.push({
        field: `${FIELD}.ref`,
        message: `"${String(ref)}" ${problem}`,
        advice: `"${String(ref)}" is not a branch, tag or commit name git accepts (it ${problem}): give one such as main, v1.2.0 or 3f2c1ab, or leave it empty for the default branch.`,
      });
    }
  }
  violations.push(...pathViolations(path, url), ...choiceViolations);
  return violations;
}
