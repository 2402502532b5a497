import { expect } from 'chai';
import { clientAddress, parseTrustedProxies, TrustedProxies } from '../../../server/http/client-address.js';

describe('client address', () => {
  describe('parseTrustedProxies (--trusted-proxies)', () => {
    it('reads addresses and CIDR ranges of both families, IPv4-mapped IPv6 as IPv4', () => {
      expect(parseTrustedProxies(' 10.0.0.0/8, 192.0.2.7 ,fd00::/8,::ffff:198.51.100.1, ')).to.deep.equal(['10.0.0.0/8', '192.0.2.7', 'fd00::/8', '198.51.100.1']);
      expect(parseTrustedProxies('')).to.deep.equal([]);
    });

    for (const bad of ['proxy.example.com', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/8/1', '10.0.0.0/x', '300.1.1.1']) {
      it(`refuses ${JSON.stringify(bad)} naming the entry`, () => {
        expect(() => parseTrustedProxies(`192.0.2.1,${bad}`)).to.throw(`'${bad}' is not an IP address or a CIDR range (such as 10.0.0.0/8)`);
      });
    }
  });

  describe('clientAddress', () => {
    const none = new TrustedProxies([]);
    const proxies = new TrustedProxies(parseTrustedProxies('10.0.0.0/8,192.0.2.1,fd00::/8'));

    it('is the TCP peer, X-Forwarded-For ignored, when no proxy is trusted', () => {
      expect(clientAddress('203.0.113.5', '198.51.100.1', none)).to.equal('203.0.113.5');
      expect(clientAddress('::ffff:203.0.113.5', undefined, none)).to.equal('203.0.113.5');
    });

    it('is the TCP peer when the peer is not a trusted proxy, whatever it forwards', () => {
      expect(clientAddress('203.0.113.5', '10.0.0.1', proxies)).to.equal('203.0.113.5');
    });

    it('is the right-most forwarded address that is not a trusted proxy', () => {
      expect(clientAddress('192.0.2.1', '1.1.1.1, 198.51.100.9, 10.2.3.4', proxies)).to.equal('198.51.100.9');
      expect(clientAddress('::ffff:10.9.9.9', '198.51.100.9', proxies)).to.equal('198.51.100.9');
      expect(clientAddress('fd00::1', '[2001:db8::7]:4711, fd00::2', proxies)).to.equal('2001:db8::7');
      expect(clientAddress('192.0.2.1', '198.51.100.9:5555', proxies)).to.equal('198.51.100.9');
    });

    it('is the left-most entry when every hop is a trusted proxy, and the peer when nothing was forwarded', () => {
      expect(clientAddress('192.0.2.1', '10.0.0.5, 10.0.0.6', proxies)).to.equal('10.0.0.5');
      expect(clientAddress('192.0.2.1', undefined, proxies)).to.equal('192.0.2.1');
    });

    it('stops at an entry that is no address: the trusted hop that sent it is all that is known', () => {
      expect(clientAddress('192.0.2.1', '198.51.100.9, unknown, 10.0.0.5', proxies)).to.equal('10.0.0.5');
    });
  });
});
