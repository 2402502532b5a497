// Points the `den-webhooks` configurations at this manager: each webhook's whole clientConfig is
// Den's (the in-cluster Service, or under `--webhook-url` a URL), with the caBundle that trusts
// its CA. The configurations are watched, so a re-applied chart or any other writer is undone
// within moments instead of leaving the webhooks failing closed until the periodic check.
import { setMaxListeners } from 'node:events';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isConflict, isNotFound } from '../../kube/errors.js';
import { Informer } from '../../kube/informer.js';
import { sleep, untilAborted } from '../../process/timers.js';
import { RESOURCES, type ResourceType } from '../../kube/resources.js';
import { WEBHOOK_CONFIGURATION, WEBHOOKS } from '../../contract/names.js';

/** Each webhook entry of the install chart and the path it is served at. */
const WEBHOOK_PATHS: Record<string, string> = Object.fromEntries(Object.values(WEBHOOKS).map((w) => [w.name, w.path]));

/** The port of the webhook Service (infra/install/webhooks.ts). */
const SERVICE_PORT = 443;

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
  /** The in-cluster Service the API server dials when there is no `webhookUrl`. */
  service: { name: string; namespace: string };
  webhookUrl?: string;
}

/** The configuration with every webhook's clientConfig exactly the one Den means; pure. */
export function registeredConfiguration(config: WebhookConfiguration, reg: Registration): WebhookConfiguration {
  const caBundle = Buffer.from(reg.caBundle).toString('base64');
  const base = reg.webhookUrl?.replace(/\/+$/, '');
  return {
    ...config,
    webhooks: (config.webhooks ?? []).map((wh) => {
      const current = wh.clientConfig ?? {};
      const path = WEBHOOK_PATHS[wh.name] ?? current.service?.path ?? (current.url ? new URL(current.url).pathname : '');
      const clientConfig: ClientConfig = base
        ? { url: `${base}${path}`, caBundle }
        : { service: { namespace: reg.service.namespace, name: reg.service.name, path, port: SERVICE_PORT }, caBundle };
      return { ...wh, clientConfig };
    }),
  };
}

/** Whether `config` already routes every webhook as `reg` means. */
function isRegistered(config: WebhookConfiguration, reg: Registration): boolean {
  return JSON.stringify(registeredConfiguration(config, reg).webhooks) === JSON.stringify(config.webhooks);
}

export type RegistrationResult = 'updated' | 'unchanged' | 'missing';

const MAX_ATTEMPTS = 5;
const ERROR_RETRY_MS = 2_000;
const CONFIGURATION_TYPES = { mutating: RESOURCES.mutatingWebhookConfiguration, validating: RESOURCES.validatingWebhookConfiguration } as const;

async function registerOne(client: KubeClient, type: ResourceType, reg: Registration): Promise<RegistrationResult> {
  for (let attempt = 1; ; attempt++) {
    let config: WebhookConfiguration;
    try {
      config = await client.get<WebhookConfiguration>(type, WEBHOOK_CONFIGURATION);
    } catch (err) {
      if (isNotFound(err)) return 'missing';
      throw err;
    }
    if (isRegistered(config, reg)) return 'unchanged';
    try {
      await client.replace(type, registeredConfiguration(config, reg));
      return 'updated';
    } catch (err) {
      if (!isConflict(err) || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}

/** Registers both configurations; a missing one is reported, not fatal (the installer creates them). */
export async function registerWebhooks(client: KubeClient, reg: Registration): Promise<{ mutating: RegistrationResult; validating: RegistrationResult }> {
  const mutating = await registerOne(client, CONFIGURATION_TYPES.mutating, reg);
  const validating = await registerOne(client, CONFIGURATION_TYPES.validating, reg);
  return { mutating, validating };
}

export interface KeepRegisteredOptions {
  client: KubeClient;
  /** The registration wanted now (the caBundle changes when the CA rotates). */
  wanted: () => Registration;
  signal: AbortSignal;
  onRestored: (kind: keyof typeof CONFIGURATION_TYPES) => void;
  onError: (err: unknown) => void;
  /**
   * Least time between two writes of one configuration: should another writer insist on a
   * different clientConfig (a second manager with other settings), the two alternate at this
   * pace instead of as fast as the API server answers.
   */
  minIntervalMs?: number;
}

/**
 * Watches both `den-webhooks` configurations and puts Den's clientConfig back whenever a change
 * differs from it. Runs until `signal` aborts.
 */
export async function keepWebhooksRegistered(opts: KeepRegisteredOptions): Promise<void> {
  const { client } = opts;
  const minIntervalMs = opts.minIntervalMs ?? 500;
  // The two watches and their waits listen for the stop on a signal of their own, not on the
  // manager's, which many other loops already listen on.
  const stopping = new AbortController();
  setMaxListeners(16, stopping.signal);
  const signal = stopping.signal;
  if (opts.signal.aborted) stopping.abort();
  else opts.signal.addEventListener('abort', () => stopping.abort(), { once: true });
  const runs = Object.entries(CONFIGURATION_TYPES).map(async ([kind, type]) => {
    const informer = new Informer<WebhookConfiguration>(client, type, { fieldSelector: `metadata.name=${WEBHOOK_CONFIGURATION}`, onError: opts.onError });
    // Set by every event, cleared when looked at: an event during a write is not lost.
    let changed = false;
    let notify: (() => void) | undefined;
    informer.on(() => {
      changed = true;
      notify?.();
    });
    const aborted = untilAborted(signal);
    const restoring = (async () => {
      let lastWrite = 0;
      while (!signal.aborted) {
        if (!changed) await Promise.race([new Promise<void>((resolve) => (notify = resolve)), aborted]);
        notify = undefined;
        changed = false;
        await sleep(lastWrite + minIntervalMs - Date.now(), signal);
        const observed = informer.get(WEBHOOK_CONFIGURATION);
        if (signal.aborted || !observed || isRegistered(observed, opts.wanted())) continue;
        lastWrite = Date.now();
        try {
          await client.replace(type, registeredConfiguration(observed, opts.wanted()));
          opts.onRestored(kind as keyof typeof CONFIGURATION_TYPES);
        } catch (err) {
          // A conflict means a newer version is on its way through the watch, and wakes us again.
          if (isConflict(err)) continue;
          opts.onError(err);
          changed = true;
          await sleep(ERROR_RETRY_MS, signal);
        }
      }
    })();
    await Promise.all([informer.run(signal), restoring]);
  });
  await Promise.all(runs);
}
