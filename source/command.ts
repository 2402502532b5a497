// `den clone-source`: what the `clone` init container of a workspace pod runs (hooks/workspace/
// children/clone.ts renders it). It reads the request from its environment, clones, and leaves
// one message in the termination log, which the kubelet copies into the pod's status for the
// Workspace hook to read. Exit 0 when the home holds the repository, 1 when it could not.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { GIT_CREDENTIALS_FILE, parseCredentialStoreFile, type GitCredential } from '../contract/personal.js';
import { CLONE_ENV, TERMINATION_LOG } from '../contract/workspace-source.js';
import { cloneSource } from './clone.js';

/** The kubelet keeps at most 4096 bytes of a termination message. */
const MESSAGE_LIMIT = 4000;

export async function runCloneCommand(env: NodeJS.ProcessEnv, out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  const url = env[CLONE_ENV.url];
  const directory = env[CLONE_ENV.directory];
  const home = env[CLONE_ENV.home];
  const statusFile = env[CLONE_ENV.statusFile] || TERMINATION_LOG;
  const missing = [[CLONE_ENV.url, url], [CLONE_ENV.directory, directory], [CLONE_ENV.home, home]].filter(([, v]) => !v).map(([k]) => k);
  if (missing.length > 0) {
    const message = `den clone-source needs ${missing.join(', ')} in its environment; it runs as the init container Den renders for a workspace with spec.source.`;
    out(message);
    await writeFile(statusFile, message).catch(() => {});
    return 2;
  }
  const credentialsFile = env[CLONE_ENV.credentialsFile] || GIT_CREDENTIALS_FILE;
  const credentials = await keptCredentials(credentialsFile);
  // The SSH keys are files beside the tokens' (the same mounted Secret).
  const outcome = await cloneSource({ url: url!, ref: env[CLONE_ENV.ref] || undefined, home: home!, directory: directory!, credentials, credentialsDir: dirname(credentialsFile) }, out);
  out(outcome.message);
  await writeFile(statusFile, outcome.message.slice(0, MESSAGE_LIMIT)).catch((err: unknown) => out(`(could not write ${statusFile}: ${(err as Error).message})`));
  return outcome.ok ? 0 : 1;
}

/** The person's git credentials as mounted from their den-git-credentials Secret; none when it is absent or empty. */
async function keptCredentials(file: string): Promise<GitCredential[]> {
  try {
    return parseCredentialStoreFile(await readFile(file, 'utf8'));
  } catch {
    return [];
  }
}
