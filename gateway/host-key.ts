// The gateway's SSH host key. In the cluster it is a file the kubelet mounts from the
// Secret the manager creates once, so every replica and every restart presents the same
// key while the gateway itself never reads Secrets. Outside the cluster a missing file is
// generated once and kept, so a developer's known_hosts entry stays valid.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import ssh2 from 'ssh2';
import type { KubeClient, KubeObject } from '../kube/client.js';
import { isAlreadyExists, isConflict } from '../kube/errors.js';
import { FIELD_MANAGERS, LABELS } from '../kube/group.js';
import { RESOURCES } from '../kube/resources.js';
import { GATEWAY_HOST_KEY_FILE, GATEWAY_HOST_KEY_SECRET } from '../infra/install/names.js';

export const HOST_KEY_SECRET = GATEWAY_HOST_KEY_SECRET;
export const HOST_KEY_SECRET_KEY = GATEWAY_HOST_KEY_FILE;
export const HOST_KEY_SECRET_PUBLIC_KEY = 'ssh_host_ed25519_key.pub';

export interface HostKeyPair {
  /** OpenSSH private key format. */
  privateKey: string;
  /** `ssh-ed25519 AAAA… comment`, for known_hosts. */
  publicKey: string;
}

function sshString(data: Buffer | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data) : data;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/**
 * A new ed25519 key pair in OpenSSH's formats (PROTOCOL.key). Built from Node's own key
 * generation: ssh2's generator drops leading zero bytes of some ed25519 keys (about one in
 * four hundred), producing files that neither ssh2 nor OpenSSH can read.
 */
export function generateHostKey(comment = 'den-gateway'): HostKeyPair {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const seed = Buffer.from(jwk.d ?? '', 'base64url');
  const pub = Buffer.from(jwk.x ?? '', 'base64url');
  const blob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);
  const check = randomBytes(4).readUInt32BE();
  let secret = Buffer.concat([uint32(check), uint32(check), sshString('ssh-ed25519'), sshString(pub), sshString(Buffer.concat([seed, pub])), sshString(comment)]);
  const padding = Buffer.from(Array.from({ length: (8 - (secret.length % 8)) % 8 }, (_, i) => i + 1));
  secret = Buffer.concat([secret, padding]);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(blob),
    sshString(secret),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return {
    privateKey: ['-----BEGIN OPENSSH PRIVATE KEY-----', ...lines, '-----END OPENSSH PRIVATE KEY-----', ''].join('\n'),
    publicKey: `ssh-ed25519 ${blob.toString('base64')} ${comment}`,
  };
}

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

/** The Secret holding a freshly generated host key. */
export function hostKeySecret(namespace: string, pair: HostKeyPair): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: HOST_KEY_SECRET,
      namespace,
      labels: { [LABELS.managedBy]: FIELD_MANAGERS.manager },
    },
    type: 'Opaque',
    data: {
      [HOST_KEY_SECRET_KEY]: Buffer.from(pair.privateKey).toString('base64'),
      [HOST_KEY_SECRET_PUBLIC_KEY]: Buffer.from(pair.publicKey + '\n').toString('base64'),
    },
  };
}

/**
 * Creates the Secret `den-gateway-host-key` in `namespace` when it is absent and never
 * touches an existing one: a create that meets an existing Secret (including one another
 * manager replica created a moment ago) is success, so the key never changes once issued.
 */
export async function ensureHostKeySecret(client: KubeClient, namespace: string): Promise<void> {
  try {
    await client.create(RESOURCES.secret, hostKeySecret(namespace, generateHostKey()), namespace);
  } catch (err) {
    if (isAlreadyExists(err) || isConflict(err)) return;
    throw err;
  }
}
