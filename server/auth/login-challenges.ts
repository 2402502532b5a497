// Login challenges: what `/login/<provider>` must remember until the browser comes back to
// `/callback/<provider>` (state, nonce, PKCE verifier, where to go next). One Secret each in the
// platform namespace, named by the SHA-256 of the state, so any replica can finish a sign-in
// another one started and reading the Secrets does not yield a usable state. A challenge is
// used once: taking it deletes it, and only the request whose delete succeeded may go on.
import { sha256Hex } from './secrets.js';
import type { ServiceState, StateRecord } from './state.js';

export const CHALLENGE_TTL_MS = 10 * 60_000;
/** Unauthenticated visitors create these; more open at once than this are refused until some expire. */
export const MAX_OPEN_CHALLENGES = 2_000;

export interface LoginChallenge {
  secretName: string;
  provider: string;
  nonce: string;
  codeVerifier: string;
  /** Same-origin path to go to after signing in. */
  next: string;
  createdAt: number;
}

export function challengeSecretName(state: string): string {
  return `login-challenge-${sha256Hex(state)}`;
}

export function challengeOf(record: StateRecord): LoginChallenge | undefined {
  const { provider, nonce, code_verifier, next, created_at } = record.data;
  const createdAt = Date.parse(created_at ?? '');
  if (!provider || !nonce || !code_verifier || !next || Number.isNaN(createdAt)) return undefined;
  return { secretName: record.name, provider, nonce, codeVerifier: code_verifier, next, createdAt };
}

export function isChallengeExpired(challenge: Pick<LoginChallenge, 'createdAt'>, now: number): boolean {
  return now - challenge.createdAt >= CHALLENGE_TTL_MS || challenge.createdAt - now > 60_000;
}

export type TakeResult = { ok: true; challenge: LoginChallenge } | { ok: false; reason: 'unknown' | 'expired' | 'other-provider' };

export class TooManyChallengesError extends Error {
  override readonly name = 'TooManyChallengesError';
}

export class LoginChallengeStore {
  constructor(private readonly state: ServiceState) {}

  /** Stores a new challenge under `state` (which goes to the provider and is itself never stored). */
  async create(input: { state: string; provider: string; nonce: string; codeVerifier: string; next: string }, now: number): Promise<LoginChallenge> {
    const open = this.state.list('login-challenge').filter((r) => {
      const c = challengeOf(r);
      return c && !isChallengeExpired(c, now);
    }).length;
    if (open >= MAX_OPEN_CHALLENGES) throw new TooManyChallengesError(`${open} sign-ins are in progress`);
    const record = await this.state.create('login-challenge', challengeSecretName(input.state), {
      provider: input.provider,
      nonce: input.nonce,
      code_verifier: input.codeVerifier,
      next: input.next,
      created_at: new Date(now).toISOString(),
    });
    return challengeOf(record)!;
  }

  /**
   * The challenge `state` names, deleted so it cannot be used again. Refused when it does not
   * exist (tampered, or already used), was made for another provider, or is too old; a refused
   * challenge that existed is deleted too, so a second try with it finds nothing.
   */
  async take(state: string, provider: string, now: number): Promise<TakeResult> {
    const name = challengeSecretName(state);
    const record = await this.state.find('login-challenge', name);
    const challenge = record && challengeOf(record);
    if (!record) return { ok: false, reason: 'unknown' };
    // Only the one request whose delete succeeds wins a race between two callbacks with the same state.
    if (!(await this.state.remove(name)) || !challenge) return { ok: false, reason: 'unknown' };
    if (challenge.provider !== provider) return { ok: false, reason: 'other-provider' };
    if (isChallengeExpired(challenge, now)) return { ok: false, reason: 'expired' };
    return { ok: true, challenge };
  }

  /** Deletes challenges whose browser never came back. */
  async sweep(now: number): Promise<number> {
    let removed = 0;
    for (const record of this.state.list('login-challenge')) {
      const challenge = challengeOf(record);
      if (challenge && !isChallengeExpired(challenge, now)) continue;
      if (await this.state.remove(record.name)) removed++;
    }
    return removed;
  }
}
