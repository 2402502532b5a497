// `startAdmission`, called by `den manager` (contracts.md): certificate Secret, webhook
// registration, caches, then the HTTPS server; a background check keeps the certificate fresh
// and the registration intact (a re-applied install chart empties caBundle) until `signal`.
import { once } from 'node:events';
import https from 'node:https';
import type { Socket } from 'node:net';
import { closeServer } from '../../process/http-close.js';
import type { Log } from '../../process/role.js';
import type { KubeClient } from '../../kube/client.js';
import { sleep, untilAborted } from '../../process/timers.js';
import { AdminChecker } from './admins.js';
import { admissionApp } from './app.js';
import { admissionCaches, type SharedCaches } from './caches.js';
import { freshViewFrom } from './fresh-view.js';
import type { AdmissionMetrics } from './metrics.js';
import { CachingMemo } from './memo.js';
import { DEFAULT_CERT_POLICY, servingHosts, type CertPolicy, type TlsMaterial } from './certs.js';
import { WEBHOOK_CONFIGURATION, WEBHOOK_TLS_SECRET } from '../../contract/names.js';
import { keepWebhooksRegistered, registerWebhooks, type Registration } from './registration.js';
import { ensureWebhookTls } from './tls-secret.js';

export interface AdmissionOptions {
  client: KubeClient;
  namespace: string;
  listen: { host: string; port: number };
  webhookUrl?: string;
  serviceName: string;
  gpuResource: string;
  signal: AbortSignal;
  log: Log;
  metrics: AdmissionMetrics;
  /** Caches the process runs already, read instead of a copy of the webhooks' own. */
  shared?: SharedCaches;
}

/** Knobs tests and benchmarks turn; the manager uses the defaults. */
export interface AdmissionTuning {
  certPolicy?: CertPolicy;
  /** How often the Secret and the registration are re-checked. */
  checkIntervalMs?: number;
  now?: () => Date;
  adminCacheTtlMs?: number;
}

export interface AdmissionHandle {
  ready: () => boolean;
  /** The port actually bound (the configured one, or the one the OS chose for port 0). */
  port: number;
  /** The material being served now. */
  tls: () => TlsMaterial;
  /** Resolves once the server and the background work have stopped after `signal`. */
  stopped: Promise<void>;
}

export async function startAdmission(opts: AdmissionOptions): Promise<{ ready: () => boolean }> {
  return runAdmission(opts);
}

export async function runAdmission(opts: AdmissionOptions, tuning: AdmissionTuning = {}): Promise<AdmissionHandle> {
  const { client, namespace, signal, log } = opts;
  const now = tuning.now ?? (() => new Date());
  const policy = tuning.certPolicy ?? DEFAULT_CERT_POLICY;
  const hosts = servingHosts(opts.serviceName, namespace, opts.webhookUrl);

  // The bundle the configurations must carry: set before registering, so the watch that keeps
  // the registration never puts back a bundle the check has just replaced.
  let trustedBundle = '';
  const registration = (): Registration => ({ caBundle: trustedBundle, service: { name: opts.serviceName, namespace }, webhookUrl: opts.webhookUrl });
  const refreshTls = async (): Promise<TlsMaterial> => {
    const plan = await ensureWebhookTls({ client, namespace, hosts, now: now(), policy });
    trustedBundle = plan.material.caBundle;
    if (plan.action !== 'kept') log('webhook certificate', { action: plan.action, secret: WEBHOOK_TLS_SECRET, namespace, ...(plan.refused.length > 0 ? { refused: plan.refused } : {}) });
    // Trust first, then serve: the API server must know the CA before it meets the certificate.
    const registered = await registerWebhooks(client, registration());
    for (const [kind, result] of Object.entries(registered)) {
      if (result === 'missing') log('webhook configuration not found; install the den chart to route admission here', { kind, name: WEBHOOK_CONFIGURATION });
      else if (result === 'updated') log('webhook configuration registered', { kind, url: opts.webhookUrl ?? `service ${opts.serviceName}.${namespace}` });
    }
    return plan.material;
  };

  let tls: TlsMaterial;
  try {
    tls = await refreshTls();
  } catch (err) {
    throw new Error(`admission: cannot set up the webhook certificate: ${(err as Error).message}`, { cause: err });
  }

  const registrationKept = keepWebhooksRegistered({
    client,
    wanted: registration,
    signal,
    onRestored: (kind) => log('webhook configuration restored', { kind, name: WEBHOOK_CONFIGURATION }),
    onError: (err) => log('webhook configuration watch error', { error: String((err as Error)?.message ?? err) }),
  });

  const caches = admissionCaches(client, { onError: (err) => log('admission cache error', { error: String((err as Error)?.message ?? err) }), shared: opts.shared });
  const cachesRunning = caches.run(signal);
  await Promise.race([caches.synced, untilAborted(signal)]);
  if (signal.aborted) {
    await Promise.all([cachesRunning, registrationKept]);
    return { ready: () => false, port: opts.listen.port, tls: () => tls, stopped: Promise.resolve() };
  }

  const admins = new AdminChecker(client, { ttlMs: tuning.adminCacheTtlMs });
  const app = admissionApp({ view: caches.view, fresh: freshViewFrom(client), memo: new CachingMemo(), gpuResource: opts.gpuResource, isAdmin: (u) => admins.isAdmin(u), now, log, metrics: opts.metrics });
  const server = https.createServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, app.callback());
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', (err) => log('webhook connection error', { error: err.message }));
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', (err) => log('webhook TLS handshake failed', { error: err.message }));
  server.listen(opts.listen.port, opts.listen.host);
  await once(server, 'listening');
  server.on('error', (err) => log('webhook server error', { error: err.message }));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.listen.port;
  let listening = true;
  log('admission webhooks listening', { host: opts.listen.host, port });

  const checkEvery = tuning.checkIntervalMs ?? 60_000;
  const maintenance = (async () => {
    while (!signal.aborted) {
      await sleep(checkEvery, signal);
      if (signal.aborted) break;
      try {
        const fresh = await refreshTls();
        if (fresh.cert !== tls.cert || fresh.key !== tls.key) {
          server.setSecureContext({ cert: fresh.cert, key: fresh.key, minVersion: 'TLSv1.2' });
          log('webhook certificate reloaded', {});
        }
        tls = fresh;
      } catch (err) {
        log('webhook certificate check failed; retrying', { error: String((err as Error)?.message ?? err) });
      }
    }
  })();

  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      listening = false;
      // Reviews are short; a kept-alive connection must not hold the shutdown.
      void closeServer(server).then(resolve);
      setTimeout(() => {
        for (const s of sockets) s.destroy();
      }, 5_000).unref();
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  }).then(() => Promise.all([maintenance, cachesRunning, registrationKept]).then(() => undefined));

  return { ready: () => listening, port, tls: () => tls, stopped };
}
