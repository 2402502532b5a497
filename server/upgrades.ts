// Which websocket goes where on den server's HTTP server: port previews (a preview path, or
// any path of an app's own host) to the preview proxy, everything else to the browser terminal (which answers 404 for paths that are not its own).
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { isPreviewPath } from './preview/address.js';
import type { PreviewProxy } from './preview/proxy.js';
import type { TerminalServer } from './terminal/upgrade.js';
import { clientAddress, type TrustedProxies } from './http/client-address.js';

export function routeUpgrades(server: http.Server, routes: { terminals: TerminalServer; previews: PreviewProxy; trustedProxies: TrustedProxies }): void {
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (!routes.previews.appOf(req) && !isPreviewPath(path)) return routes.terminals.handleUpgrade(req, socket, head);
    const forwardedFor = req.headers['x-forwarded-for'];
    const address = clientAddress(req.socket.remoteAddress, Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor, routes.trustedProxies);
    routes.previews.handleUpgrade(req, socket, head, address);
  });
  routes.terminals.checkSessions();
}
