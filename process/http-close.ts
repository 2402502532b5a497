// Closing an HTTP server whose connections are kept alive between requests.
import type http from 'node:http';

const SWEEP_EVERY_MS = 100;

/**
 * Stops accepting, closes idle connections now and each connection as soon as its request in
 * flight is answered: Node's `close()` closes only the connections idle at that moment, and a
 * connection that finishes its request afterwards would stay open for the whole keep-alive
 * timeout. Resolves once every connection is gone; the caller bounds the wait.
 */
export function closeServer(server: Pick<http.Server, 'close' | 'closeIdleConnections'>): Promise<void> {
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_EVERY_MS);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
