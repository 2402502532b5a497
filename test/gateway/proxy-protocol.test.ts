// The PROXY protocol header as load balancers write it (haproxy.org proxy-protocol.txt).
import { expect } from 'chai';
import { parseProxyHeader, startsLikeProxyHeader } from '../../gateway/proxy-protocol.js';
import { ipv4Block, proxyV2, SIGNATURE } from './proxy-header.js';

function ipv6Block(groups: number[], sourcePort: number): Buffer {
  const block = Buffer.alloc(36);
  groups.forEach((g, i) => block.writeUInt16BE(g, i * 2));
  block.writeUInt16BE(1, 30);
  block.writeUInt16BE(sourcePort, 32);
  block.writeUInt16BE(2222, 34);
  return block;
}

describe('PROXY protocol header', () => {
  const ssh = Buffer.from('SSH-2.0-OpenSSH_9.2\r\n');

  it('reads the client address of a v2 TCP/IPv4 header and says where the SSH bytes begin', () => {
    const header = proxyV2(0x11, ipv4Block('203.0.113.7', 51000));
    expect(parseProxyHeader(Buffer.concat([header, ssh]))).to.deep.equal({ state: 'complete', length: 28, client: { address: '203.0.113.7', port: 51000 } });
  });

  it('skips the TLVs a load balancer adds after the addresses', () => {
    const tlv = Buffer.from([0xea, 0x00, 0x05, 0x01, 0x76, 0x70, 0x63, 0x65]); // AWS: VPC endpoint id
    const header = proxyV2(0x11, ipv4Block('198.51.100.1', 40000, tlv));
    expect(parseProxyHeader(Buffer.concat([header, ssh]))).to.deep.equal({ state: 'complete', length: 36, client: { address: '198.51.100.1', port: 40000 } });
  });

  it('writes a v2 IPv6 address as Node does, and an IPv4-mapped one as IPv4', () => {
    expect(parseProxyHeader(proxyV2(0x21, ipv6Block([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x17], 1234)))).to.deep.include({ client: { address: '2001:db8::17', port: 1234 } });
    expect(parseProxyHeader(proxyV2(0x21, ipv6Block([0, 0, 0, 0, 0, 0xffff, 0xc000, 0x0201], 1)))).to.deep.include({ client: { address: '192.0.2.1', port: 1 } });
  });

  it('takes a v2 LOCAL header (a balancer health check) as no client address', () => {
    expect(parseProxyHeader(proxyV2(0x00, Buffer.alloc(0), 0))).to.deep.equal({ state: 'complete', length: 16 });
  });

  it('asks for more bytes until the whole header is there', () => {
    const header = proxyV2(0x11, ipv4Block('203.0.113.7', 51000));
    for (const cut of [1, 5, 12, 15, 16, 27]) expect(parseProxyHeader(header.subarray(0, cut)), `${cut} bytes`).to.deep.equal({ state: 'incomplete' });
    expect(parseProxyHeader(Buffer.from('PROXY TCP4 203.0.113.7 10.0.0.5 51000'))).to.deep.equal({ state: 'incomplete' });
  });

  it('reads a v1 line', () => {
    expect(parseProxyHeader(Buffer.from('PROXY TCP4 203.0.113.7 10.0.0.5 51000 2222\r\nSSH-2.0-x\r\n'))).to.deep.equal({ state: 'complete', length: 44, client: { address: '203.0.113.7', port: 51000 } });
    expect(parseProxyHeader(Buffer.from('PROXY TCP6 2001:db8::17 2001:db8::1 4000 22\r\n'))).to.deep.include({ client: { address: '2001:db8::17', port: 4000 } });
    expect(parseProxyHeader(Buffer.from('PROXY UNKNOWN\r\n'))).to.deep.equal({ state: 'complete', length: 15 });
  });

  const refused: [string, Buffer, string][] = [
    ['plain SSH', ssh, 'no PROXY protocol header'],
    ['version 1 in a v2 signature', Buffer.concat([SIGNATURE, Buffer.from([0x11, 0x11, 0, 0])]), 'PROXY protocol version 1'],
    ['an unknown command', Buffer.concat([SIGNATURE, Buffer.from([0x22, 0x11, 0, 0])]), 'PROXY v2 command 2'],
    ['UDP', proxyV2(0x12, ipv4Block('203.0.113.7', 1)), 'PROXY v2 address family 0x12 is not TCP'],
    ['IPv4 addresses cut short', proxyV2(0x11, Buffer.alloc(8)), 'PROXY v2 TCP/IPv4 addresses cut short'],
    ['a header longer than the bound', Buffer.concat([SIGNATURE, Buffer.from([0x21, 0x11, 0xff, 0xff])]), 'PROXY v2 header of 65535 bytes (at most 2048)'],
    ['a v1 line without CRLF in 107 bytes', Buffer.from(`PROXY TCP4 ${'1'.repeat(110)}`), 'PROXY v1 line longer than 107 bytes'],
    ['a v1 line with a bad address', Buffer.from('PROXY TCP4 203.0.113.300 10.0.0.5 51000 2222\r\n'), 'malformed PROXY v1 line'],
    ['a v1 line with an IPv6 address under TCP4', Buffer.from('PROXY TCP4 2001:db8::1 10.0.0.5 51000 2222\r\n'), 'malformed PROXY v1 line'],
    ['a v1 line with a port past 65535', Buffer.from('PROXY TCP4 203.0.113.7 10.0.0.5 65536 2222\r\n'), 'malformed PROXY v1 line'],
  ];
  for (const [what, bytes, reason] of refused) {
    it(`refuses ${what}: "${reason}"`, () => {
      expect(parseProxyHeader(bytes)).to.deep.equal({ state: 'invalid', reason });
    });
  }

  it('tells a header from an SSH version line by its first bytes', () => {
    expect(startsLikeProxyHeader(SIGNATURE.subarray(0, 4))).to.equal(true);
    expect(startsLikeProxyHeader(Buffer.from('PROXY TCP4 1.2.3.4'))).to.equal(true);
    expect(startsLikeProxyHeader(Buffer.from('PRO'))).to.equal(true);
    expect(startsLikeProxyHeader(ssh)).to.equal(false);
    expect(startsLikeProxyHeader(Buffer.from('\r\nSSH-2.0'))).to.equal(false);
  });
});
