// Addresses of proxies whose word about the client is believed: the server's reverse proxies
// (X-Forwarded-For) and the gateway's load balancers (PROXY protocol). Parsed once from a
// comma-separated setting; matched with Node's BlockList.
import { BlockList, isIP } from 'node:net';

/** An IPv4 address Node reports as IPv4-mapped IPv6 (`::ffff:10.0.0.1`) as the IPv4 address. */
export function normaliseAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address.toLowerCase();
}

/**
 * Comma-separated addresses or CIDR ranges (`10.0.0.0/8`, `fd00::/8`), checked and normalised;
 * an empty value is none. Throws naming the first bad entry.
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
  return entries.map((e) => normaliseAddress(e));
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

  /** `address` normalised as `normaliseAddress` does. */
  has(address: string): boolean {
    const family = isIP(address);
    return !this.none && family !== 0 && this.list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }
}
