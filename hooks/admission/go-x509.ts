// What Go's crypto/x509 refuses in a certificate Den stores. kube-apiserver parses the webhook's
// caBundle and the certificate the webhook serves with Go; Node's OpenSSL accepts more (a `@`
// in a PrintableString, for one), so material Node parsed may still be useless to the API
// server. These rules are read from Go's crypto/x509 (parser.go, verify.go) and checked against
// it by test/support/go/x509check.
import { X509Certificate } from 'node:crypto';
import forge from 'node-forge';

const { Type, Class } = forge.asn1;
const NUMERIC_STRING = 18;
const T61_STRING = 20;

/** Go's `isPrintable` (crypto/x509/parser.go): PrintableString plus `*` and `&`, which Go tolerates. */
const PRINTABLE = /^[A-Za-z0-9'()+,\-./:=? *&]*$/;

function utf8Valid(bytes: string): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(bytes, 'binary'));
    return true;
  } catch (err) {
    if (err instanceof TypeError) return false;
    throw err;
  }
}

/** Go's `parseASN1String`: the reason a Name attribute value is refused, if it is. */
function stringProblem(node: forge.asn1.Asn1): string | undefined {
  const bytes = typeof node.value === 'string' ? node.value : '';
  if (node.tagClass !== Class.UNIVERSAL || node.constructed) return 'not a string';
  switch (Number(node.type)) {
    case Type.PRINTABLESTRING:
      return PRINTABLE.test(bytes) ? undefined : `invalid PrintableString ${JSON.stringify(bytes)}`;
    case Type.UTF8:
      return utf8Valid(bytes) ? undefined : 'invalid UTF-8 string';
    case Type.IA5STRING:
      return /^[\x00-\x7f]*$/.test(bytes) ? undefined : 'invalid IA5String';
    case NUMERIC_STRING:
      return /^[0-9 ]*$/.test(bytes) ? undefined : 'invalid NumericString';
    case Type.BMPSTRING:
      return bytes.length % 2 === 0 ? undefined : 'invalid BMPString';
    case T61_STRING:
      return undefined;
    default:
      return `unsupported string type ${node.type}`;
  }
}

/** Problems in one Name (RDNSequence): every attribute value must be a string Go can read. */
function nameProblems(name: forge.asn1.Asn1, which: string): string[] {
  const problems: string[] = [];
  for (const rdn of name.value as forge.asn1.Asn1[]) {
    for (const atv of rdn.value as forge.asn1.Asn1[]) {
      const value = (atv.value as forge.asn1.Asn1[])[1];
      const problem = value ? stringProblem(value) : 'attribute without a value';
      if (problem) problems.push(`${which}: invalid attribute value: ${problem}`);
    }
  }
  return problems;
}

/** Go's `ReadASN1Integer` on the serial (crypto/x509/parser.go): a DER INTEGER in its shortest form. */
function serialProblem(serial: forge.asn1.Asn1): string | undefined {
  const bytes = typeof serial.value === 'string' ? serial.value : '';
  if (serial.tagClass !== Class.UNIVERSAL || Number(serial.type) !== Type.INTEGER || bytes.length === 0) return 'malformed serial number';
  if (bytes.length === 1) return undefined;
  const [first, second] = [bytes.charCodeAt(0), bytes.charCodeAt(1)];
  return (first === 0x00 && second < 0x80) || (first === 0xff && second >= 0x80) ? 'malformed serial number' : undefined;
}

/** The serial and the issuer and subject Names of a PEM certificate, read as DER without judging it. */
function fieldsOf(pem: string): { serial: forge.asn1.Asn1; issuer: forge.asn1.Asn1; subject: forge.asn1.Asn1 } {
  const block = forge.pem.decode(pem).find((b) => b.type === 'CERTIFICATE');
  if (!block) throw new Error('no CERTIFICATE block');
  const cert = forge.asn1.fromDer(forge.util.createBuffer(block.body));
  const tbs = (cert.value as forge.asn1.Asn1[])[0]!.value as forge.asn1.Asn1[];
  // [0] version is optional; then serialNumber, signature, issuer, validity, subject.
  const start = tbs[0]!.tagClass === Class.CONTEXT_SPECIFIC ? 1 : 0;
  return { serial: tbs[start]!, issuer: tbs[start + 2]!, subject: tbs[start + 4]! };
}

/**
 * Why `x509.ParseCertificate` would fail on `pem`: what makes kube-apiserver refuse a whole
 * caBundle ("unable to load root certificates"), as opposed to a certificate it loads but
 * does not trust.
 */
export function goParseRefusals(pem: string): string[] {
  try {
    const { serial, issuer, subject } = fieldsOf(pem);
    const serialRefused = serialProblem(serial);
    const problems = [...(serialRefused ? [serialRefused] : []), ...nameProblems(issuer, 'issuer'), ...nameProblems(subject, 'subject')];
    // Whatever else Go refuses, OpenSSL refuses too.
    if (problems.length === 0) new X509Certificate(pem);
    return problems;
  } catch (err) {
    if (err instanceof Error) return [`not a certificate Den can read: ${err.message}`];
    throw err;
  }
}

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

export type CertRole = 'ca' | 'serving';

/**
 * Why Go's crypto/x509 would refuse `pem` in its role (a CA of the caBundle, or the serving
 * certificate verified for `hosts`) at `now`; an empty list when it would accept it.
 */
export function goRefusals(pem: string, role: CertRole, now: Date, hosts: string[] = []): string[] {
  const problems = goParseRefusals(pem);
  let cert: X509Certificate;
  let forgeCert: forge.pki.Certificate;
  try {
    cert = new X509Certificate(pem);
    forgeCert = forge.pki.certificateFromPem(pem);
  } catch (err) {
    if (err instanceof Error) return problems;
    throw err;
  }
  if (new Date(cert.validFrom) > now || new Date(cert.validTo) <= now) problems.push(`not valid at ${now.toISOString()} (valid ${cert.validFrom} to ${cert.validTo})`);
  if (forgeCert.siginfo.algorithmOid !== forge.pki.oids.sha256WithRSAEncryption) problems.push('not signed with SHA-256 and RSA');
  const keyUsage = forgeCert.getExtension('keyUsage') as { keyCertSign?: boolean; digitalSignature?: boolean } | null;
  if (role === 'ca') {
    if (!cert.ca) problems.push('basicConstraints does not mark it a CA');
    if (keyUsage && !keyUsage.keyCertSign) problems.push('keyUsage lacks keyCertSign');
  } else {
    const eku = cert.keyUsage;
    if (eku !== undefined && !eku.includes(SERVER_AUTH)) problems.push('extKeyUsage lacks serverAuth');
    if (keyUsage && !keyUsage.digitalSignature) problems.push('keyUsage lacks digitalSignature');
    for (const host of hosts) {
      const matched = /^[\d.]+$|:/.test(host) ? cert.checkIP(host) : cert.checkHost(host, { subject: 'never', wildcards: false });
      if (matched === undefined) problems.push(`no subjectAltName for ${host}`);
    }
  }
  return problems;
}
