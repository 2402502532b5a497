// The person's own SSH key pair: `--identity <private key>` or the first of OpenSSH's
// default names whose `.pub` is beside it. Only the public half is ever sent anywhere.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CommandError, type DevIo } from './io.js';

export interface KeyPair {
  /** Private key path as written into ~/.ssh/config. */
  identityFile: string;
  /** The public key line: type, base64 blob and comment. */
  publicKey: string;
}

const DEFAULT_NAMES = ['id_ed25519', 'id_ecdsa', 'id_ed25519_sk', 'id_ecdsa_sk', 'id_rsa'];

export function homeOf(env: DevIo['env']): string {
  return env.HOME || homedir();
}

export async function findKeyPair(env: DevIo['env'], identity?: string): Promise<KeyPair> {
  const candidates = identity ? [identity] : DEFAULT_NAMES.map((n) => join(homeOf(env), '.ssh', n));
  for (const path of candidates) {
    try {
      const publicKey = (await readFile(`${path}.pub`, 'utf8')).trim().split('\n')[0]!.trim();
      return { identityFile: path, publicKey };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new CommandError(`cannot read ${path}.pub: ${(err as Error).message}`);
    }
  }
  if (identity) throw new CommandError(`${identity}.pub does not exist (give the private key's path; its public half must be beside it)`);
  throw new CommandError(`no SSH key in ${join(homeOf(env), '.ssh')} (make one with ssh-keygen -t ed25519, or name one with --identity)`);
}

/** Type and blob of a key line: two keys are the same key whatever their comments say. */
export function sameKey(a: string, b: string): boolean {
  const [ta, ba] = a.trim().split(/\s+/);
  const [tb, bb] = b.trim().split(/\s+/);
  return ta === tb && ba === bb;
}
