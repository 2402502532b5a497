// The pod's ServiceAccount and the kubeconfig forms that need no plugin (server, CA, token or
// client certificate, inline or in files), read without @kubernetes/client-node: that library
// holds about 26 MB of heap in every process, and each full garbage collection walks it again
// (the gateway's relay collects every few MiB it relays: docs/gateway.md). Anything else
// (exec plugins, auth providers, proxies, merged KUBECONFIG lists) is left to the library.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';

export interface PlainCluster {
  name: string;
  server: string;
  skipTLSVerify: boolean;
}

export interface PlainConfig {
  cluster: PlainCluster;
  credentials(): Promise<{ tls: { ca?: Buffer; cert?: Buffer; key?: Buffer }; authorization?: string }>;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** Where a pod's ServiceAccount token is mounted. */
export const SERVICE_ACCOUNT_TOKEN = join(SERVICE_ACCOUNT_DIR, 'token');
const CLUSTER_KEYS = new Set(['server', 'certificate-authority', 'certificate-authority-data', 'insecure-skip-tls-verify', 'extensions']);
const USER_KEYS = new Set(['token', 'tokenFile', 'client-certificate', 'client-certificate-data', 'client-key', 'client-key-data', 'extensions']);

type Entry = Record<string, unknown>;

function named(list: unknown, name: unknown, field: string): Entry | undefined {
  if (!Array.isArray(list)) return undefined;
  const item = list.find((e: unknown) => (e as Entry | null)?.name === name) as Entry | undefined;
  const value = item?.[field];
  return value && typeof value === 'object' ? (value as Entry) : undefined;
}

function onlyKeys(entry: Entry, allowed: Set<string>): boolean {
  return Object.keys(entry).every((k) => allowed.has(k));
}

/** A `*-data` field (base64) or a file named relative to the kubeconfig's folder. */
function material(entry: Entry, key: string, folder: string): Buffer | undefined {
  const data = entry[`${key}-data`];
  if (typeof data === 'string') return Buffer.from(data, 'base64');
  const file = entry[key];
  if (typeof file === 'string') return readFileSync(isAbsolute(file) ? file : join(folder, file));
  return undefined;
}

/**
 * The kubeconfig file at `path` when it is one of the plain forms; undefined when it needs
 * client-node. Throws the file system's error when the file cannot be read.
 */
export function readPlainKubeconfig(path: string): PlainConfig | undefined {
  const doc = parse(readFileSync(path, 'utf8')) as Entry | null;
  if (!doc || typeof doc !== 'object') return undefined;
  const context = named(doc.contexts, doc['current-context'], 'context');
  if (!context) return undefined;
  const cluster = named(doc.clusters, context.cluster, 'cluster');
  const user = named(doc.users, context.user, 'user') ?? {};
  if (!cluster || typeof cluster.server !== 'string' || !onlyKeys(cluster, CLUSTER_KEYS) || !onlyKeys(user, USER_KEYS)) return undefined;
  const folder = dirname(path);
  const tls = { ca: material(cluster, 'certificate-authority', folder), cert: material(user, 'client-certificate', folder), key: material(user, 'client-key', folder) };
  const tokenFile = typeof user.tokenFile === 'string' ? (isAbsolute(user.tokenFile) ? user.tokenFile : join(folder, user.tokenFile)) : undefined;
  const token = typeof user.token === 'string' ? user.token : undefined;
  return {
    cluster: { name: String(context.cluster), server: cluster.server, skipTLSVerify: cluster['insecure-skip-tls-verify'] === true },
    async credentials() {
      const bearer = token ?? (tokenFile ? (await readFile(tokenFile, 'utf8')).trim() : undefined);
      return { tls, authorization: bearer ? `Bearer ${bearer}` : undefined };
    },
  };
}

/** The pod's ServiceAccount: the API server's Service address, and its CA and token read again for every request (the kubelet rotates them). */
export function inClusterConfig(env: NodeJS.ProcessEnv): PlainConfig {
  const host = String(env.KUBERNETES_SERVICE_HOST);
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT}`;
  return {
    cluster: { name: 'inCluster', server, skipTLSVerify: false },
    async credentials() {
      const [ca, token] = await Promise.all([readFile(join(SERVICE_ACCOUNT_DIR, 'ca.crt')), readFile(SERVICE_ACCOUNT_TOKEN, 'utf8')]);
      return { tls: { ca }, authorization: `Bearer ${token.trim()}` };
    },
  };
}
