import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { generateCa, issueServingCert, planTls, serialFromBytes, servingHosts, splitPem, type CertPolicy, type TlsMaterial } from '../../../hooks/admission/certs.js';
import { registeredConfiguration } from '../../../hooks/admission/registration.js';

const DAY = 24 * 60 * 60 * 1000;
const T0 = new Date('2026-01-01T00:00:00Z');
const POLICY: CertPolicy = { caValidityDays: 100, caRenewBeforeDays: 20, servingValidityDays: 30, servingRenewBeforeDays: 5 };
const HOSTS = servingHosts('den-manager-webhook', 'svc-system');
const later = (days: number) => new Date(T0.getTime() + days * DAY);

function names(pem: string): string[] {
  return (new X509Certificate(pem).subjectAltName ?? '').split(', ');
}

describe('webhook certificates', () => {
  let first: TlsMaterial;
  before(() => {
    first = planTls(undefined, HOSTS, T0, POLICY).material;
  });

  it('names the in-cluster Service in every form the API server may dial', () => {
    expect(HOSTS).to.deep.equal(['den-manager-webhook', 'den-manager-webhook.svc-system', 'den-manager-webhook.svc-system.svc', 'den-manager-webhook.svc-system.svc.cluster.local']);
  });

  it('adds the host of --webhook-url, as an IP address or a DNS name', () => {
    expect(servingHosts('s', 'n', 'https://127.0.0.1:9443')).to.include('127.0.0.1');
    expect(servingHosts('s', 'n', 'https://dev.example.com:8443/')).to.include('dev.example.com');
    expect(servingHosts('s', 'n', 'https://[::1]:9443')).to.include('::1');
  });

  it('makes every serial a positive 16-byte DER integer in its shortest form, whatever the random bytes', () => {
    for (let first = 0; first < 256; first++) {
      const serial = Buffer.from(serialFromBytes(Buffer.from([first, 0x00, ...Array<number>(14).fill(0x80)])), 'hex');
      expect(serial).to.have.length(16);
      expect(serial[0], `first random byte ${first}`).to.be.within(0x40, 0x7f);
      expect(serial.subarray(1)).to.deep.equal(Buffer.from([0x00, ...Array<number>(14).fill(0x80)]));
    }
  });

  it('creates a CA and a serving certificate it signed, valid for the Service names', () => {
    const ca = new X509Certificate(first.caBundle);
    const serving = new X509Certificate(first.cert);
    expect(ca.ca).to.equal(true);
    expect(serving.ca).to.equal(false);
    expect(serving.checkIssued(ca) && serving.verify(ca.publicKey)).to.equal(true);
    expect(names(first.cert)).to.deep.equal(HOSTS.map((h) => `DNS:${h}`));
    expect(serving.subject).to.contain('CN=den-manager-webhook.svc-system.svc');
    expect(new Date(serving.validTo).getTime()).to.equal(T0.getTime() + 30 * DAY);
  });

  it('puts an IP address of --webhook-url in an IP SAN', () => {
    const ca = generateCa(T0, POLICY);
    const cert = issueServingCert(ca, ['localhost', '127.0.0.1'], T0, POLICY);
    expect(names(cert.cert)).to.deep.equal(['DNS:localhost', 'IP Address:127.0.0.1']);
    expect(new X509Certificate(cert.cert).checkIP('127.0.0.1')).to.equal('127.0.0.1');
  });

  it('keeps valid material as it is', () => {
    const plan = planTls(first, HOSTS, later(10), POLICY);
    expect(plan.action).to.equal('kept');
    expect(plan.material).to.deep.equal(first);
  });

  it('re-issues the serving certificate shortly before it expires, with the same CA', () => {
    const plan = planTls(first, HOSTS, later(26), POLICY);
    expect(plan.action).to.equal('serving-reissued');
    expect(plan.material.caBundle).to.equal(first.caBundle);
    expect(plan.material.cert).to.not.equal(first.cert);
    expect(new X509Certificate(plan.material.cert).checkIssued(new X509Certificate(first.caBundle))).to.equal(true);
  });

  it('re-issues the serving certificate when a required host is missing', () => {
    const plan = planTls(first, servingHosts('den-manager-webhook', 'svc-system', 'https://10.0.0.7:9443'), later(1), POLICY);
    expect(plan.action).to.equal('serving-reissued');
    expect(names(plan.material.cert)).to.include('IP Address:10.0.0.7');
  });

  it('re-issues the serving certificate when its key does not match', () => {
    const other = planTls(undefined, HOSTS, T0, POLICY).material;
    const plan = planTls({ ...first, key: other.key }, HOSTS, later(1), POLICY);
    expect(plan.action).to.equal('serving-reissued');
    expect(plan.material.caKey).to.equal(first.caKey);
  });

  it('rotates the CA well before it expires and keeps the old one trusted meanwhile', () => {
    const plan = planTls(first, HOSTS, later(85), POLICY);
    expect(plan.action).to.equal('ca-rotated');
    const bundle = splitPem(plan.material.caBundle);
    expect(bundle).to.have.length(2);
    expect(bundle[1]).to.equal(first.caBundle);
    const newCa = new X509Certificate(bundle[0]!);
    expect(new X509Certificate(plan.material.cert).checkIssued(newCa)).to.equal(true);
    expect(newCa.fingerprint256).to.not.equal(new X509Certificate(first.caBundle).fingerprint256);
  });

  it('drops the old CA from the bundle once it has expired', () => {
    const rotated = planTls(first, HOSTS, later(85), POLICY).material;
    const plan = planTls(rotated, HOSTS, later(101), POLICY);
    expect(splitPem(plan.material.caBundle)).to.deep.equal([splitPem(rotated.caBundle)[0]]);
  });

  it('starts over when the stored material is garbage', () => {
    const plan = planTls({ caBundle: 'not a certificate', caKey: 'nope', cert: 'x', key: 'y' }, HOSTS, T0, POLICY);
    expect(plan.action).to.equal('created');
    expect(() => new X509Certificate(plan.material.cert)).to.not.throw();
  });

  it('starts over when the CA key does not belong to the CA', () => {
    const other = planTls(undefined, HOSTS, T0, POLICY).material;
    expect(planTls({ ...first, caKey: other.caKey }, HOSTS, later(1), POLICY).action).to.equal('created');
  });

  describe('registration in the webhook configurations', () => {
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'den-webhooks', resourceVersion: '7' },
      webhooks: [
        { name: 'vworkspace.den.dev', clientConfig: { service: { namespace: 'svc-system', name: 'den-manager-webhook', path: '/validate-workspace', port: 443 } }, failurePolicy: 'Fail' },
        { name: 'vuserspace.den.dev', clientConfig: { service: { namespace: 'svc-system', name: 'den-manager-webhook', path: '/validate-userspace', port: 443 } } },
      ],
    };

    const service = { name: 'den-manager-webhook', namespace: 'svc-system' };
    const b64 = () => Buffer.from(first.caBundle).toString('base64');

    it('sets the caBundle and the Service reference, and keeps the other fields', () => {
      const out = registeredConfiguration(config, { caBundle: first.caBundle, service });
      expect(out.webhooks![0]!.clientConfig).to.deep.equal({ ...config.webhooks[0]!.clientConfig, caBundle: b64() });
      expect(out.webhooks![0]!.failurePolicy).to.equal('Fail');
      expect(out.metadata?.resourceVersion).to.equal('7');
    });

    it('replaces the Service with the URL of each path under --webhook-url', () => {
      const out = registeredConfiguration(config, { caBundle: first.caBundle, service, webhookUrl: 'https://dev.example.com:9443/' });
      expect(out.webhooks!.map((w) => w.clientConfig)).to.deep.equal([
        { url: 'https://dev.example.com:9443/validate-workspace', caBundle: b64() },
        { url: 'https://dev.example.com:9443/validate-userspace', caBundle: b64() },
      ]);
    });

    it('drops the URL a manager outside the cluster registered once the manager runs with the Service', () => {
      const byUrl = registeredConfiguration(config, { caBundle: first.caBundle, service, webhookUrl: 'https://10.0.0.7:9443' });
      const out = registeredConfiguration(byUrl, { caBundle: first.caBundle, service });
      expect(out.webhooks!.map((w) => w.clientConfig)).to.deep.equal([
        { service: { namespace: 'svc-system', name: 'den-manager-webhook', path: '/validate-workspace', port: 443 }, caBundle: b64() },
        { service: { namespace: 'svc-system', name: 'den-manager-webhook', path: '/validate-userspace', port: 443 }, caBundle: b64() },
      ]);
    });

    it('sets the whole clientConfig: a Service edited by someone else is put back as Den means it', () => {
      const edited = { ...config, webhooks: [{ ...config.webhooks[0]!, clientConfig: { service: { namespace: 'elsewhere', name: 'impostor', path: '/x', port: 8443 }, caBundle: 'Zm9v' } }] };
      const out = registeredConfiguration(edited, { caBundle: first.caBundle, service });
      expect(out.webhooks![0]!.clientConfig).to.deep.equal({ service: { namespace: 'svc-system', name: 'den-manager-webhook', path: '/validate-workspace', port: 443 }, caBundle: b64() });
    });
  });
});
