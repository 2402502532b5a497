// A preview's websocket (any upgrade): the upgrade request sent to the app over a tunnel of its
// own, the app's answer written back (its cookies confined), then bytes both ways until either
// side closes or none moves for the idle limit.
import type { IncomingMessage } from 'node:http';
import { http } from '../../process/node-http.js';
import type { Duplex } from 'node:stream';
import { answerHttp } from '../terminal/upgrade.js';
import { responseHeadersFromApp, requestHeadersForApp } from './headers.js';
import type { Admitted, Route } from './types.js';
import { closeWhenIdle, type PreviewUpstream } from './upstream.js';

/** Relays the upgrade `req` of `client` to the app `route` names, as `admitted`, over a tunnel of `tunnels`. */
export async function relayUpgrade(tunnels: PreviewUpstream, req: IncomingMessage, client: Duplex, head: Buffer, route: Route, admitted: Admitted, clientAddress: string): Promise<void> {
  const { address } = route;
  const what = `port ${address.port} of workspace ${address.workspace}`;
  const { socket, ended } = await tunnels.openTunnel(admitted, address.port);
  const upstream = http.request({
    createConnection: () => socket,
    method: 'GET',
    path: address.upstreamPath,
    headers: requestHeadersForApp(req.headers, tunnels.forwardedFor(req, route, clientAddress), { upgrade: true }),
  });
  client.once('close', () => socket.destroy());
  upstream.once('upgrade', (answer, appSocket, appHead) => {
    const headers = responseHeadersFromApp(answer.headers, address.prefix, { upgrade: true });
    const lines = [`HTTP/1.1 ${answer.statusCode ?? 101} ${answer.statusMessage ?? 'Switching Protocols'}`];
    for (const [name, value] of Object.entries(headers)) for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${String(v)}`);
    client.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (appHead.length) client.write(appHead);
    if (head.length) appSocket.write(head);
    const stopIdle = closeWhenIdle(tunnels.limits.idleMs, [appSocket, client], () => {
      client.destroy();
      appSocket.destroy();
    });
    appSocket.pipe(client);
    client.pipe(appSocket);
    const done = () => {
      stopIdle();
      client.destroy();
      appSocket.destroy();
    };
    appSocket.once('close', done);
    client.once('close', done);
    appSocket.on('error', done);
  });
  upstream.once('response', (answer) => {
    // The app refused the upgrade: its answer goes back as it is (cookies confined).
    const headers = responseHeadersFromApp(answer.headers, address.prefix, { upgrade: false });
    const lines = [`HTTP/1.1 ${answer.statusCode ?? 502} ${answer.statusMessage ?? ''}`, 'Connection: close'];
    for (const [name, value] of Object.entries(headers)) for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${String(v)}`);
    client.write(`${lines.join('\r\n')}\r\n\r\n`);
    answer.pipe(client);
  });
  upstream.once('error', (err) => {
    void ended.then((end) => {
      if (!client.destroyed) answerHttp(client, 502, `nothing answered on ${what}: ${end.error ?? err.message}`);
    });
    socket.destroy();
  });
  upstream.end();
}
