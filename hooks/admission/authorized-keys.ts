// The webhooks' refusals for `spec.sshAuthorizedKeys` (UserSpace and Workspace alike); what
// makes one entry a key is ssh/authorized-keys.ts.
import { checkAuthorizedKey, type KeyCheck } from '../../ssh/authorized-keys.js';
import type { Violation } from './violations.js';

/**
 * The refusals for `spec.sshAuthorizedKeys` of an object: not a list, or an entry that is not
 * a key. Entries `previous` already held are not judged again, so a key admitted under older
 * rules does not block an unrelated update.
 */
export function authorizedKeysViolations(keys: unknown, previous: unknown, check: (entry: unknown) => KeyCheck = checkAuthorizedKey): Violation[] {
  if (keys === undefined || keys === null) return [];
  if (!Array.isArray(keys)) return [{ rule: 'ssh-key', field: 'spec.sshAuthorizedKeys', message: 'must be a list of SSH public keys', advice: 'SSH keys are a list, one public key line each (such as the line of ~/.ssh/id_ed25519.pub): write them as a list.' }];
  const known = new Set(Array.isArray(previous) ? previous : []);
  return keys.flatMap((key, i): Violation[] => {
    if (known.has(key)) return [];
    const result = check(key);
    return result.ok
      ? []
      : [
          {
            rule: 'ssh-key',
            field: `spec.sshAuthorizedKeys[${i}]`,
            message: `not a valid SSH public key: ${result.reason}`,
            advice: `This is not an SSH public key Den can use (${result.reason}). Paste the one line of your public key file, such as ~/.ssh/id_ed25519.pub: it starts with ssh-ed25519, ecdsa-sha2- or ssh-rsa.`,
          },
        ];
  });
}
