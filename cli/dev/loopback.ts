// The one-time listener `den login` waits on: 127.0.0.1 only, one POST carrying the state it
// was started with (compared in constant time) and the new token in the form body, never in
// a URL. Anything else is refused; small bodies only; closed once the token has arrived.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// As process/node-http.ts (cli/dev imports nothing of Den): every `den` command loads this
// file, and an ES module's import of node:http would load undici into `den manager` too.
const http: typeof import('node:http') = process.getBuiltinModule('node:http');

const BODY_LIMIT = 4096;

export interface Delivered {
  token: string;
  name: string;
}

export interface LoopbackListener {
  port: number;
  /** Settles with the token once the browser has posted it with the right state. */
  delivered: Promise<Delivered>;
  close(): void;
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const PAGE_HEADERS = { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Security-Policy': "default-src 'none'", 'Referrer-Policy': 'no-referrer' };

function page(title: string, text: string): string {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title><body><h1>${title}</h1><p>${text}</p></body></html>`;
}

export async function listenForToken(state: string): Promise<LoopbackListener> {
  let deliver!: (d: Delivered) => void;
  const delivered = new Promise<Delivered>((resolve) => (deliver = resolve));
  const server: Server = http.createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/callback') {
        res.writeHead(404, PAGE_HEADERS).end(page('Not here', 'This address only receives the sign-in of den.'));
        return;
      }
      const form = req.headers['content-type']?.startsWith('application/x-www-form-urlencoded') ? await readForm(req) : undefined;
      const token = form?.get('token') ?? '';
      const name = form?.get('name') ?? '';
      if (!form || !equal(form.get('state') ?? '', state) || !token.startsWith('svc_') || !name) {
        res.writeHead(400, PAGE_HEADERS).end(page('Sign-in refused', 'This sign-in does not belong to the waiting den command. Run den login again.'));
        return;
      }
      res.writeHead(200, { ...PAGE_HEADERS, Connection: 'close' }).end(page('den is signed in', 'You can close this tab and return to the terminal.'));
      deliver({ token, name });
    })().catch((err: Error) => res.destroy(err));
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    delivered,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}
