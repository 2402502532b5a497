// A person's SSH key per git host (contract/git-ssh.ts): two keys of their den-git-credentials
// Secret beside the https tokens, written with their own forwarded token. The private key goes
// to the API server and nowhere else; what is answered is its public half (what the person adds
// to the git host) and the fingerprint of the host key Den checks.
import type { KubeClient } from '../../kube/client.js';
import { HttpError } from '../../koa/errors.js';
import { GIT_CREDENTIALS_SECRET } from '../../contract/personal.js';
import { hostOfKeyPart, keyFingerprint, knownHostName, knownHostsLine, parseKnownHost, privateKeyProblem, publicLineOf, SSH_KEY_PREFIX, SSH_KNOWN_HOST_MAX, sshKeyName, type KnownHostKey } from '../../contract/git-ssh.js';
import { decode, readSecret, rewrite, type StoredSecret } from './personal-store.js';

/** One host's SSH key as REST answers it: never the private key. */
export interface SshKeyLine {
  host: string;
  /** The kept key's public half (`ssh-ed25519 AAAA…`), to add to the git host. */
  public_key: string;
  /** The SHA256 fingerprint of the host key Den expects the host to show. */
  host_key_fingerprint: string;
}

function lineOf(host: string, data: Record<string, string>): SshKeyLine | undefined {
  const privateKey = data[sshKeyName(host)];
  const knownHost = data[knownHostName(host)];
  const known = knownHost ? parseKnownHost(decode(knownHost), host) : undefined;
  const publicKey = privateKey ? publicLineOf(decode(privateKey)) : undefined;
  if (!publicKey || !known || typeof known === 'string') return undefined;
  return { host, public_key: publicKey, host_key_fingerprint: keyFingerprint(known.blob) };
}

/** The hosts the person keeps an SSH key for, sorted. */
export function sshKeyLinesOf(secret: StoredSecret): SshKeyLine[] {
  const data = secret.data ?? {};
  return Object.keys(data)
    .filter((k) => k.startsWith(SSH_KEY_PREFIX))
    .map((k) => lineOf(hostOfKeyPart(k.slice(SSH_KEY_PREFIX.length)), data))
    .filter((line): line is SshKeyLine => line !== undefined)
    .sort((a, b) => a.host.localeCompare(b.host));
}

/** 400 naming the field when the key or the known host line cannot be used for `host`; else the parsed host key. */
export function checkSshKey(host: string, privateKey: string, knownHost: string): KnownHostKey {
  const keyProblem = privateKeyProblem(privateKey);
  if (keyProblem) throw new HttpError(400, keyProblem);
  if (knownHost.length > SSH_KNOWN_HOST_MAX) throw new HttpError(400, `ssh_known_host must be at most ${SSH_KNOWN_HOST_MAX} characters`);
  const known = parseKnownHost(knownHost, host);
  if (typeof known === 'string') throw new HttpError(400, known);
  return known;
}

/** Keeps the key and the host's key for `host` (replacing what it had); answers the line REST shows. */
export async function setSshKey(kube: KubeClient, namespace: string, host: string, privateKey: string, knownHost: string): Promise<SshKeyLine> {
  const known = checkSshKey(host, privateKey, knownHost);
  const key = privateKey.replace(/\r\n/g, '\n').trim() + '\n';
  const data = { [sshKeyName(host)]: Buffer.from(key, 'utf8').toString('base64'), [knownHostName(host)]: Buffer.from(`${knownHostsLine(host, known)}\n`, 'utf8').toString('base64') };
  await rewrite(kube, GIT_CREDENTIALS_SECRET, namespace, () => ({ data }));
  return { host, public_key: publicLineOf(key)!, host_key_fingerprint: keyFingerprint(known.blob) };
}

export async function removeSshKey(kube: KubeClient, namespace: string, host: string): Promise<void> {
  await rewrite(kube, GIT_CREDENTIALS_SECRET, namespace, (current) => {
    if (!Object.hasOwn(current.data ?? {}, sshKeyName(host))) throw new HttpError(404, `you keep no SSH key for ${host}`);
    return { data: { [sshKeyName(host)]: null, [knownHostName(host)]: null } };
  });
}
