// Plain-HTTP liveness and readiness for the kubelet, served by every role that has no HTTP
// server of its own: /healthz answers while the process runs, /readyz only while the role's
// `ready()` says so (caches synced, listening).
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parsers, type Address, type Setting } from './settings.js';

export const healthListenSetting: Setting<Address> = {
  flag: 'health-listen',
  env: 'DEN_HEALTH_LISTEN',
  describe: 'plain-HTTP address of /healthz and /readyz',
  parse: parsers.address,
  default: { host: '0.0.0.0', port: 8081 },
};

export interface HealthServer {
  address: AddressInfo;
  close(): Promise<void>;
}

export async function startHealthServer(listen: Address, ready: () => boolean): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    let status = 404;
    let body = 'not found\n';
    if (path === '/healthz') [status, body] = [200, 'ok\n'];
    else if (path === '/readyz') [status, body] = ready() ? [200, 'ok\n'] : [503, 'not ready\n'];
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(body);
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
