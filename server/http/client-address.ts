// Who is calling, for the login throttle: the TCP peer's address; behind a proxy named in
// `--trusted-proxies`, the address that proxy forwarded. X-Forwarded-For is read only when the
// peer itself is a trusted proxy, and then from the right: every hop a trusted proxy appended
// is skipped, and the first address that is not a trusted proxy is the client (anything to its
// left was written by the client and proves nothing). Never trusted by default.
import type Koa from 'koa';
import { isIP } from 'node:net';
import { normaliseAddress as normalise, TrustedProxies } from '../../process/trusted-proxies.js';

export { parseTrustedProxies, TrustedProxies } from '../../process/trusted-proxies.js';

/** One X-Forwarded-For entry as an address: `[v6]:port` and `v4:port` lose the port. */
function forwardedAddress(entry: string): string | undefined {
  let value = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(':'));
  return isIP(value) ? normalise(value) : undefined;
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
