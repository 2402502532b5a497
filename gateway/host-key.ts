// The gateway's SSH host key. In the cluster it is a file the kubelet mounts from the
// Secret the manager creates once, so every replica and every restart presents the same
// key while the gateway itself never reads Secrets. Outside the cluster a missing file is
// generated once and kept, so a developer's known_hosts entry stays valid.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import ssh2 from 'ssh2';
import { generateHostKey, HOST_KEY_SECRET } from '../ssh/host-key.js';

export class HostKeyError extends Error {
  override readonly name = 'HostKeyError';
}

/** Checks that `text` is an unencrypted private key ssh2 can serve with. */
function assertUsablePrivateKey(text: string, file: string): void {
  const parsed = ssh2.utils.parseKey(text);
  if (parsed instanceof Error) throw new HostKeyError(`host key file ${file} is not a private key ssh2 can read (${parsed.message})`);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || !key.isPrivateKey()) throw new HostKeyError(`host key file ${file} holds no private key`);
}

/**
 * Reads the host key from `file`. With `generateIfMissing` (outside the cluster) a missing
 * file is created with a new ed25519 key (mode 0600, parent folders created); the exclusive
 * create means two processes started together still end up with one key.
 */
export async function loadHostKey(file: string, opts: { generateIfMissing: boolean }): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new HostKeyError(`cannot read host key file ${file}: ${(err as Error).message}`, { cause: err });
    }
    if (!opts.generateIfMissing) {
      throw new HostKeyError(
        `host key file ${file} does not exist: in the cluster it is mounted from the Secret ${HOST_KEY_SECRET}, which the manager creates at start`,
      );
    }
    text = await createHostKeyFile(file);
  }
  assertUsablePrivateKey(text, file);
  return text;
}

async function createHostKeyFile(file: string): Promise<string> {
  const pair = generateHostKey();
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, pair.privateKey, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // Another process created it between our read and our write: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFile(file, 'utf8');
    throw new HostKeyError(`cannot create host key file ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    await writeFile(`${file}.pub`, pair.publicKey + '\n', { mode: 0o644 });
  } catch (err) {
    throw new HostKeyError(`cannot write ${file}.pub: ${(err as Error).message}`, { cause: err });
  }
  return pair.privateKey;
}
