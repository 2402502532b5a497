// One real API server (with kube-controller-manager) and one Den on it, shared by every test
// file of a run that asks for it. The mocha run's main process holds them (global fixtures in
// global.ts); a test file running in a worker asks the main process for their addresses over
// loopback, and the first such request starts them. Files that must break the cluster (kill the
// API server, stop the controller-manager) start their own with RealKube.start.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RealKubeAddress } from './cluster.js';
import type { RealDenAddress } from './den.js';

export const COORDINATOR_ENV = 'DEN_TEST_REAL_KUBE';

export interface SharedRealKube {
  kube: RealKubeAddress;
  den: RealDenAddress;
}

interface Holder {
  start(): Promise<SharedRealKube>;
  stop(): Promise<void>;
}

/** What the main process holds: started on first request, stopped at the end of the run. */
export function sharedHolder(): Holder {
  let started: Promise<{ address: SharedRealKube; stop: () => Promise<void> }> | undefined;
  return {
    async start() {
      started ??= (async () => {
        const { startInstalledKube } = await import('./den.js');
        const { kube, den, stop } = await startInstalledKube();
        return { address: { kube: kube.address, den: den.address }, stop };
      })();
      return (await started).address;
    },
    async stop() {
      if (!started) return;
      const s = await started.catch(() => undefined);
      await s?.stop();
    },
  };
}

/** Serves the holder to the workers; answers the URL to put in COORDINATOR_ENV. */
export async function serveCoordinator(holder: Holder): Promise<{ url: string; close(): Promise<void> }> {
  const secret = randomBytes(16).toString('hex');
  const server = http.createServer((req, res) => {
    if (req.url !== `/${secret}/shared`) {
      res.writeHead(404).end();
      return;
    }
    holder.start().then(
      (address) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(address)),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err.message),
    );
  });
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${secret}/shared`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

let local: Holder | undefined;

/**
 * The run's shared real API server and Den: from the mocha main process, or, outside mocha's
 * global fixtures, started in this process and stopped when it exits.
 */
export async function sharedRealKube(): Promise<SharedRealKube> {
  const url = process.env[COORDINATOR_ENV];
  if (url) {
    const res = await fetch(url, { signal: AbortSignal.timeout(180_000) });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`the shared real API server did not start: ${body}`);
    return JSON.parse(body) as SharedRealKube;
  }
  if (!local) {
    local = sharedHolder();
    const holder = local;
    process.once('beforeExit', () => void holder.stop());
  }
  return local.start();
}
