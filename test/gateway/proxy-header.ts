// PROXY protocol v2 headers as a load balancer writes them, for the tests.

export const SIGNATURE = Buffer.from('0d0a0d0a000d0a515549540a', 'hex');

/** A v2 header: command 1 (PROXY) or 0 (LOCAL), the family byte, then the address block. */
export function proxyV2(family: number, addresses: Buffer, command = 1): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(addresses.length);
  return Buffer.concat([SIGNATURE, Buffer.from([0x20 | command, family]), length, addresses]);
}

/** The address block of TCP over IPv4: source, destination, source port, destination port. */
export function ipv4Block(source: string, sourcePort: number, tlv = Buffer.alloc(0)): Buffer {
  const block = Buffer.alloc(12);
  source.split('.').forEach((octet, i) => block.writeUInt8(Number(octet), i));
  [10, 0, 0, 5].forEach((octet, i) => block.writeUInt8(octet, 4 + i));
  block.writeUInt16BE(sourcePort, 8);
  block.writeUInt16BE(2222, 10);
  return Buffer.concat([block, tlv]);
}
