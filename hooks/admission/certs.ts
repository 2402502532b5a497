// The webhooks' own CA and serving certificate, without cert-manager. The material lives in
// the Secret `den-webhook-tls` so every manager replica, and every restart, serves the same
// certificate; the API server trusts it through the caBundle patched into `den-webhooks`.
//
// Rotation: the serving certificate is re-issued a month before it expires (or when it lacks a
// host name it must carry); the CA is replaced a year before it expires, and the old CA stays
// in the bundle until it expires itself, so certificates still served by other replicas keep
// being trusted while they pick up the new one.
import { createPrivateKey, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';
import { goRefusals } from './go-x509.js';

export const TLS_KEYS = { caCert: 'ca.crt', caKey: 'ca.key', cert: 'tls.crt', key: 'tls.key' } as const;

export interface TlsMaterial {
  /** PEM of every trusted CA, the signing CA first. */
  caBundle: string;
  caKey: string;
  cert: string;
  key: string;
}

export interface CertPolicy {
  caValidityDays: number;
  /** Start a new CA this long before the current one expires. */
  caRenewBeforeDays: number;
  servingValidityDays: number;
  servingRenewBeforeDays: number;
}

export const DEFAULT_CERT_POLICY: CertPolicy = {
  caValidityDays: 3650,
  caRenewBeforeDays: 365,
  servingValidityDays: 365,
  servingRenewBeforeDays: 30,
};

const DAY_MS = 24 * 60 * 60 * 1000;
/** Certificates start a little in the past so a peer whose clock lags still accepts them. */
const BACKDATE_MS = 5 * 60 * 1000;

/** The names the API server may dial: the in-cluster Service, and the host of `--webhook-url`. */
export function servingHosts(serviceName: string, namespace: string, webhookUrl?: string): string[] {
  const hosts = [serviceName, `${serviceName}.${namespace}`, `${serviceName}.${namespace}.svc`, `${serviceName}.${namespace}.svc.cluster.local`];
  if (webhookUrl) {
    const host = new URL(webhookUrl).hostname.replace(/^\[|\]$/g, '');
    if (!hosts.includes(host)) hosts.push(host);
  }
  return hosts;
}

function newRsaKey(): { pem: string; forgeKey: forge.pki.rsa.PrivateKey; forgePublic: forge.pki.rsa.PublicKey } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const pub = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return { pem, forgeKey: forge.pki.privateKeyFromPem(pem), forgePublic: forge.pki.publicKeyFromPem(pub) as forge.pki.rsa.PublicKey };
}

/**
 * A certificate serial from 16 random bytes, as the hex forge takes. The first byte is made
 * 0x40–0x7f: a clear high bit keeps the number positive, and a non-zero byte keeps the DER
 * INTEGER in its shortest form. forge drops one leading zero byte as it encodes, but not a
 * second; Go's crypto/x509 refuses what is left ("x509: malformed serial number"), which one
 * serial in 65,536 of the former `bytes[0] & 0x7f` had.
 */
export function serialFromBytes(random: Buffer): string {
  const bytes = Buffer.from(random);
  bytes[0] = 0x40 | (bytes[0]! & 0x3f);
  return bytes.toString('hex');
}

function serialNumber(): string {
  return serialFromBytes(randomBytes(16));
}

function validity(cert: forge.pki.Certificate, now: Date, days: number): void {
  cert.validity.notBefore = new Date(now.getTime() - BACKDATE_MS);
  cert.validity.notAfter = new Date(now.getTime() + days * DAY_MS);
}

/**
 * A Name whose values are UTF8Strings: forge writes PrintableString unless told, and Go's
 * crypto/x509 (kube-apiserver) refuses a PrintableString holding a character outside its
 * small alphabet, such as `@`.
 */
// @types/node-forge types valueTagClass as a tag class; it holds the universal tag number.
const UTF8_STRING: number = forge.asn1.Type.UTF8;

function utf8Name(attrs: { name: string; value: string }[]): forge.pki.CertificateField[] {
  return attrs.map((a) => ({ ...a, valueTagClass: UTF8_STRING }));
}

/** The issuer a certificate signed by `ca` names: the CA's subject, encoded as the CA encodes it. */
function issuerOf(ca: forge.pki.Certificate): forge.pki.CertificateField[] {
  // forge reads values as raw bytes and re-encodes UTF8String values, so decode those first.
  return ca.subject.attributes.map((a) => ({ ...a, value: Number(a.valueTagClass) === UTF8_STRING ? forge.util.decodeUtf8(String(a.value)) : a.value }));
}

export function generateCa(now: Date, policy: CertPolicy = DEFAULT_CERT_POLICY): { cert: string; key: string } {
  const key = newRsaKey();
  const cert = forge.pki.createCertificate();
  cert.publicKey = key.forgePublic;
  cert.serialNumber = serialNumber();
  validity(cert, now, policy.caValidityDays);
  const subject = utf8Name([{ name: 'commonName', value: `den-webhook-ca@${Math.floor(now.getTime() / 1000)}` }, { name: 'organizationName', value: 'den' }]);
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(key.forgeKey, forge.md.sha256.create());
  return { cert: toPem(cert), key: key.pem };
}

export function issueServingCert(ca: { cert: string; key: string }, hosts: string[], now: Date, policy: CertPolicy = DEFAULT_CERT_POLICY): { cert: string; key: string } {
  const caCert = forge.pki.certificateFromPem(ca.cert);
  const caKey = forge.pki.privateKeyFromPem(ca.key);
  const key = newRsaKey();
  const cert = forge.pki.createCertificate();
  cert.publicKey = key.forgePublic;
  cert.serialNumber = serialNumber();
  validity(cert, now, policy.servingValidityDays);
  cert.setSubject(utf8Name([{ name: 'commonName', value: hosts.find((h) => h.endsWith('.svc')) ?? hosts[0]! }]));
  cert.setIssuer(issuerOf(caCert));
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: hosts.map((h) => (isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })) },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { cert: toPem(cert), key: key.pem };
}

/** forge writes CRLF line ends; the bundle and the Secret use LF like every other PEM tool. */
function toPem(cert: forge.pki.Certificate): string {
  return forge.pki.certificateToPem(cert).replace(/\r\n/g, '\n');
}

/** Every certificate of a PEM bundle. */
export function splitPem(bundle: string): string[] {
  return bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)?.map((pem) => `${pem}\n`) ?? [];
}

function load(pem: string): X509Certificate | undefined {
  try {
    return new X509Certificate(pem);
  } catch (err) {
    if (err instanceof Error) return undefined;
    throw err;
  }
}

function expiresWithin(cert: X509Certificate, now: Date, days: number): boolean {
  return new Date(cert.validTo).getTime() - now.getTime() < days * DAY_MS;
}

export interface TlsPlan {
  material: TlsMaterial;
  /** What was done, for the log: `created`, `ca-replaced` (Go refused the stored CA), `ca-rotated`, `serving-reissued`, or `kept`. */
  action: 'created' | 'ca-replaced' | 'ca-rotated' | 'serving-reissued' | 'kept';
  /** Why stored certificates were not kept, as Go's crypto/x509 would put it; empty when none was refused. */
  refused: string[];
}

/**
 * Decides the TLS material to store, given what the Secret holds now (possibly nothing or
 * garbage, or certificates an older Den wrote that kube-apiserver cannot parse). Only the clock
 * is passed in; new keys are random.
 */
export function planTls(current: Partial<TlsMaterial> | undefined, hosts: string[], now: Date, policy: CertPolicy = DEFAULT_CERT_POLICY): TlsPlan {
  const fresh = (action: TlsPlan['action'], kept: string[], refused: string[]): TlsPlan => {
    const ca = generateCa(now, policy);
    return { action, refused, material: { caBundle: [ca.cert, ...kept].join(''), caKey: ca.key, ...issueServingCert(ca, hosts, now, policy) } };
  };
  const bundle = splitPem(current?.caBundle ?? '');
  const signing = bundle[0] ? load(bundle[0]) : undefined;
  const caUsable = signing !== undefined && current?.caKey !== undefined && keyMatches(signing, current.caKey) && new Date(signing.validTo) > now;
  if (!caUsable || !current?.caKey) return fresh('created', [], bundle[0] && !signing ? goRefusals(bundle[0], 'ca', now).map((p) => `CA 1 of the bundle: ${p}`) : []);
  // kube-apiserver refuses the whole caBundle if it cannot parse one of its certificates.
  const caRefusals = bundle.map((pem) => goRefusals(pem, 'ca', now));
  const trusted = bundle.filter((_, i) => caRefusals[i]!.length === 0);
  const droppedCas = caRefusals.flatMap((problems, i) => problems.map((p) => `CA ${i + 1} of the bundle: ${p}`));
  if (caRefusals[0]!.length > 0) return fresh('ca-replaced', trusted, droppedCas);
  if (expiresWithin(signing, now, policy.caRenewBeforeDays)) return fresh('ca-rotated', trusted, droppedCas);
  const caBundle = trusted.join('');
  const serving = current.cert ? load(current.cert) : undefined;
  const servingRefusals = current.cert ? goRefusals(current.cert, 'serving', now, hosts) : [];
  const servingOk =
    serving !== undefined &&
    current.key !== undefined &&
    serving.checkIssued(signing) &&
    serving.verify(signing.publicKey) &&
    keyMatches(serving, current.key) &&
    !expiresWithin(serving, now, policy.servingRenewBeforeDays) &&
    servingRefusals.length === 0;
  const refused = [...droppedCas, ...servingRefusals.map((p) => `serving certificate: ${p}`)];
  if (!servingOk) {
    return { action: 'serving-reissued', refused, material: { caBundle, caKey: current.caKey, ...issueServingCert({ cert: bundle[0]!, key: current.caKey }, hosts, now, policy) } };
  }
  return { action: caBundle === current.caBundle ? 'kept' : 'serving-reissued', refused, material: { caBundle, caKey: current.caKey, cert: current.cert!, key: current.key! } };
}

/** Whether `keyPem` is the private key of `cert`; a malformed key simply does not match. */
function keyMatches(cert: X509Certificate, keyPem: string): boolean {
  try {
    return cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch (err) {
    if (err instanceof Error) return false;
    throw err;
  }
}

/** The Secret's `data` (base64 values) for some material. */
export function secretData(material: TlsMaterial): Record<string, string> {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return { [TLS_KEYS.caCert]: b64(material.caBundle), [TLS_KEYS.caKey]: b64(material.caKey), [TLS_KEYS.cert]: b64(material.cert), [TLS_KEYS.key]: b64(material.key) };
}

/** The material in a Secret's `data`, as far as it is there. */
export function materialOf(data: Record<string, string> | undefined): Partial<TlsMaterial> {
  const text = (k: string) => (data?.[k] ? Buffer.from(data[k]!, 'base64').toString('utf8') : undefined);
  return { caBundle: text(TLS_KEYS.caCert), caKey: text(TLS_KEYS.caKey), cert: text(TLS_KEYS.cert), key: text(TLS_KEYS.key) };
}
