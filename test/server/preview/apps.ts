// The "apps" the preview tests reach through Den: real loopback servers that the fake pod's
// port forward connects to (test/support/fake-exec.ts). An HTTP app that serves a page with
// a script and a stylesheet, echoes what it was sent, sets cookies and redirects; and a
// websocket echo app that also says which cookies and headers its upgrade carried.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

/** What the HTTP app saw of one request. */
export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  bodyBytes: number;
}

export interface TestApps {
  /** Port of the HTTP app on this machine (the "pod"). */
  httpPort: number;
  /** Port of the websocket echo app. */
  wsPort: number;
  seen: Seen[];
  close(): Promise<void>;
}

const PAGE = `<!doctype html><html><head><title>Preview app</title><link rel="stylesheet" href="style.css"></head>
<body><h1 id="greeting">loading</h1><p id="cookies"></p><script src="app.js"></script></body></html>`;
const SCRIPT = `document.getElementById('greeting').textContent = 'hello from the app';
fetch('echo').then((r) => r.json()).then((seen) => { document.getElementById('cookies').textContent = 'app saw cookie: ' + (seen.headers.cookie || 'none'); });`;
const STYLE = `h1 { color: rgb(1, 2, 3); }`;

// A hostile app on Den's own origin (path-based): its script reads the session's CSRF token as
// any same-origin script can, then tries to mint an API token as the viewer, by REST and by the
// profile page's form route, and to read a Den page it opens in a window of its own.
const MINT_PAGE = `<!doctype html><html><head><title>Mint</title></head><body><p id="rest">pending</p><p id="form">pending</p><p id="opened">pending</p><script src="mint.js"></script></body></html>`;
const MINT_SCRIPT = `(async () => {
  const say = (id, text) => { document.getElementById(id).textContent = text; };
  const session = await (await fetch('/api/v1/session')).json();
  const rest = await fetch('/api/v1/tokens?name=stolen-rest', { method: 'POST', headers: { 'X-CSRF-Token': session.csrf_token } });
  say('rest', 'rest ' + rest.status + ' ' + (await rest.text()));
  const form = await fetch('/profile/tokens', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '_csrf=' + encodeURIComponent(session.csrf_token) + '&name=stolen-form' });
  const text = await form.text();
  say('form', 'form ' + form.status + ' ' + (/svc_[A-Za-z0-9_-]{20,}/.test(text) ? 'token in the answer' : 'no token'));
  const w = window.open('/profile', 'den-profile');
  let read = 'could not read';
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 100));
    try { if (w && w.document && w.document.querySelector('input[name=_csrf]')) { read = 'read the profile page'; break; } } catch (e) { read = 'could not read: ' + e.name; }
  }
  say('opened', 'opened ' + read);
})();`;

export async function startTestApps(): Promise<TestApps> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let bodyBytes = 0;
    req.on('data', (c: Buffer) => (bodyBytes += c.length));
    req.on('end', () => {
      const record = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, bodyBytes };
      seen.push(record);
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(PAGE);
      if (path === '/app.js') return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(SCRIPT);
      // ?coop=1: the app answers with the opener policy Den's pages have, to share their browsing context group.
      if (path === '/mint') return void res.writeHead(200, { 'Content-Type': 'text/html', ...((req.url ?? '').includes('coop=1') ? { 'Cross-Origin-Opener-Policy': 'same-origin' } : {}) }).end(MINT_PAGE);
      if (path === '/mint.js') return void res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(MINT_SCRIPT);
      if (path === '/style.css') return void res.writeHead(200, { 'Content-Type': 'text/css' }).end(STYLE);
      if (path === '/slow') return void setTimeout(() => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('late'), 800);
      if (path === '/echo') return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(record));
      if (path === '/set-cookies') {
        res.writeHead(200, {
          'Content-Type': 'text/plain',
          'Set-Cookie': ['app_choice=blue; Path=/', 'svc_session=planted-by-app; Path=/; HttpOnly', 'wide=1; Domain=127.0.0.1; Path=/settings', '__Host-root=1; Path=/; Secure'],
          'Clear-Site-Data': '"cookies"',
          'Service-Worker-Allowed': '/',
        });
        return void res.end('cookies set');
      }
      if (path === '/go-home') return void res.writeHead(302, { Location: '/login?from=app' }).end();
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`no ${path} here`);
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  const wsServer = http.createServer((_req, res) => res.writeHead(426).end('websockets only'));
  wsServer.on('upgrade', (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.send(JSON.stringify({ path: req.url, cookie: req.headers.cookie ?? null, origin: req.headers.origin ?? null, prefix: req.headers['x-forwarded-prefix'] ?? null }));
      ws.on('message', (data, isBinary) => ws.send(isBinary ? data : `echo: ${String(data)}`, { binary: isBinary }));
    });
  });
  await Promise.all([new Promise<void>((r) => server.listen(0, '127.0.0.1', r)), new Promise<void>((r) => wsServer.listen(0, '127.0.0.1', r))]);
  return {
    httpPort: (server.address() as AddressInfo).port,
    wsPort: (wsServer.address() as AddressInfo).port,
    seen,
    async close() {
      for (const c of wss.clients) c.terminate();
      server.closeAllConnections();
      wsServer.closeAllConnections();
      await Promise.all([new Promise((r) => server.close(r)), new Promise((r) => wsServer.close(r))]);
    },
  };
}
