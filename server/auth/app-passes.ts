// What lets a browser into one app host of a host-based preview without Den's session cookie
// ever going there: a ticket, minted on Den's origin for a signed-in person and one app host,
// used once within a minute by that host's `/__den/auth`, which trades it for an app cookie
// bound to the same host and the same Den session. Both are Secrets in the platform namespace
// named by the SHA-256 of the value the browser holds (any replica redeems what another
// minted; reading the Secrets yields nothing usable). A ticket is used once: taking it deletes
// it, and only the request whose delete succeeded goes on.
import { randomSecret, sha256Hex } from './secrets.js';
import type { ServiceState, StateRecord } from './state.js';

export const APP_PASS_POLICY = {
  /** A ticket not redeemed within this is refused. */
  ticketTtlMs: 60_000,
  /** An app cookie ends this long after it was set (and with the Den session it came from). */
  cookieTtlMs: 60 * 60_000,
} as const;

/** What a ticket or an app cookie grants: the session behind it, on one app host. */
export interface AppPass {
  secretName: string;
  /** Secret name of the Den session the pass was minted from. */
  session: string;
  /** The app host (no port), lower case. */
  host: string;
  /** Ticket only: the path and query to go to once the cookie is set. */
  next: string;
  createdAt: number;
}

export const ticketSecretName = (ticket: string) => `app-ticket-${sha256Hex(ticket)}`;
export const appCookieSecretName = (id: string) => `app-cookie-${sha256Hex(id)}`;
const TICKET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

function passOf(record: StateRecord): AppPass | undefined {
  const { session, host, next, created_at } = record.data;
  const createdAt = Date.parse(created_at ?? '');
  if (!session || !host || Number.isNaN(createdAt)) return undefined;
  return { secretName: record.name, session, host, next: next ?? '/', createdAt };
}

function expired(pass: AppPass, ttlMs: number, now: number): boolean {
  return now - pass.createdAt >= ttlMs || pass.createdAt - now > 60_000;
}

/** Redeemed: the new app cookie's value, and where the ticket said to go next. */
export type Redeemed = { ok: true; cookie: string; next: string } | { ok: false; reason: string };

export class AppPassStore {
  constructor(
    private readonly state: ServiceState,
    readonly policy: typeof APP_PASS_POLICY = APP_PASS_POLICY,
  ) {}

  /** A new ticket for `host` minted from the session stored as `session`; the value goes into one redirect only. */
  async mintTicket(input: { session: string; host: string; next: string }, now: number): Promise<string> {
    const ticket = randomSecret(32);
    await this.state.create('app-ticket', ticketSecretName(ticket), { session: input.session, host: input.host, next: input.next, created_at: new Date(now).toISOString() });
    return ticket;
  }

  /**
   * Trades a ticket presented on `host` for a new app cookie of that host. Refused when the
   * ticket is unknown (tampered with, or used already), too old, or minted for another host;
   * a refused ticket that existed is deleted too.
   */
  async redeem(ticket: string, host: string, now: number): Promise<Redeemed> {
    const refused = (reason: string): Redeemed => ({ ok: false, reason });
    const unknown = 'this link to the app was already used or is not one Den made; open the app again from Den';
    if (!TICKET_PATTERN.test(ticket)) return refused(unknown);
    const name = ticketSecretName(ticket);
    const record = await this.state.find('app-ticket', name);
    const pass = record && passOf(record);
    if (!record || !(await this.state.remove(name)) || !pass) return refused(unknown);
    if (expired(pass, this.policy.ticketTtlMs, now)) return refused(`this link to the app is older than ${this.policy.ticketTtlMs / 1000} seconds; open the app again from Den`);
    if (pass.host !== host) return refused(`this link was made for ${pass.host}, not ${host}; open the app again from Den`);
    const cookie = randomSecret(32);
    await this.state.create('app-cookie', appCookieSecretName(cookie), { session: pass.session, host, created_at: new Date(now).toISOString() });
    return { ok: true, cookie, next: pass.next };
  }

  /** The pass an app cookie value stands for on `host`; undefined when unknown, expired or made for another host. */
  async cookiePass(value: string, host: string, now: number): Promise<AppPass | undefined> {
    if (!TICKET_PATTERN.test(value)) return undefined;
    return this.livePass(await this.state.find('app-cookie', appCookieSecretName(value)), host, now);
  }

  /** `cookiePass` as this replica's informer holds it: a hint only, to be confirmed with `cookiePass`. */
  cachedCookiePass(value: string, host: string, now: number): AppPass | undefined {
    if (!TICKET_PATTERN.test(value)) return undefined;
    return this.livePass(this.state.cached('app-cookie', appCookieSecretName(value)), host, now);
  }

  private livePass(record: StateRecord | undefined, host: string, now: number): AppPass | undefined {
    const pass = record && passOf(record);
    if (!pass || pass.host !== host || expired(pass, this.policy.cookieTtlMs, now)) return undefined;
    return pass;
  }

  /** Deletes tickets never redeemed and app cookies past their life. */
  async sweep(now: number): Promise<number> {
    let removed = 0;
    for (const [kind, ttl] of [['app-ticket', this.policy.ticketTtlMs], ['app-cookie', this.policy.cookieTtlMs]] as const) {
      for (const record of this.state.list(kind)) {
        const pass = passOf(record);
        if (pass && !expired(pass, ttl, now)) continue;
        if (await this.state.remove(record.name)) removed++;
      }
    }
    return removed;
  }
}
