import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { closeServer } from '../../process/http-close.js';

describe('closeServer', () => {
  it('closes a kept-alive connection once its request in flight is answered, not after the keep-alive timeout', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((ok) => (answer = ok));
    let received!: () => void;
    const arrived = new Promise<void>((ok) => (received = ok));
    const server = http.createServer({ keepAliveTimeout: 65_000 }, (_req, res) => {
      received();
      void answered.then(() => res.end('ok'));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const agent = new http.Agent({ keepAlive: true });
    try {
      const response = new Promise<string>((ok, fail) => {
        http.get({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, agent }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c)).on('end', () => ok(body));
        }).on('error', fail);
      });
      await arrived;
      const closing = closeServer(server).then(() => 'closed' as const);
      answer();
      expect(await response, 'the request in flight is answered').to.equal('ok');
      const outcome = await Promise.race([closing, new Promise((r) => setTimeout(() => r('still open after 3 s'), 3_000))]);
      expect(outcome).to.equal('closed');
    } finally {
      agent.destroy();
      server.closeAllConnections();
    }
  });
});
