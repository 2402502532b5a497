// Who is calling, for the login throttle: the TCP peer's address; behind a proxy named in
// `--trusted-proxies`, the address that proxy forwarded. X-Forwarded-For is read only when the
// peer itself is a trusted proxy, and then from the right: every hop a trusted proxy appended
// is skipped, and the first address that is not a trusted proxy is the client (anything to its
// left was written by the client and proves nothing). Never trusted by default.
import type Koa from 'koa';
import { BlockList, isIP } from 'node:net';

/** An IPv4 address Node reports as IPv4-mapped IPv6 (`::ffff:10.0.0.1`) as the IPv4 address. */
function normalise(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}

/** One X-Forwarded-For entry as an address: `[v6]:port` and `v4:port` lose the port. */
function forwardedAddress(entry: string): string | undefined {
  let value = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(':'));
  return isIP(value) ? normalise(value) : undefined;
}

/**
 * `--trusted-proxies`: comma-separated addresses or CIDR ranges (`10.0.0.0/8`, `fd00::/8`),
 * checked and normalised; an empty value is none. Throws naming the first bad entry.
 */
export function parseTrustedProxies(raw: string): string[] {
  const entries = raw.split(',').map((e) => e.trim()).filter(Boolean);
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const prefix = Number(bits);
    const validPrefix = bits === undefined || (/^\d+$/.test(bits) && prefix <= (family === 4 ? 32 : 128));
    if (!family || extra !== undefined || !validPrefix) throw new Error(`'${entry}' is not an IP address or a CIDR range (such as 10.0.0.0/8)`);
  }
  return entries.map((e) => normalise(e));
}

export class TrustedProxies {
  private readonly list = new BlockList();
  readonly none: boolean;

  constructor(entries: readonly string[]) {
    this.none = entries.length === 0;
    for (const entry of entries) {
      const [address, bits] = entry.split('/') as [string, string | undefined];
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.list.addAddress(address, type);
      else this.list.addSubnet(address, Number(bits), type);
    }
  }

  has(address: string): boolean {
    const family = isIP(address);
    return !this.none && family !== 0 && this.list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }
}

/** The client's address, from the TCP peer and (from trusted proxies only) X-Forwarded-For. */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, trusted: TrustedProxies): string {
  let hop = normalise(peer ?? '');
  if (!trusted.has(hop) || !forwardedFor) return hop;
  const entries = forwardedFor.split(',');
  for (let i = entries.length - 1; i >= 0; i--) {
    const address = forwardedAddress(entries[i]!);
    // A trusted proxy wrote something that is no address: the hop that sent it is all we know.
    if (!address) return hop;
    hop = address;
    if (!trusted.has(hop)) return hop;
  }
  return hop;
}

export interface ClientAddressState {
  /** The caller's address as `clientAddress` takes it. */
  clientAddress: string;
}

/** Puts the caller's address in `ctx.state.clientAddress` for what follows. */
export function identifyClient(trusted: TrustedProxies): Koa.Middleware<ClientAddressState> {
  return async function clientAddressOf(ctx, next): Promise<void> {
    ctx.state.clientAddress = clientAddress(ctx.req.socket.remoteAddress, ctx.get('X-Forwarded-For') || undefined, trusted);
    await next();
  };
}
