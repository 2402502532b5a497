import { expect } from 'chai';
import { DEFAULT_CERT_POLICY, generateCa, issueServingCert, planTls, serialFromBytes, servingHosts, splitPem, type CertPolicy } from '../../../hooks/admission/certs.js';
import { goRefusals } from '../../../hooks/admission/go-x509.js';
import { NAMESPACE, WEBHOOK_SERVICE } from '../../../contract/names.js';
import { buildGoX509, type GoX509 } from '../../support/go-x509.js';
import { oldStyleMaterial, withSerial } from './old-certs.js';

const DAY = 24 * 60 * 60 * 1000;
const POLICY: CertPolicy = { caValidityDays: 100, caRenewBeforeDays: 20, servingValidityDays: 30, servingRenewBeforeDays: 5 };

describe("webhook certificates, as Go's crypto/x509 (kube-apiserver) reads them", function () {
  // The first build of the checker compiles crypto/x509; later runs hit Go's build cache.
  this.timeout(180_000);
  let go: GoX509;
  const now = new Date();

  before(() => {
    go = buildGoX509();
  });
  after(() => go?.dispose());

  for (const webhookUrl of [undefined, 'https://127.0.0.1:9443', 'https://[::1]:9443/', 'https://den.dev.example.com:8443']) {
    it(`verifies the serving certificate for every Service name${webhookUrl ? ` and the host of --webhook-url ${webhookUrl}` : ''}`, async () => {
      const hosts = servingHosts(WEBHOOK_SERVICE, NAMESPACE, webhookUrl);
      const { material } = planTls(undefined, hosts, now);
      const verdict = await go.check(material.caBundle, material.cert, hosts);
      expect(verdict.lines).to.deep.equal(hosts.map((h) => `verify ${h}: ok`));
      expect(verdict.ok).to.equal(true);
      expect(goRefusals(material.caBundle, 'ca', now)).to.deep.equal([]);
      expect(goRefusals(material.cert, 'serving', now, hosts)).to.deep.equal([]);
    });
  }

  it('refuses a host the certificate does not name, and so does the check Den runs', async () => {
    const hosts = servingHosts(WEBHOOK_SERVICE, NAMESPACE);
    const { material } = planTls(undefined, hosts, now);
    const verdict = await go.check(material.caBundle, material.cert, ['10.0.0.7']);
    expect(verdict.ok).to.equal(false);
    expect(verdict.lines[0]).to.match(/^verify 10\.0\.0\.7: x509: cannot validate certificate for 10\.0\.0\.7 because it doesn't contain any IP SANs$/);
    expect(goRefusals(material.cert, 'serving', now, ['10.0.0.7'])).to.deep.equal(['no subjectAltName for 10.0.0.7']);
  });

  it('refuses an expired serving certificate, and so does the check Den runs', async () => {
    const ca = generateCa(new Date(now.getTime() - 50 * DAY), POLICY);
    const cert = issueServingCert(ca, ['den-manager-webhook.svc-system.svc'], new Date(now.getTime() - 40 * DAY), POLICY);
    const verdict = await go.check(ca.cert, cert.cert, ['den-manager-webhook.svc-system.svc']);
    expect(verdict.lines[0]).to.match(/x509: certificate has expired or is not yet valid/);
    expect(goRefusals(cert.cert, 'serving', now)[0]).to.match(/^not valid at /);
  });

  it('refuses the CA an older Den stored (den-webhook-ca@… as a PrintableString), and so does the check Den runs', async () => {
    const hosts = servingHosts(WEBHOOK_SERVICE, NAMESPACE);
    const old = oldStyleMaterial(now, hosts);
    const verdict = await go.check(old.caBundle, old.cert, hosts);
    expect(verdict.ok).to.equal(false);
    expect(verdict.lines).to.have.length.greaterThan(0);
    for (const line of verdict.lines) expect(line).to.match(/failed to parse certificate: x509: invalid RDNSequence: invalid attribute value: invalid PrintableString/);
    expect(goRefusals(old.caBundle, 'ca', now)).to.deep.equal([
      `issuer: invalid attribute value: invalid PrintableString "den-webhook-ca@${Math.floor(now.getTime() / 1000)}"`,
      `subject: invalid attribute value: invalid PrintableString "den-webhook-ca@${Math.floor(now.getTime() / 1000)}"`,
    ]);
  });

  it('replaces such a CA and its serving certificate with ones Go accepts', async () => {
    const hosts = servingHosts(WEBHOOK_SERVICE, NAMESPACE, 'https://127.0.0.1:9443');
    const old = oldStyleMaterial(now, hosts);
    const plan = planTls(old, hosts, now);
    expect(plan.action).to.equal('ca-replaced');
    expect(plan.refused[0]).to.match(/^CA 1 of the bundle: issuer: invalid attribute value: invalid PrintableString/);
    expect(splitPem(plan.material.caBundle)).to.have.length(1);
    expect(plan.material.caBundle).to.not.contain(old.caBundle);
    expect(plan.material.caKey).to.not.equal(old.caKey);
    expect((await go.check(plan.material.caBundle, plan.material.cert, hosts)).ok).to.equal(true);
    expect(planTls(plan.material, hosts, now).action).to.equal('kept');
  });

  describe('serial numbers', () => {
    const hosts = servingHosts(WEBHOOK_SERVICE, NAMESPACE);
    // forge drops one leading zero byte as it encodes a serial, and leaves the second.
    const zeroLed = Buffer.from('0000' + '17'.repeat(14), 'hex');

    it('refuses a serial that is not in its shortest DER form, and so does the check Den runs', async () => {
      const material = withSerial(planTls(undefined, hosts, now).material, 'serving', zeroLed.toString('hex'));
      const verdict = await go.check(material.caBundle, material.cert, hosts);
      expect(verdict.ok).to.equal(false);
      expect(verdict.lines[0]).to.match(/x509: malformed serial number/);
      expect(goRefusals(material.cert, 'serving', now, hosts)).to.deep.equal(['malformed serial number']);
    });

    it('makes a serial Go reads from random bytes that begin with zero bytes', async () => {
      const material = withSerial(planTls(undefined, hosts, now).material, 'serving', serialFromBytes(zeroLed));
      expect((await go.check(material.caBundle, material.cert, hosts)).ok).to.equal(true);
      expect(goRefusals(material.cert, 'serving', now, hosts)).to.deep.equal([]);
    });

    it('replaces a stored CA, and re-issues a stored serving certificate, whose serial Go refuses, and says why', async () => {
      const good = planTls(undefined, hosts, now).material;
      const badCa = planTls(withSerial(good, 'ca', zeroLed.toString('hex')), hosts, now);
      // OpenSSL cannot read it either, so Den starts over as with any CA it cannot load.
      expect(badCa.action).to.equal('created');
      expect(badCa.refused).to.deep.equal(['CA 1 of the bundle: malformed serial number']);
      expect((await go.check(badCa.material.caBundle, badCa.material.cert, hosts)).ok).to.equal(true);
      const badServing = planTls(withSerial(good, 'serving', zeroLed.toString('hex')), hosts, now);
      expect(badServing.action).to.equal('serving-reissued');
      expect(badServing.refused).to.deep.equal(['serving certificate: malformed serial number']);
      expect(badServing.material.caBundle).to.equal(good.caBundle);
      expect((await go.check(badServing.material.caBundle, badServing.material.cert, hosts)).ok).to.equal(true);
    });
  });

  it('keeps a bundle of two CAs Go can parse through a CA rotation: old and new serving certificates verify', async () => {
    const hosts = ['den-manager-webhook.svc-system.svc'];
    const t0 = new Date(now.getTime() - 85 * DAY);
    // A serving certificate long-lived enough to be still in use when the CA rotates.
    const policy = { ...POLICY, servingValidityDays: 90 };
    const first = planTls(undefined, hosts, t0, policy).material;
    const rotated = planTls(first, hosts, now, policy);
    expect(rotated.action).to.equal('ca-rotated');
    expect(splitPem(rotated.material.caBundle)).to.have.length(2);
    expect((await go.check(rotated.material.caBundle, rotated.material.cert, hosts)).ok).to.equal(true);
    expect((await go.check(rotated.material.caBundle, first.cert, hosts)).ok).to.equal(true);
  });

  it('drops from the bundle a trusted CA Go refuses, keeping the signing CA', async () => {
    const hosts = servingHosts(WEBHOOK_SERVICE, NAMESPACE);
    const good = planTls(undefined, hosts, now).material;
    const old = oldStyleMaterial(now, hosts);
    const plan = planTls({ ...good, caBundle: good.caBundle + old.caBundle }, hosts, now, DEFAULT_CERT_POLICY);
    expect(plan.action).to.equal('serving-reissued');
    expect(plan.material.caBundle).to.equal(good.caBundle);
    expect(plan.refused[0]).to.match(/^CA 2 of the bundle: /);
    expect((await go.check(plan.material.caBundle, plan.material.cert, hosts)).ok).to.equal(true);
  });
});
