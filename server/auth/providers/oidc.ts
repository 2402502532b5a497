// Sign-in with an OpenID Connect provider through openid-client: issuer discovery, the
// authorization code flow with PKCE and a nonce, ID token checks (issuer, audience, signature,
// expiry, nonce), then a verified e-mail read from the ID token or, when it has none (GitLab),
// from the userinfo endpoint.
import * as oidc from 'openid-client';
import type { OidcProviderConfig } from './config.js';
import { LoginRefused, networkDetail, providerWords, unreachable } from './refusals.js';
import type { AuthorizationRequest, CallbackInput, IdentityProvider } from './provider.js';

/** Discovery documents are fetched again after this long, so a provider's changes are picked up. */
const DISCOVERY_TTL_MS = 60 * 60_000;
const REQUEST_TIMEOUT_SECONDS = 10;

type Claims = Record<string, unknown>;

/** `email_verified` as providers send it: true, or (some older ones) the string "true". */
function isTrue(value: unknown): boolean {
  return value === true || value === 'true';
}

/**
 * The e-mail these claims vouch for, or a refusal saying why not. Entra sends no
 * `email_verified`: its `email` counts only with the optional claim `xms_edov` (the domain owner
 * verified it) or when its domain is one the administrator trusts.
 */
export function verifiedEmailOf(claims: Claims, provider: Pick<OidcProviderConfig, 'preset' | 'label' | 'trustedEmailDomains'>): string {
  const email = claims.email;
  if (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(email)) {
    throw new LoginRefused(403, `${provider.label} did not share an e-mail address; allow Den to see your e-mail address and sign in again`);
  }
  if (provider.preset === 'entra') {
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    if (isTrue(claims.xms_edov) || provider.trustedEmailDomains.includes(domain)) return email;
    throw new LoginRefused(403, `${provider.label} did not confirm that ${email} is verified (no xms_edov claim, and ${domain} is not a trusted e-mail domain)`);
  }
  if (!isTrue(claims.email_verified)) throw new LoginRefused(403, `${provider.label} says your e-mail address ${email} is not verified; verify it there and sign in again`);
  return email;
}

/** A refusal for what openid-client threw; never its stack, never a token. */
export function refusalOf(err: unknown, label: string): LoginRefused {
  if (err instanceof LoginRefused) return err;
  if (err instanceof oidc.ResponseBodyError) {
    if (err.status >= 500) return unreachable(label, `it answered ${err.status}`);
    const said = providerWords(err.error_description) || providerWords(err.error);
    return new LoginRefused(401, `${label} refused the sign-in: ${said}`);
  }
  if (err instanceof oidc.AuthorizationResponseError) {
    return new LoginRefused(401, `${label} refused the sign-in: ${providerWords(err.error_description) || providerWords(err.error)}`);
  }
  if (err instanceof TypeError) return unreachable(label, networkDetail(err));
  if (err instanceof oidc.ClientError) {
    const cause = err.cause as { message?: string; name?: string } | undefined;
    switch (err.code) {
      case 'OAUTH_TIMEOUT':
      case 'OAUTH_ABORT':
        return unreachable(label, 'timed out');
      case 'OAUTH_RESPONSE_IS_NOT_CONFORM':
      case 'OAUTH_RESPONSE_IS_NOT_JSON':
      case 'OAUTH_PARSE_ERROR':
        return unreachable(label, 'it gave an unexpected answer');
      case 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED':
        return unreachable(label, `its discovery document does not name the configured issuer`);
      default: {
        if (cause instanceof TypeError) return unreachable(label, networkDetail(cause));
        const why = providerWords(cause?.message) || providerWords(err.message);
        return new LoginRefused(401, `the answer from ${label} cannot be trusted: ${why}`);
      }
    }
  }
  const e = err as { name?: string };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return unreachable(label, 'timed out');
  throw err;
}

export interface OidcOptions {
  /** Replaces fetch for every request to the provider (tests route hosts to loopback). */
  fetch?: typeof fetch;
  now: () => number;
}

export class OidcProvider implements IdentityProvider {
  private discovered?: { config: Promise<oidc.Configuration>; at: number };

  constructor(
    readonly config: OidcProviderConfig,
    private readonly opts: OidcOptions,
  ) {}

  private configuration(): Promise<oidc.Configuration> {
    const now = this.opts.now();
    if (this.discovered && now - this.discovered.at < DISCOVERY_TTL_MS) return this.discovered.config;
    const issuer = new URL(this.config.issuer);
    // openid-client skips the ID token's signature when the token came straight from the token
    // endpoint over TLS (OIDC Core 3.1.3.7); Den checks it anyway, against the provider's JWKS.
    const options: oidc.DiscoveryRequestOptions = { timeout: REQUEST_TIMEOUT_SECONDS, execute: [oidc.enableNonRepudiationChecks] };
    if (issuer.protocol === 'http:') options.execute!.push(oidc.allowInsecureRequests);
    if (this.opts.fetch) options[oidc.customFetch] = this.opts.fetch as oidc.CustomFetch;
    const config = oidc.discovery(issuer, this.config.clientId, { client_secret: this.config.clientSecret }, oidc.ClientSecretPost(this.config.clientSecret), options);
    const entry = { config, at: now };
    this.discovered = entry;
    // A failed discovery is tried again by the next sign-in rather than remembered.
    config.catch(() => {
      if (this.discovered === entry) this.discovered = undefined;
    });
    return config;
  }

  async authorizationUrl(req: AuthorizationRequest): Promise<URL> {
    let config: oidc.Configuration;
    try {
      config = await this.configuration();
    } catch (err) {
      throw refusalOf(err, this.config.label);
    }
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: req.redirectUri,
      scope: this.config.scopes.join(' '),
      state: req.state,
      nonce: req.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(req.codeVerifier),
      code_challenge_method: 'S256',
    });
  }

  async verifiedEmail(input: CallbackInput): Promise<string> {
    try {
      const config = await this.configuration();
      const tokens = await oidc.authorizationCodeGrant(config, input.callbackUrl, {
        pkceCodeVerifier: input.codeVerifier,
        expectedNonce: input.nonce,
        expectedState: input.state,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new LoginRefused(401, `${this.config.label} sent no ID token`);
      let merged: Claims = claims;
      if (typeof claims.email !== 'string') {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        merged = { ...claims, ...info };
      }
      return verifiedEmailOf(merged, this.config);
    } catch (err) {
      throw refusalOf(err, this.config.label);
    }
  }
}
