// A real OpenID Connect provider (oidc-provider, the library many production providers are
// built on) on a loopback port, with one confidential client for Den and people who sign in
// through its development login form by account id. Consent is pre-granted, as for a
// first-party application.
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Account } from 'oidc-provider';

export interface IssuerPerson {
  /** Claims the provider releases about them (email, email_verified, xms_edov, …). */
  claims: Record<string, unknown>;
}

export interface IssuerOptions {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  people: Record<string, IssuerPerson>;
  /**
   * true (oidc-provider's default, GitLab's shape): the e-mail claims come from userinfo only.
   * false: they are in the ID token as well (Google, Keycloak).
   */
  claimsFromUserinfoOnly?: boolean;
  /** Extra claim names released with the `email` scope (xms_edov, tid, …). */
  extraEmailClaims?: string[];
}

export interface Issuer {
  /** The issuer identifier. */
  url: string;
  /** Requests seen, as `METHOD path` (no query). */
  requests: string[];
  close(): Promise<void>;
}

export async function startIssuer(opts: IssuerOptions): Promise<Issuer> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const warn = console.warn;
  // The in-memory store and the development login form are what a test wants; their warnings are not news.
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('development-only')) warn(...args);
  };
  let provider: Provider;
  try {
    provider = newProvider();
  } finally {
    console.warn = warn;
  }
  function newProvider(): Provider {
    return new Provider(url, {
      jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' }] },
      cookies: { keys: ['oidc-issuer-test-cookie-key'] },
      ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
      clients: [
        {
          client_id: opts.clientId,
          client_secret: opts.clientSecret,
          redirect_uris: opts.redirectUris,
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      claims: { openid: ['sub'], email: ['email', 'email_verified', ...(opts.extraEmailClaims ?? [])] },
      conformIdTokenClaims: opts.claimsFromUserinfoOnly ?? true,
      features: { devInteractions: { enabled: true } },
      pkce: { required: () => true },
      async findAccount(_ctx: unknown, id: string): Promise<Account | undefined> {
        const person = opts.people[id];
        if (!person) return undefined;
        return { accountId: id, claims: () => ({ sub: id, ...person.claims }) };
      },
      async loadExistingGrant(ctx: { oidc: { client: { clientId: string }; session: { accountId: string } } }) {
        const grant = new provider.Grant({ accountId: ctx.oidc.session.accountId, clientId: ctx.oidc.client.clientId });
        grant.addOIDCScope('openid email profile');
        grant.addOIDCClaims(['email', 'email_verified', ...(opts.extraEmailClaims ?? [])]);
        await grant.save();
        return grant;
      },
      // Quiet, and the same on every run.
      renderError(ctx: { type: string; body: unknown }, out: Record<string, unknown>) {
        ctx.type = 'json';
        ctx.body = out;
      },
    });
  }
  const requests: string[] = [];
  const handle = provider.callback();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    requests.push(`${req.method} ${(req.url ?? '').split('?')[0]}`);
    handle(req, res);
  });
  return {
    url,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
