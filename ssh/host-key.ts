// The gateway's SSH host key: how a new one is made (by the manager for the cluster's Secret,
// by the gateway outside the cluster) and the Secret that keeps it, which the kubelet mounts
// into every gateway replica.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { GATEWAY_HOST_KEY_FILE, GATEWAY_HOST_KEY_SECRET } from '../contract/names.js';
import { sshString, uint32 } from './wire.js';

export const HOST_KEY_SECRET = GATEWAY_HOST_KEY_SECRET;
export const HOST_KEY_SECRET_KEY = GATEWAY_HOST_KEY_FILE;
export const HOST_KEY_SECRET_PUBLIC_KEY = 'ssh_host_ed25519_key.pub';

export interface HostKeyPair {
  /** OpenSSH private key format. */
  privateKey: string;
  /** `ssh-ed25519 AAAA… comment`, for known_hosts. */
  publicKey: string;
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
