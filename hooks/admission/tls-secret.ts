// Keeps the webhook TLS material in the Secret `den-webhook-tls`. Several manager replicas
// may start, or rotate, at the same moment: the Secret is created only when absent and
// replaced only at the resourceVersion read, and whoever loses re-reads the winner's material.
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isAlreadyExists, isConflict } from '../../kube/errors.js';
import { LABELS } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { WEBHOOK_TLS_SECRET } from '../../contract/names.js';
import { materialOf, planTls, secretData, type CertPolicy, type TlsPlan } from './certs.js';


interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

export interface EnsureTlsOptions {
  client: KubeClient;
  namespace: string;
  hosts: string[];
  now: Date;
  policy?: CertPolicy;
}

const MAX_ATTEMPTS = 5;

function readSecret(client: KubeClient, namespace: string): Promise<Secret | undefined> {
  return client.getIfExists<Secret>(RESOURCES.secret, WEBHOOK_TLS_SECRET, namespace);
}

/** The Secret's material after making sure it is present, valid for `hosts` and not due for rotation. */
export async function ensureWebhookTls(opts: EnsureTlsOptions): Promise<TlsPlan> {
  const { client, namespace, hosts, now, policy } = opts;
  for (let attempt = 1; ; attempt++) {
    const secret = await readSecret(client, namespace);
    const plan = planTls(secret ? materialOf(secret.data) : undefined, hosts, now, policy);
    if (secret && plan.action === 'kept') return plan;
    const body: Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      // The type of a Secret is immutable: keep whatever an installer created.
      type: secret?.type ?? 'kubernetes.io/tls',
      metadata: {
        name: WEBHOOK_TLS_SECRET,
        namespace,
        labels: { ...secret?.metadata?.labels, [LABELS.managedBy]: 'den' },
        ...(secret ? { resourceVersion: secret.metadata?.resourceVersion } : {}),
      },
      data: secretData(plan.material),
    };
    try {
      if (secret) await client.replace(RESOURCES.secret, body, { namespace });
      else await client.create(RESOURCES.secret, body, namespace);
      return plan;
    } catch (err) {
      // Another replica wrote first: its material is as good as ours, so read it and check it.
      if (!(isAlreadyExists(err) || isConflict(err)) || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}
