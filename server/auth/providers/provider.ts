// What the sign-in routes need from any provider kind: where to send the browser, and the
// verified e-mail once it comes back. Failures are LoginRefused (refusals.ts).
import type { ProviderConfig } from './config.js';

export interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface CallbackInput {
  /** `<base_url>/callback/<provider>?<query as received>`. */
  callbackUrl: URL;
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface IdentityProvider {
  readonly config: ProviderConfig;
  authorizationUrl(req: AuthorizationRequest): Promise<URL>;
  /** The e-mail the provider vouches for, as it spells it. */
  verifiedEmail(input: CallbackInput): Promise<string>;
}
