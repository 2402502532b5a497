// GitHub's OAuth2 web flow and REST shapes on loopback, laid out as GitHub Enterprise Server
// (`/login/oauth/authorize`, `/login/oauth/access_token`, `/api/v3/user`, `/api/v3/user/emails`).
// The authorize page is a form the person submits as one of the configured accounts.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GithubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
  visibility: 'public' | 'private' | null;
}

export interface GithubAccount {
  login: string;
  emails: GithubEmail[];
}

export interface GithubFake {
  url: string;
  /** Token requests received (form fields), for checking what Den sent. */
  tokenRequests: URLSearchParams[];
  /** The emails endpoint answers this status instead (403 for a token without user:email). */
  emailsStatus?: number;
  close(): Promise<void>;
}

export async function startGithubFake(opts: { clientId: string; clientSecret: string; accounts: Record<string, GithubAccount> }): Promise<GithubFake> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const codes = new Map<string, { account: string; redirectUri: string; challenge: string }>();
  const tokens = new Map<string, string>();
  const me: GithubFake = {
    url,
    tokenRequests: [],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const readBody = (req: http.IncomingMessage) =>
    new Promise<URLSearchParams>((resolve) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => resolve(new URLSearchParams(body)));
    });

  server.on('request', async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const u = new URL(req.url ?? '/', url);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    if (u.pathname === '/login/oauth/authorize' && req.method === 'GET') {
      if (u.searchParams.get('client_id') !== opts.clientId) return json(404, { message: 'Not Found' });
      const hidden = [...u.searchParams].map(([k, v]) => `<input type="hidden" name="${k}" value="${v.replace(/"/g, '&quot;')}">`).join('');
      res.writeHead(200, { 'Content-Type': 'text/html' });
      return res.end(`<!doctype html><title>Sign in to GitHub</title><form method="post" action="/login/oauth/authorize">${hidden}<input name="login"><button type="submit">Authorize</button></form>`);
    }
    if (u.pathname === '/login/oauth/authorize' && req.method === 'POST') {
      const form = await readBody(req);
      const back = new URL(form.get('redirect_uri')!);
      if (!opts.accounts[form.get('login') ?? '']) {
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_description', 'The user has denied your application access.');
      } else {
        const code = randomBytes(10).toString('hex');
        codes.set(code, { account: form.get('login')!, redirectUri: form.get('redirect_uri')!, challenge: form.get('code_challenge') ?? '' });
        back.searchParams.set('code', code);
      }
      back.searchParams.set('state', form.get('state') ?? '');
      res.writeHead(302, { Location: back.href });
      return res.end();
    }
    if (u.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      const form = await readBody(req);
      me.tokenRequests.push(form);
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifierOk = grant && createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url') === grant.challenge;
      // GitHub answers a bad code with 200 and an error field.
      if (!grant || form.get('client_secret') !== opts.clientSecret || form.get('redirect_uri') !== grant.redirectUri || !verifierOk) {
        return json(200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
      }
      const token = `gho_${randomBytes(18).toString('hex')}`;
      tokens.set(token, grant.account);
      return json(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    const account = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (u.pathname === '/api/v3/user') return account ? json(200, { login: account, id: 1, type: 'User' }) : json(401, { message: 'Bad credentials' });
    if (u.pathname === '/api/v3/user/emails') {
      if (!account) return json(401, { message: 'Bad credentials' });
      if (me.emailsStatus) return json(me.emailsStatus, { message: 'Resource not accessible by integration' });
      return json(200, opts.accounts[account]!.emails);
    }
    json(404, { message: 'Not Found' });
  });
  return me;
}
