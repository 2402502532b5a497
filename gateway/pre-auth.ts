// Limits for connections that have not authenticated yet, as sshd has them: a grace time
// to authenticate in (LoginGraceTime), random early drop of such connections overall
// (MaxStartups start:rate:full) and, when configured, a cap per source address
// (PerSourceMaxStartups, none by default: one NAT or load balancer would otherwise turn it
// against everyone behind it). They act on the TCP socket itself, before ssh2 sees a byte: a
// client that never sends its version line never reaches ssh2's events.
import type { Socket } from 'node:net';
import type { Log } from '../process/role.js';
import type { ProxiedAddress } from './proxy-protocol.js';

/** sshd's MaxStartups: below `start` every connection is taken; from there on each new one is refused with a probability rising linearly from `rate`% to 100% at `full`. */
export interface MaxStartups {
  start: number;
  rate: number;
  full: number;
}

export interface PreAuthLimits {
  /** Milliseconds a connection may take from TCP accept to successful authentication. */
  loginGraceMs: number;
  /** Connections not yet authenticated, from all sources together. */
  maxStartups: MaxStartups;
  /** Connections not yet authenticated from one source address; undefined: no such cap (sshd's default). */
  maxStartupsPerSource: number | undefined;
}

/**
 * sshd's shape with a gateway's numbers: LoginGraceTime 30 s (sshd: 120 s); random early drop
 * from 100 pending on, all refused at 300 (sshd: 10:30:100, sized for one host's users, where
 * one editor opening 20 connections at once would already meet drops); PerSourceMaxStartups
 * none, as sshd.
 */
export const DEFAULT_PRE_AUTH_LIMITS: PreAuthLimits = {
  loginGraceMs: 30_000,
  maxStartups: { start: 100, rate: 30, full: 300 },
  maxStartupsPerSource: undefined,
};

/** How often, at most, refused connections are summed up in one log line. */
const REFUSAL_LOG_INTERVAL_MS = 10_000;
const MAX_COUNT = 1_000_000;

function count(raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new Error(`expected a whole number from ${min} to ${max}`);
  return Number(raw);
}

/** `--max-startups`: `start:rate:full` as sshd writes it, or one number (a hard cap: `start:100:start`). */
export function parseMaxStartups(raw: string): MaxStartups {
  const parts = raw.split(':');
  try {
    if (parts.length === 1) {
      const full = count(parts[0]!, 1, MAX_COUNT);
      return { start: full, rate: 100, full };
    }
    if (parts.length !== 3) throw new Error('expected start:rate:full such as 10:30:100, or one number');
    const [start, rate, full] = [count(parts[0]!, 1, MAX_COUNT), count(parts[1]!, 1, 100), count(parts[2]!, 1, MAX_COUNT)];
    if (start > full) throw new Error('start must not exceed full');
    return { start, rate, full };
  } catch (err) {
    throw new Error(`${(err as Error).message}, got '${raw}'`);
  }
}

/** `--max-startups-per-source`: a number, or `none` (no cap). */
export function parsePerSourceStartups(raw: string): number | undefined {
  if (raw === 'none') return undefined;
  try {
    return count(raw, 1, MAX_COUNT);
  } catch {
    throw new Error(`expected none or a whole number from 1 to ${MAX_COUNT}, got '${raw}'`);
  }
}

/** `start:rate:full` as sshd writes it. */
export function maxStartupsText(m: MaxStartups): string {
  return `${m.start}:${m.rate}:${m.full}`;
}

/**
 * Whether a new connection is refused while `pending` others are unauthenticated: sshd's
 * `drop()` (sshd.c), with `random` in [0, 1) standing in for arc4random_uniform(100).
 */
export function dropsEarly(pending: number, m: MaxStartups, random: () => number): boolean {
  if (pending >= m.full) return true;
  if (pending < m.start) return false;
  const percent = m.rate + Math.floor(((100 - m.rate) * (pending - m.start)) / (m.full - m.start));
  return Math.floor(random() * 100) < percent;
}

/** Counts of connections not yet authenticated, overall and per source. */
export class StartupCounts {
  private total = 0;
  private readonly bySource = new Map<string, number>();

  constructor(
    private readonly limits: Pick<PreAuthLimits, 'maxStartups' | 'maxStartupsPerSource'>,
    private readonly random: () => number = Math.random,
  ) {}

  /** Takes a slot for `source`, or says why not. */
  take(source: string): 'admitted' | 'overall cap reached' | 'dropped early' | 'per-source cap reached' {
    const mine = this.bySource.get(source) ?? 0;
    const perSource = this.limits.maxStartupsPerSource;
    if (perSource !== undefined && mine >= perSource) return 'per-source cap reached';
    if (this.total >= this.limits.maxStartups.full) return 'overall cap reached';
    if (dropsEarly(this.total, this.limits.maxStartups, this.random)) return 'dropped early';
    this.total += 1;
    this.bySource.set(source, mine + 1);
    return 'admitted';
  }

  give(source: string): void {
    const mine = this.bySource.get(source) ?? 0;
    if (mine === 0) return;
    this.total -= 1;
    if (mine === 1) this.bySource.delete(source);
    else this.bySource.set(source, mine - 1);
  }

  get size(): number {
    return this.total;
  }
}

interface Startup {
  socket: Socket;
  /** The client's address, as limits count it. */
  source: string;
  /** The client's `ip:port`, as logs name it. */
  client: string;
  timer: NodeJS.Timeout;
}

/** `ip:port` of a socket's TCP peer, as ssh2 reports a connection's remote end. */
export function peerKey(socket: Socket): string {
  return `${socket.remoteAddress}:${socket.remotePort}`;
}

/**
 * Admits TCP connections under the limits, closes those that do not authenticate within the
 * grace time, and frees a connection's slot when it authenticates or closes.
 */
export class PreAuthGate {
  private readonly counts: StartupCounts;
  /** By the TCP peer's `ip:port` (`peerKey`). */
  private readonly startups = new Map<string, Startup>();
  private readonly now: () => number;
  private refused = 0;
  private lastRefusalLog = -Infinity;

  constructor(
    private readonly limits: PreAuthLimits,
    private readonly log: Log,
    opts: { now?: () => number; random?: () => number } = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.counts = new StartupCounts(limits, opts.random);
  }

  /** Unauthenticated connections currently held. */
  get pending(): number {
    return this.counts.size;
  }

  /**
   * Takes the socket in for `client` (the peer itself, or the address a trusted proxy's header
   * named), or closes it at once (nothing sent, as sshd does past MaxStartups). The grace time
   * counts from `acceptedAt`, so a wait for a PROXY header is part of it. Returns the
   * connection's `peerKey`, or undefined when it was refused.
   */
  admit(socket: Socket, client: ProxiedAddress, acceptedAt = this.now()): string | undefined {
    if (!socket.remoteAddress || socket.destroyed) {
      socket.destroy(); // already gone
      return undefined;
    }
    const decision = this.counts.take(client.address);
    if (decision !== 'admitted') {
      socket.destroy();
      this.noteRefusal(client.address, decision);
      return undefined;
    }
    const key = peerKey(socket);
    const label = `${client.address}:${client.port}`;
    const timer = setTimeout(
      () => {
        this.log('timeout before authentication; connection closed', { remote: label, graceMs: this.limits.loginGraceMs });
        socket.destroy();
      },
      Math.max(0, this.limits.loginGraceMs - (this.now() - acceptedAt)),
    );
    timer.unref();
    this.startups.set(key, { socket, source: client.address, client: label, timer });
    socket.once('close', () => this.release(key));
    return key;
  }

  /** The client's `ip:port` of a connection still authenticating (for logs). */
  client(key: string): string | undefined {
    return this.startups.get(key)?.client;
  }

  /** The connection authenticated: it no longer counts, and the grace timer stops. */
  authenticated(key: string): void {
    this.release(key);
  }

  /** The socket of a connection still authenticating. */
  socket(key: string): Socket | undefined {
    return this.startups.get(key)?.socket;
  }

  /** Closes every connection that has not authenticated (shutdown: nothing of theirs to finish). */
  closeAll(): void {
    for (const { socket } of this.startups.values()) socket.destroy();
  }

  private release(key: string): void {
    const startup = this.startups.get(key);
    if (!startup) return;
    clearTimeout(startup.timer);
    this.startups.delete(key);
    this.counts.give(startup.source);
  }

  private noteRefusal(source: string, why: string): void {
    this.refused += 1;
    const now = this.now();
    if (now - this.lastRefusalLog < REFUSAL_LOG_INTERVAL_MS) return;
    this.log('connections refused before the SSH handshake: too many not yet authenticated', {
      refusedSinceLastLine: this.refused,
      last: source,
      reason: why,
      pending: this.counts.size,
      maxStartups: maxStartupsText(this.limits.maxStartups),
      maxStartupsPerSource: this.limits.maxStartupsPerSource ?? 'none',
    });
    this.refused = 0;
    this.lastRefusalLog = now;
  }
}
