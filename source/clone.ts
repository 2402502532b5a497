// The clone step of a Workspace with spec.source.git (issue 34): run in the workspace pod's
// init container, from Den's own image, as the workspace's uid, so the workspace image needs no
// git. isomorphic-git clones into a temporary directory inside the home; only a complete clone
// is renamed into place, and a marker then keeps every later start from cloning again.
import { mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { GIT_CREDENTIALS_DIR, type GitCredential } from '../contract/personal.js';
import { CLONE_MARKER, DEN_HOME_DIR, sshRemoteOf } from '../contract/workspace-source.js';
import { keptSshKeys, sshTransport, STAND_IN_URL, type SshTransport } from './ssh-transport.js';
import { describeCloneFailure, MissingRefError } from './clone-failure.js';
import { devcontainerNote, readDevcontainer } from './devcontainer.js';
import type { DevcontainerSummary } from '../contract/devcontainer.js';

export interface CloneRequest {
  url: string;
  /** Branch, tag or commit; the remote's default branch when absent. */
  ref?: string;
  /** The home directory (the home volume's mount path). */
  home: string;
  /** Where the clone lands, relative to the home. */
  directory: string;
  /** The person's git credentials (their den-git-credentials Secret); the one for the URL's protocol and host is offered when the server asks. */
  credentials?: readonly GitCredential[];
  /** spec.source.devcontainer: which devcontainer.json applies (the default places when absent). */
  devcontainer?: string;
  /** The marker that keeps a later start from cloning again, relative to the home (CLONE_MARKER when absent). */
  marker?: string;
  /** Where the person's SSH keys are (the mounted den-git-credentials Secret; GIT_CREDENTIALS_DIR when absent). */
  credentialsDir?: string;
}

/** The kept credential for `url`'s protocol and host, if any. */
export function credentialFor(url: string, credentials: readonly GitCredential[] = []): GitCredential | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  return credentials.find((c) => `${c.protocol}:` === parsed.protocol && c.host === parsed.host);
}

export interface CloneOutcome {
  ok: boolean;
  /** One or two sentences for the Workspace's status: what happened and, on failure, what to do. */
  message: string;
  /** What the clone's devcontainer.json says, for the Workspace hook to apply. */
  devcontainer?: DevcontainerSummary;
}

const TEMP_PREFIX = 'clone-';

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

/** Temporary directories a killed earlier run left behind: never a clone anyone uses. */
async function removeLeftovers(denDir: string): Promise<void> {
  const entries = await readdir(denDir).catch(() => [] as string[]);
  await Promise.all(entries.filter((e) => e.startsWith(TEMP_PREFIX)).map((e) => rm(join(denDir, e), { recursive: true, force: true })));
}

/** Checks out the ref: a branch of the remote, a tag, or a commit (full or abbreviated). */
async function checkoutRef(dir: string, ref: string | undefined): Promise<string> {
  if (ref === undefined) {
    const branch = await git.currentBranch({ fs, dir });
    if (branch === undefined || branch === null) throw new MissingRefError('the default branch');
    await git.checkout({ fs, dir, ref: branch });
    return `branch ${branch}`;
  }
  const resolve = (name: string) => git.resolveRef({ fs, dir, ref: name }).catch(() => undefined);
  if (await resolve(`refs/remotes/origin/${ref}`)) {
    await git.checkout({ fs, dir, ref });
    return `branch ${ref}`;
  }
  const tag = await resolve(`refs/tags/${ref}`);
  if (tag) {
    const { oid } = await git.readCommit({ fs, dir, oid: await peel(dir, tag) });
    await detach(dir, oid);
    return `tag ${ref}`;
  }
  if (/^[0-9a-f]{4,40}$/i.test(ref)) {
    const oid = await git.expandOid({ fs, dir, oid: ref.toLowerCase() }).catch(() => undefined);
    if (oid) {
      await detach(dir, oid);
      return `commit ${oid.slice(0, 12)}`;
    }
  }
  throw new MissingRefError(ref);
}

/** An annotated tag points at a tag object; its commit is what is checked out. */
async function peel(dir: string, oid: string): Promise<string> {
  const { type, object } = await git.readObject({ fs, dir, oid });
  if (type === 'tag') return peel(dir, (object as { object: string }).object);
  return oid;
}

/** `git checkout <commit>`: the files of the commit and a detached HEAD. */
async function detach(dir: string, oid: string): Promise<void> {
  await git.checkout({ fs, dir, ref: oid, force: true });
  await writeFile(join(dir, '.git', 'HEAD'), `${oid}\n`);
}

/**
 * Clones unless the home already has the clone; on success it also reads the repository's
 * devcontainer.json (on every start, never writing it), for the workspace to apply.
 */
export async function cloneSource(request: CloneRequest, log: (line: string) => void = () => {}): Promise<CloneOutcome> {
  const outcome = await cloneOnce(request, log);
  if (!outcome.ok) return outcome;
  const reading = await readDevcontainer(request.home, request.directory, request.devcontainer);
  return { ok: true, message: outcome.message + devcontainerNote(reading), ...(reading.found ? { devcontainer: reading.summary } : {}) };
}

/** Clones `request.url` into the home unless its marker says an earlier start did; nothing half-cloned is ever left. */
export async function cloneOnce(request: CloneRequest, log: (line: string) => void): Promise<CloneOutcome> {
  const { url, ref, home, directory } = request;
  const shown = `~/${directory}`;
  const denDir = join(home, DEN_HOME_DIR);
  const marker = join(home, request.marker ?? CLONE_MARKER);
  const target = join(home, directory);
  if (await exists(marker)) {
    return { ok: true, message: `The repository was cloned on an earlier start; Den leaves ${shown} as it is.` };
  }
  await mkdir(denDir, { recursive: true });
  await removeLeftovers(denDir);
  if (await exists(target)) {
    // A clone renamed into place by a run that stopped before writing the marker, or a folder of the person's own.
    await writeMarker(marker, request);
    return { ok: true, message: `${shown} already exists, so nothing was cloned; Den leaves it as it is.` };
  }
  let temp: string | undefined;
  let ssh: SshTransport | undefined;
  try {
    const remote = sshRemoteOf(url);
    if (remote) ssh = sshTransport(url, remote, await keptSshKeys(request.credentialsDir ?? GIT_CREDENTIALS_DIR, remote.host));
    temp = await mkdtemp(join(denDir, TEMP_PREFIX));
    log(`Cloning ${url}${ref ? ` (${ref})` : ''} into ${shown}`);
    let lastPhase = '';
    await git.clone({
      fs,
      http: ssh?.http ?? http,
      dir: temp,
      url: ssh ? STAND_IN_URL : url,
      noCheckout: true,
      // Asked only when the server answers 401; without a kept credential, or when it is refused
      // (no onAuthFailure, so no second try), the clone ends with the server's HTTP error.
      onAuth: (asked) => {
        const kept = credentialFor(asked, request.credentials);
        return kept ? { username: kept.username, password: kept.token } : undefined;
      },
      onProgress: ({ phase }) => {
        if (phase !== lastPhase) log(`  ${(lastPhase = phase)}`);
      },
    });
    // The origin is the SSH address: git in the workspace fetches and pushes over SSH (core.sshCommand offers the kept key).
    if (ssh) await git.setConfig({ fs, dir: temp, path: 'remote.origin.url', value: url });
    const what = await checkoutRef(temp, ref);
    await mkdir(dirname(target), { recursive: true });
    await rename(temp, target);
    temp = undefined;
    await writeMarker(marker, request);
    return { ok: true, message: `Cloned ${url} (${what}) into ${shown}.` };
  } catch (err) {
    return { ok: false, message: describeCloneFailure(err, { ...request, credentialKept: credentialFor(url, request.credentials) !== undefined }) };
  } finally {
    ssh?.close();
    if (temp !== undefined) await rm(temp, { recursive: true, force: true });
  }
}

async function writeMarker(marker: string, request: CloneRequest): Promise<void> {
  const body = JSON.stringify({ url: request.url, ref: request.ref ?? null, directory: request.directory, at: new Date().toISOString() }) + '\n';
  const temp = `${marker}.tmp`;
  await writeFile(temp, body);
  await rename(temp, marker);
}
