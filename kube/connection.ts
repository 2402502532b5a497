// How a process reaches the API server: in-cluster service account, or KUBECONFIG.
import { KubeConfig } from '@kubernetes/client-node';

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

/**
 * The process's own connection: the in-cluster service account when running in a pod,
 * else the file named by `kubeconfig` (or KUBECONFIG, or ~/.kube/config).
 */
export function loadConnection(kubeconfig?: string): KubeConnection {
  const kc = new KubeConfig();
  try {
    if (kubeconfig) kc.loadFromFile(kubeconfig);
    else kc.loadFromDefault();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const reason = e.code === 'ENOENT' ? 'no such file' : e.code === 'EACCES' ? 'permission denied' : e.message;
    throw new Error(`kubeconfig ${kubeconfig ?? process.env.KUBECONFIG ?? '~/.kube/config'}: ${reason}`);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig: no current cluster (set KUBECONFIG or --kubeconfig)');
  return {
    server: cluster.server.replace(/\/$/, ''),
    async credentials() {
      const opts: { ca?: Buffer; cert?: Buffer; key?: Buffer; rejectUnauthorized?: boolean; headers?: Record<string, string> } = {};
      await kc.applyToHTTPSOptions(opts as never);
      const tls: TlsOptions = { ca: opts.ca, cert: opts.cert, key: opts.key };
      if (opts.rejectUnauthorized === false) tls.rejectUnauthorized = false;
      return { tls, authorization: opts.headers?.Authorization ?? opts.headers?.authorization };
    },
  };
}
