// A person's SSH key for a git host (issue 34, "SSH URLs where a key is given"): kept in their
// den-git-credentials Secret beside the https tokens, as two keys per host, the private key and
// the host's public key as the person got it from `ssh-keyscan`. The clone step reads both from
// the mounted Secret (source/ssh-transport.ts) and never trusts a host key it was not given.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ParsedKey } from 'ssh2';

/**
 * ssh2's key parser, loaded on the first key Den reads: den server imports this module, and ssh2
 * is 18 MiB of WebAssembly and code it otherwise never needs (test/cli/role-modules.test.ts).
 */
function parseKey(text: string): ParsedKey | ParsedKey[] | Error {
  const { utils } = createRequire(import.meta.url)('ssh2') as typeof import('ssh2');
  return utils.parseKey(text);
}

/** The Secret keys of one host's SSH key and known host key (`ssh-key.git.example.com_2222`). */
export const SSH_KEY_PREFIX = 'ssh-key.';
export const SSH_KNOWN_HOST_PREFIX = 'ssh-known-host.';

/** A Secret key may hold only letters, digits, `-`, `_` and `.`: a host's `:port` becomes `_port` (a host name has no `_`). */
export function hostKeyPart(host: string): string {
  return host.replace(':', '_');
}

/** The host a Secret key part names (`git.example.com_2222` gives `git.example.com:2222`). */
export function hostOfKeyPart(part: string): string {
  return part.replace('_', ':');
}

export const sshKeyName = (host: string): string => `${SSH_KEY_PREFIX}${hostKeyPart(host)}`;
export const knownHostName = (host: string): string => `${SSH_KNOWN_HOST_PREFIX}${hostKeyPart(host)}`;

/** The largest private key Den keeps (an RSA 16384-bit key in OpenSSH's format is under 13 KiB). */
export const SSH_PRIVATE_KEY_MAX = 16_384;
export const SSH_KNOWN_HOST_MAX = 8_192;

/** Why `text` cannot be the private key Den clones with, or undefined when ssh2 reads it as one. */
export function privateKeyProblem(text: string): string | undefined {
  if (text.trim() === '') return 'ssh_private_key is empty: give the contents of the private key file (such as ~/.ssh/id_ed25519), not the .pub file';
  if (text.length > SSH_PRIVATE_KEY_MAX) return `ssh_private_key must be at most ${SSH_PRIVATE_KEY_MAX} characters`;
  const parsed = parseKey(text);
  // PKCS#8 `BEGIN ENCRYPTED PRIVATE KEY`, PEM's `Proc-Type: 4,ENCRYPTED`, or ssh2's word for an encrypted OpenSSH key.
  const encrypted = /^-----BEGIN ENCRYPTED |^Proc-Type: 4,ENCRYPTED/m.test(text) || (parsed instanceof Error && /passphrase|encrypted/i.test(parsed.message));
  if (encrypted) {
    return 'ssh_private_key is protected by a passphrase, and Den cannot type one when it clones: make a key without a passphrase for this host (ssh-keygen -t ed25519 -N "" -f den_key) and add its .pub to the git host as a deploy or account key';
  }
  if (parsed instanceof Error) return `ssh_private_key is not a private key ssh can read (${parsed.message}): give the whole file, from its -----BEGIN line to its -----END line`;
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || !key.isPrivateKey()) return 'ssh_private_key is a public key: give the private key file (such as ~/.ssh/id_ed25519), not the .pub file';
  return undefined;
}

export interface KnownHostKey {
  /** The key's type (`ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`…). */
  type: string;
  /** The key's blob in SSH wire format, as the server shows it during the key exchange. */
  blob: Buffer;
  /** `type base64`. */
  line: string;
}

/** `ssh-keyscan [-p port] name`: the command that prints `host`'s key lines. */
export function keyscanCommand(host: string): string {
  const [name, port] = host.split(':');
  return port ? `ssh-keyscan -p ${port} ${name}` : `ssh-keyscan ${name}`;
}

/** The names a known_hosts line's first field lists for `host` (`[h]:2222` for a port other than 22). */
function knownHostNames(host: string): string[] {
  const [name, port] = host.split(':');
  return port && port !== '22' ? [`[${name}]:${port}`] : [name!, `[${name}]:22`];
}

/**
 * Reads one line of `ssh-keyscan <host>` (or of known_hosts): `[host] type base64 [comment]`.
 * A line naming other hosts in plain text is refused (a hashed `|1|…` name cannot be checked and is taken).
 */
export function parseKnownHost(text: string, host: string): KnownHostKey | string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  if (lines.length !== 1) {
    return lines.length === 0
      ? `ssh_known_host is empty: give one line of "${keyscanCommand(host)}" (the host's public key), so Den can tell the real ${host} from an impostor`
      : `ssh_known_host must be one line, the host key of the type you trust (ssh-keyscan prints one per type; keep the ssh-ed25519 one): ${lines.length} lines were given`;
  }
  const words = lines[0]!.split(/\s+/);
  const typed = parseKey(`${words[0]} ${words[1] ?? ''}`);
  const [names, type, base64] = typed instanceof Error ? [words[0], words[1], words[2]] : [undefined, words[0], words[1]];
  if (names !== undefined && !names.startsWith('|')) {
    const listed = names.split(',');
    if (!knownHostNames(host).some((n) => listed.includes(n))) {
      return `ssh_known_host is the key of ${names}, not of ${host}: give the line ssh-keyscan prints for ${host}`;
    }
  }
  const parsed = type && base64 ? parseKey(`${type} ${base64}`) : new Error('no key');
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (key instanceof Error || !key || key.isPrivateKey()) {
    return `ssh_known_host is not a host's public key line (such as "${host} ssh-ed25519 AAAA…"): give one line of ssh-keyscan's output`;
  }
  return { type: key.type, blob: key.getPublicSSH(), line: `${key.type} ${key.getPublicSSH().toString('base64')}` };
}

/** The known_hosts line Den keeps for `host` (`[git.example.com]:2222 ssh-ed25519 AAAA…`): ssh itself reads it as a known_hosts file. */
export function knownHostsLine(host: string, key: KnownHostKey): string {
  return `${knownHostNames(host)[0]} ${key.line}`;
}

/** The host key algorithms a client offers to see a key of this type (an RSA key is shown under its SHA-2 signatures too). */
export function hostKeyAlgorithms(type: string): string[] {
  return type === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [type];
}

/** `SHA256:…`, as `ssh-keygen -lf` and the forges show a key. */
export function keyFingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** The public half of a kept private key, as the line to add to the git host (`ssh-ed25519 AAAA…`); undefined when it cannot be read. */
export function publicLineOf(privateKey: string): string | undefined {
  const parsed = parseKey(privateKey);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) return undefined;
  return `${key.type} ${key.getPublicSSH().toString('base64')}`;
}
