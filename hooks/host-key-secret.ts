// The manager creates the gateway's host key Secret once, so every gateway replica and every
// restart presents the same key while the gateway itself never reads Secrets.
import type { KubeClient, KubeObject } from '../kube/client.js';
import { isAlreadyExists, isConflict } from '../kube/errors.js';
import { FIELD_MANAGERS, LABELS } from '../kube/group.js';
import { RESOURCES } from '../kube/resources.js';
import { generateHostKey, HOST_KEY_SECRET, HOST_KEY_SECRET_KEY, HOST_KEY_SECRET_PUBLIC_KEY, type HostKeyPair } from '../ssh/host-key.js';

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
