// A minimal OpenID Connect provider on loopback whose ID tokens a test shapes at will: another
// audience, another nonce, another issuer, a key that is not in its JWKS, an expiry in the past.
// It is what a compromised or misconfigured provider (or an attacker replaying tokens) would
// send; Den must refuse every one. It also plays Entra's multi-tenant endpoint, whose discovery
// document names the issuer `…/{tenantid}/v2.0`.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Forgery {
  aud?: string;
  nonce?: string;
  iss?: string;
  /** Seconds from now; negative for a token that already expired. */
  expiresIn?: number;
  /** Sign with a key the JWKS does not hold. */
  foreignKey?: boolean;
  /** Claims about the person. */
  claims?: Record<string, unknown>;
  /** The token endpoint answers this HTTP status with an OAuth error instead. */
  tokenError?: { status: number; error: string };
}

export interface ForgingIssuer {
  /** Loopback origin serving it. */
  origin: string;
  /** The issuer identifier it advertises (`{tenantid}` kept when it plays Entra multi-tenant). */
  issuer: string;
  forgery: Forgery;
  /** Authorization requests seen (their query parameters). */
  authorizations: URLSearchParams[];
  close(): Promise<void>;
}

export interface ForgingOptions {
  clientId: string;
  /** Origin it claims to be (`https://login.microsoftonline.com`); its own loopback origin by default. */
  publicOrigin?: string;
  /** Path of the issuer under the origin (`/{tenantid}/v2.0`). */
  issuerPath?: string;
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function jwt(payload: Record<string, unknown>, key: KeyObject): string {
  const input = `${b64({ alg: 'RS256', typ: 'JWT', kid: 'forging-key' })}.${b64(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

export async function startForgingIssuer(opts: ForgingOptions): Promise<ForgingIssuer> {
  const own = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const codes = new Map<string, URLSearchParams>();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const publicOrigin = opts.publicOrigin ?? origin;
  const issuer = `${publicOrigin}${opts.issuerPath ?? ''}`;
  const me: ForgingIssuer = {
    origin,
    issuer,
    forgery: {},
    authorizations: [],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', origin);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname.endsWith('/.well-known/openid-configuration')) {
      return json(200, {
        issuer,
        authorization_endpoint: `${publicOrigin}/authorize`,
        token_endpoint: `${publicOrigin}/token`,
        jwks_uri: `${publicOrigin}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (url.pathname === '/jwks') return json(200, { keys: [{ ...own.publicKey.export({ format: 'jwk' }), kid: 'forging-key', use: 'sig', alg: 'RS256' }] });
    if (url.pathname === '/authorize') {
      me.authorizations.push(url.searchParams);
      const code = randomBytes(16).toString('hex');
      codes.set(code, url.searchParams);
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { Location: back.href });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        const asked = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        if (!asked || createHash('sha256').update(verifier).digest('base64url') !== asked.get('code_challenge')) return json(400, { error: 'invalid_grant' });
        const f = me.forgery;
        if (f.tokenError) return json(f.tokenError.status, { error: f.tokenError.error });
        const now = Math.floor(Date.now() / 1000);
        const claims = f.claims ?? {};
        const payload = {
          iss: f.iss ?? issuer.replace('{tenantid}', String(claims.tid ?? '')),
          sub: 'forged-subject',
          aud: f.aud ?? opts.clientId,
          iat: now,
          exp: now + (f.expiresIn ?? 300),
          nonce: f.nonce ?? asked.get('nonce'),
          ...claims,
        };
        json(200, { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', expires_in: 300, id_token: jwt(payload, f.foreignKey ? foreign.privateKey : own.privateKey) });
      });
      return;
    }
    json(404, { error: 'not_found' });
  });
  return me;
}

/** A fetch that sends requests for `from` (an origin) to `to` (a loopback origin). */
export function routedFetch(from: string, to: string): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const routed = url.startsWith(from) ? to + url.slice(from.length) : url;
    return fetch(routed, init);
  };
}
