// Webhook TLS material as Den wrote it before the CA's subject became a UTF8String: the CA
// named `den-webhook-ca@<seconds>` in a PrintableString, which Go's crypto/x509 refuses.
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';
import { issueServingCert, type TlsMaterial } from '../../../hooks/admission/certs.js';

export function oldStyleMaterial(now: Date, hosts: string[]): TlsMaterial {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(now.getTime() - 5 * 60 * 1000);
  cert.validity.notAfter = new Date(now.getTime() + 3650 * 24 * 60 * 60 * 1000);
  const subject = [{ name: 'commonName', value: `den-webhook-ca@${Math.floor(now.getTime() / 1000)}` }, { name: 'organizationName', value: 'den' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
  const caPem = forge.pki.certificateToPem(cert).replace(/\r\n/g, '\n');
  const serving = issueServingCert({ cert: caPem, key: keyPem }, hosts, now);
  return { caBundle: caPem, caKey: keyPem, ...serving };
}

/**
 * `material` with one of its certificates re-signed under another serial (hex of the DER
 * INTEGER's content, as forge takes it): how a serial Go refuses reaches the Secret.
 */
export function withSerial(material: TlsMaterial, which: 'ca' | 'serving', serialHex: string): TlsMaterial {
  const pem = which === 'ca' ? material.caBundle : material.cert;
  const cert = forge.pki.certificateFromPem(pem);
  cert.serialNumber = serialHex;
  cert.sign(forge.pki.privateKeyFromPem(material.caKey), forge.md.sha256.create());
  const resigned = forge.pki.certificateToPem(cert).replace(/\r\n/g, '\n');
  return which === 'ca' ? { ...material, caBundle: resigned } : { ...material, cert: resigned };
}
