// Points the `den-webhooks` configurations at this manager: the caBundle that trusts its CA,
// and, outside the cluster (`--webhook-url`), a URL instead of the in-cluster Service.
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isConflict, isNotFound } from '../../kube/errors.js';
import { RESOURCES, type ResourceType } from '../../kube/resources.js';
import { WEBHOOK_CONFIGURATION, WEBHOOKS } from '../../infra/install/names.js';

/** Each webhook entry of the install chart and the path it is served at. */
const WEBHOOK_PATHS: Record<string, string> = Object.fromEntries(Object.values(WEBHOOKS).map((w) => [w.name, w.path]));

interface ClientConfig {
  url?: string;
  caBundle?: string;
  service?: { name: string; namespace: string; path?: string; port?: number };
}

interface WebhookConfiguration extends KubeObject {
  webhooks?: { name: string; clientConfig?: ClientConfig; [field: string]: unknown }[];
}

export interface Registration {
  /** PEM bundle of the trusted CAs. */
  caBundle: string;
  webhookUrl?: string;
}

/** The configuration with every webhook trusting `caBundle` (and dialling `webhookUrl`); pure. */
export function registeredConfiguration(config: WebhookConfiguration, reg: Registration): WebhookConfiguration {
  const caBundle = Buffer.from(reg.caBundle).toString('base64');
  const base = reg.webhookUrl?.replace(/\/+$/, '');
  return {
    ...config,
    webhooks: (config.webhooks ?? []).map((wh) => {
      const current = wh.clientConfig ?? {};
      const path = WEBHOOK_PATHS[wh.name] ?? current.service?.path ?? '';
      const clientConfig: ClientConfig = base ? { url: `${base}${path}`, caBundle } : { ...current, caBundle };
      return { ...wh, clientConfig };
    }),
  };
}

export type RegistrationResult = 'updated' | 'unchanged' | 'missing';

const MAX_ATTEMPTS = 5;

async function registerOne(client: KubeClient, type: ResourceType, reg: Registration): Promise<RegistrationResult> {
  for (let attempt = 1; ; attempt++) {
    let config: WebhookConfiguration;
    try {
      config = await client.get<WebhookConfiguration>(type, WEBHOOK_CONFIGURATION);
    } catch (err) {
      if (isNotFound(err)) return 'missing';
      throw err;
    }
    const wanted = registeredConfiguration(config, reg);
    if (JSON.stringify(wanted.webhooks) === JSON.stringify(config.webhooks)) return 'unchanged';
    try {
      await client.replace(type, wanted);
      return 'updated';
    } catch (err) {
      if (!isConflict(err) || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}

/** Registers both configurations; a missing one is reported, not fatal (the installer creates them). */
export async function registerWebhooks(client: KubeClient, reg: Registration): Promise<{ mutating: RegistrationResult; validating: RegistrationResult }> {
  const mutating = await registerOne(client, RESOURCES.mutatingWebhookConfiguration, reg);
  const validating = await registerOne(client, RESOURCES.validatingWebhookConfiguration, reg);
  return { mutating, validating };
}
