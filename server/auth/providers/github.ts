// Sign-in with GitHub (or GitHub Enterprise Server): OAuth2 without an ID token, so the person
// is whoever the access token belongs to, and the e-mail is the one GitHub lists for them as
// both primary and verified (`GET /user/emails`, scope user:email).
import { createHash } from 'node:crypto';
import type { GithubProviderConfig } from './config.js';
import { LoginRefused, networkDetail, providerWords, unreachable } from './refusals.js';
import type { AuthorizationRequest, CallbackInput, IdentityProvider } from './provider.js';

const REQUEST_TIMEOUT_MS = 10_000;
const API_VERSION = '2022-11-28';

interface GithubEmail {
  email?: unknown;
  primary?: unknown;
  verified?: unknown;
}

/** The primary, verified address of GitHub's `/user/emails` answer, or a refusal. */
export function primaryVerifiedEmail(emails: unknown, label: string): string {
  if (!Array.isArray(emails)) throw unreachable(label, 'it gave an unexpected answer');
  const primary = (emails as GithubEmail[]).find((e) => e?.primary === true);
  if (!primary || typeof primary.email !== 'string') throw new LoginRefused(403, `${label} lists no primary e-mail address for your account`);
  if (primary.verified !== true) throw new LoginRefused(403, `${label} says your primary e-mail address ${primary.email} is not verified; verify it there and sign in again`);
  return primary.email;
}

function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export class GithubProvider implements IdentityProvider {
  constructor(
    readonly config: GithubProviderConfig,
    private readonly opts: { fetch?: typeof fetch } = {},
  ) {}

  async authorizationUrl(req: AuthorizationRequest): Promise<URL> {
    const url = new URL(`${this.config.baseUrl}/login/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: this.config.clientId,
      redirect_uri: req.redirectUri,
      scope: this.config.scopes.join(' '),
      state: req.state,
      code_challenge: pkceChallenge(req.codeVerifier),
      code_challenge_method: 'S256',
      allow_signup: 'false',
    }).toString();
    return url;
  }

  private async call(url: string, init: RequestInit): Promise<Response> {
    try {
      return await (this.opts.fetch ?? fetch)(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch (err) {
      throw unreachable(this.config.label, networkDetail(err));
    }
  }

  private async json(res: Response): Promise<unknown> {
    try {
      return await res.json();
    } catch {
      throw unreachable(this.config.label, 'it gave an unexpected answer');
    }
  }

  async verifiedEmail(input: CallbackInput): Promise<string> {
    const { label } = this.config;
    const code = input.callbackUrl.searchParams.get('code');
    if (!code) throw new LoginRefused(400, `${label} sent no authorization code`);
    const tokenRes = await this.call(`${this.config.baseUrl}/login/oauth/access_token`, {
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: this.config.clientId,
        client_secret: this.config.clientSecret,
        code,
        redirect_uri: input.redirectUri,
        code_verifier: input.codeVerifier,
      }).toString(),
    });
    if (tokenRes.status >= 500) throw unreachable(label, `it answered ${tokenRes.status}`);
    const token = (await this.json(tokenRes)) as { access_token?: unknown; error?: unknown; error_description?: unknown };
    // GitHub reports a bad code as 200 with an `error` field.
    if (typeof token?.access_token !== 'string' || !token.access_token) {
      throw new LoginRefused(401, `${label} refused the sign-in: ${providerWords(token?.error_description) || providerWords(token?.error) || `it answered ${tokenRes.status}`}`);
    }
    const emailsRes = await this.call(`${this.config.apiUrl}/user/emails`, {
      headers: { Accept: 'application/vnd.github+json', Authorization: `Bearer ${token.access_token}`, 'X-GitHub-Api-Version': API_VERSION, 'User-Agent': 'den' },
    });
    if (emailsRes.status === 401 || emailsRes.status === 403 || emailsRes.status === 404) {
      throw new LoginRefused(403, `${label} did not let Den read your e-mail addresses (the user:email scope is needed)`);
    }
    if (!emailsRes.ok) throw unreachable(label, `it answered ${emailsRes.status}`);
    return primaryVerifiedEmail(await this.json(emailsRes), label);
  }
}
