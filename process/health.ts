// Plain-HTTP liveness, readiness and metrics, on a port of its own in every role: /healthz
// answers while the process runs, /readyz only while the role's `ready()` says so (caches
// synced, listening), /metrics the process's figures in Prometheus's text format.
import { once } from 'node:events';
import { http } from './node-http.js';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.js';
import { parsers, type Address, type Setting } from './settings.js';

export const healthListenSetting: Setting<Address> = {
  flag: 'health-listen',
  env: 'DEN_HEALTH_LISTEN',
  describe: 'plain-HTTP address of /healthz, /readyz and /metrics',
  parse: parsers.address,
  default: { host: '0.0.0.0', port: 8081 },
};

export interface HealthServer {
  address: AddressInfo;
  close(): Promise<void>;
}

export async function startHealthServer(listen: Address, ready: () => boolean, metrics: Metrics): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const send = (status: number, body: string, contentType = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
      res.end(body);
    };
    if (path === '/healthz') send(200, 'ok\n');
    else if (path === '/readyz') {
      if (ready()) send(200, 'ok\n');
      else send(503, 'not ready\n');
    }
    else if (path === '/metrics') {
      metrics.exposition().then(
        ({ contentType, body }) => send(200, body, contentType),
        (err: Error) => send(500, `metrics unavailable: ${err.message}\n`),
      );
    } else send(404, 'not found\n');
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  server.listen(listen.port, listen.host);
  await once(server, 'listening');
  return {
    address: server.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
