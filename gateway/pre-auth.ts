// Limits for connections that have not authenticated yet, as sshd has them: a grace time
// to authenticate in (LoginGraceTime), and a cap on such connections overall and per source
// address (MaxStartups, PerSourceMaxStartups). They act on the TCP socket itself, before ssh2
// sees a byte: a client that never sends its version line never reaches ssh2's events.
import type { Socket } from 'node:net';
import type { Log } from '../process/role.js';

export interface PreAuthLimits {
  /** Milliseconds a connection may take from TCP accept to successful authentication. */
  loginGraceMs: number;
  /** Connections not yet authenticated, from all sources together. */
  maxStartups: number;
  /** Connections not yet authenticated from one source address. */
  maxStartupsPerSource: number;
}

export const DEFAULT_PRE_AUTH_LIMITS: PreAuthLimits = { loginGraceMs: 30_000, maxStartups: 100, maxStartupsPerSource: 10 };

/** How often, at most, refused connections are summed up in one log line. */
const REFUSAL_LOG_INTERVAL_MS = 10_000;

/** `::ffff:10.0.0.1` (IPv4 on a dual-stack listener) counts as `10.0.0.1`. */
export function sourceAddress(remoteAddress: string): string {
  return remoteAddress.startsWith('::ffff:') && remoteAddress.includes('.') ? remoteAddress.slice(7) : remoteAddress;
}

/** Counts of connections not yet authenticated, overall and per source. */
export class StartupCounts {
  private total = 0;
  private readonly bySource = new Map<string, number>();

  constructor(private readonly limits: Pick<PreAuthLimits, 'maxStartups' | 'maxStartupsPerSource'>) {}

  /** Takes a slot for `source`, or says which cap is full. */
  take(source: string): 'admitted' | 'overall cap reached' | 'per-source cap reached' {
    if (this.total >= this.limits.maxStartups) return 'overall cap reached';
    const mine = this.bySource.get(source) ?? 0;
    if (mine >= this.limits.maxStartupsPerSource) return 'per-source cap reached';
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
  source: string;
  timer: NodeJS.Timeout;
}

/**
 * Admits TCP connections under the caps, closes those that do not authenticate within the
 * grace time, and frees a connection's slot when it authenticates or closes.
 */
export class PreAuthGate {
  private readonly counts: StartupCounts;
  /** By `ip:port`, as ssh2 reports a connection's remote end. */
  private readonly startups = new Map<string, Startup>();
  private refused = 0;
  private lastRefusalLog = -Infinity;

  constructor(
    private readonly limits: PreAuthLimits,
    private readonly log: Log,
    private readonly now: () => number = Date.now,
  ) {
    this.counts = new StartupCounts(limits);
  }

  /** Unauthenticated connections currently held. */
  get pending(): number {
    return this.counts.size;
  }

  /**
   * Takes the socket in, or closes it at once (nothing sent, as sshd does past MaxStartups).
   * Returns the `ip:port` key the connection is known by, or undefined when it was refused.
   */
  admit(socket: Socket): string | undefined {
    const address = socket.remoteAddress;
    if (!address) {
      socket.destroy(); // already gone
      return undefined;
    }
    const source = sourceAddress(address);
    const decision = this.counts.take(source);
    if (decision !== 'admitted') {
      socket.destroy();
      this.noteRefusal(source, decision);
      return undefined;
    }
    const remote = `${address}:${socket.remotePort}`;
    const timer = setTimeout(() => {
      this.log('timeout before authentication; connection closed', { remote, graceMs: this.limits.loginGraceMs });
      socket.destroy();
    }, this.limits.loginGraceMs);
    timer.unref();
    this.startups.set(remote, { socket, source, timer });
    socket.once('close', () => this.release(remote));
    return remote;
  }

  /** The connection authenticated: it no longer counts, and the grace timer stops. */
  authenticated(remote: string): void {
    this.release(remote);
  }

  /** The socket of a connection still authenticating. */
  socket(remote: string): Socket | undefined {
    return this.startups.get(remote)?.socket;
  }

  /** Closes every connection that has not authenticated (shutdown: nothing of theirs to finish). */
  closeAll(): void {
    for (const { socket } of this.startups.values()) socket.destroy();
  }

  private release(remote: string): void {
    const startup = this.startups.get(remote);
    if (!startup) return;
    clearTimeout(startup.timer);
    this.startups.delete(remote);
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
      maxStartups: this.limits.maxStartups,
      maxStartupsPerSource: this.limits.maxStartupsPerSource,
    });
    this.refused = 0;
    this.lastRefusalLog = now;
  }
}
