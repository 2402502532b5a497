// A git smart-HTTP server on loopback for tests: Node's http server running git's own
// `git http-backend` as a CGI, behind basic auth that accepts one password (a token). Each
// authenticated request first runs `onAuthenticated` (a test looks at the process list there,
// while git is waiting on the answer).
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';

const HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `127.0.0.1:<port>`: the host a credential is kept for. */
  host: string;
  /** Requests refused for want of the right credential. */
  refused: number;
  close(): Promise<void>;
}

function authorized(header: string | undefined, token: string): { user: string } | undefined {
  const m = /^Basic (.+)$/.exec(header ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const password = Buffer.from(decoded.slice(colon + 1));
  const wanted = Buffer.from(token);
  return colon > 0 && password.length === wanted.length && timingSafeEqual(password, wanted) ? { user: decoded.slice(0, colon) } : undefined;
}

/** Serves the bare repositories under `root` to whoever sends `token` as the password. */
export async function startGitHttpServer(root: string, token: string, onAuthenticated: () => void = () => undefined): Promise<GitHttpServer> {
  const state = { refused: 0 };
  const server = http.createServer((req, res) => {
    const who = authorized(req.headers.authorization, token);
    if (!who) {
      state.refused++;
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="den test git"', 'Content-Type': 'text/plain' }).end('authentication required\n');
      return;
    }
    onAuthenticated();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const cgi = spawn(HTTP_BACKEND, [], {
      env: {
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        HTTP_GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        REMOTE_USER: who.user,
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersSent = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const [name, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      headersSent = true;
      res.write(head.subarray(end + 4));
    });
    cgi.stderr.resume();
    cgi.on('close', () => {
      if (!headersSent) res.writeHead(500).end('git http-backend answered nothing\n');
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    get refused() {
      return state.refused;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
