// How a process reaches the API server: a kubeconfig, or the in-cluster ServiceAccount.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { inClusterConfig, readPlainKubeconfig, SERVICE_ACCOUNT_TOKEN, type PlainConfig } from './plain-kubeconfig.js';

const require = createRequire(import.meta.url);

/** Where a process looks for its cluster when no kubeconfig is named: the words every help text and page uses. */
export const KUBECONFIG_LOOKUP = 'KUBECONFIG, else ~/.kube/config, else the in-cluster ServiceAccount';

/** What to do when no cluster is named: one line, the same for every command. */
export const NO_CLUSTER =
  'no cluster configured: name a kubeconfig with --kubeconfig (DEN_KUBECONFIG) or KUBECONFIG, create ~/.kube/config, or run in a pod with a ServiceAccount';

/**
 * The process cannot know which cluster to use or how: nothing named or found, or a
 * kubeconfig that cannot be used. Bad configuration (exit 2), not an outage to wait out.
 */
export class KubeconfigError extends Error {
  override readonly name = 'KubeconfigError';
}

export interface TlsOptions {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  rejectUnauthorized?: boolean;
}

export interface KubeConnection {
  /** `https://host:port` (or `http://` for the in-process fake in tests). */
  server: string;
  /** TLS material and the process's own credentials, fetched per request so rotated tokens are picked up. */
  credentials(): Promise<{ tls: TlsOptions; authorization?: string }>;
}

/** A connection with a fixed bearer token (tests, and tokens minted for a person). */
export function staticConnection(server: string, token?: string, tls: TlsOptions = {}): KubeConnection {
  const authorization = token ? `Bearer ${token}` : undefined;
  return { server: server.replace(/\/$/, ''), credentials: async () => ({ tls, authorization }) };
}

/** True when the process runs in a pod with a mounted ServiceAccount token. */
export function inCluster(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT) && existsSync(SERVICE_ACCOUNT_TOKEN);
}

/**
 * What client-node's loadFromDefault would load (KUBECONFIG, else ~/.kube/config, else the
 * in-cluster ServiceAccount), read without that library when it is a plain form; undefined
 * when the library is needed. Refuses instead of falling back to http://localhost:8080 when
 * there is none of them.
 */
function loadPlain(kubeconfig: string | undefined, env: NodeJS.ProcessEnv): PlainConfig | undefined {
  if (kubeconfig) return readPlainKubeconfig(kubeconfig);
  if (env.KUBECONFIG) return env.KUBECONFIG.includes(delimiter) || !existsSync(env.KUBECONFIG) ? undefined : readPlainKubeconfig(env.KUBECONFIG);
  const home = join(env.HOME || homedir(), '.kube', 'config');
  if (existsSync(home)) return readPlainKubeconfig(home);
  if (inCluster(env)) return inClusterConfig(env);
  throw new KubeconfigError(NO_CLUSTER);
}

/** The same through client-node (exec plugins, auth providers, proxies, merged lists), loaded only then. */
function loadWithLibrary(kubeconfig: string | undefined): PlainConfig | undefined {
  const { KubeConfig: Config } = require('@kubernetes/client-node') as { KubeConfig: new () => KubeConfig };
  const kc = new Config();
  if (kubeconfig) kc.loadFromFile(kubeconfig);
  else kc.loadFromDefault();
  const cluster = kc.getCurrentCluster();
  if (!cluster) return undefined;
  return {
    cluster: { name: cluster.name, server: cluster.server, skipTLSVerify: cluster.skipTLSVerify },
    async credentials() {
      const opts: { ca?: Buffer; cert?: Buffer; key?: Buffer; rejectUnauthorized?: boolean; headers?: Record<string, string> } = {};
      await kc.applyToHTTPSOptions(opts as never);
      return { tls: { ca: opts.ca, cert: opts.cert, key: opts.key }, authorization: opts.headers?.Authorization ?? opts.headers?.authorization };
    },
  };
}

/**
 * The process's own connection: the file named by `kubeconfig`, else KUBECONFIG, else
 * ~/.kube/config, else the in-cluster service account when running in a pod. Throws a
 * KubeconfigError when none is there or it cannot be used.
 */
export function loadConnection(kubeconfig?: string, env: NodeJS.ProcessEnv = process.env): KubeConnection {
  let config: PlainConfig | undefined;
  try {
    config = loadPlain(kubeconfig, env) ?? loadWithLibrary(kubeconfig);
  } catch (err) {
    if (err instanceof KubeconfigError) throw err;
    const e = err as NodeJS.ErrnoException;
    const reason = e.code === 'ENOENT' ? 'no such file' : e.code === 'EACCES' ? 'permission denied' : e.message;
    throw new KubeconfigError(`kubeconfig ${kubeconfig ?? env.KUBECONFIG ?? '~/.kube/config'}: ${reason}`);
  }
  if (!config) throw new KubeconfigError('kubeconfig: no current cluster (set KUBECONFIG or --kubeconfig)');
  const { cluster } = config;
  if (cluster.server.startsWith('http:') && !cluster.skipTLSVerify) {
    throw new KubeconfigError(`kubeconfig: cluster ${cluster.name} is plain HTTP (${cluster.server}); use https, or set insecure-skip-tls-verify: true for it`);
  }
  return {
    server: cluster.server.replace(/\/$/, ''),
    async credentials() {
      const { tls, authorization } = await config.credentials();
      return { tls: cluster.skipTLSVerify ? { ...tls, rejectUnauthorized: false } : tls, authorization };
    },
  };
}
