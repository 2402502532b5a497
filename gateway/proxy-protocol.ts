// The PROXY protocol header a load balancer puts before the client's bytes (haproxy.org's
// proxy-protocol.txt): version 2 (binary) and version 1 (one text line). Read only from peers
// named as trusted proxies; the address it carries is the client's for every limit, log line
// and figure. Pure parsing here; the socket side is `readProxyHeader`.
import { isIP, type Socket } from 'node:net';
import { normaliseAddress } from '../process/trusted-proxies.js';

const V2_SIGNATURE = Buffer.from('\r\n\r\n\0\r\nQUIT\n', 'latin1');
const V1_PREFIX = Buffer.from('PROXY ', 'latin1');
/** proxy-protocol.txt: a v1 line is at most 107 bytes with its CRLF. */
const V1_MAX = 107;
/** Addresses plus the TLVs load balancers add (AWS, GCP, Azure send well under this). */
export const V2_MAX_PAYLOAD = 2048;

export interface ProxiedAddress {
  address: string;
  port: number;
}

export type ProxyHeader =
  | { state: 'incomplete' }
  | { state: 'invalid'; reason: string }
  /** `client` is absent for a LOCAL or UNKNOWN header (the balancer's own health check): the peer is the client. */
  | { state: 'complete'; length: number; client?: ProxiedAddress };

/** Whether these first bytes could begin a PROXY header of either version. */
export function startsLikeProxyHeader(bytes: Buffer): boolean {
  const n = Math.min(bytes.length, V2_SIGNATURE.length);
  if (n > 0 && bytes.subarray(0, n).equals(V2_SIGNATURE.subarray(0, n))) return true;
  const m = Math.min(bytes.length, V1_PREFIX.length);
  return m > 0 && bytes.subarray(0, m).equals(V1_PREFIX.subarray(0, m));
}

/** The header at the start of `bytes`, or what is wrong with it, or that more bytes are needed. */
export function parseProxyHeader(bytes: Buffer): ProxyHeader {
  if (bytes.length === 0) return { state: 'incomplete' };
  if (!startsLikeProxyHeader(bytes)) return { state: 'invalid', reason: 'no PROXY protocol header' };
  if (bytes[0] === V1_PREFIX[0]) return bytes.length < V1_PREFIX.length ? { state: 'incomplete' } : parseV1(bytes);
  return parseV2(bytes);
}

function parseV2(bytes: Buffer): ProxyHeader {
  if (bytes.length < 16) return { state: 'incomplete' };
  const version = bytes[12]! >> 4;
  const command = bytes[12]! & 0x0f;
  const family = bytes[13]!;
  const length = bytes.readUInt16BE(14);
  if (version !== 2) return { state: 'invalid', reason: `PROXY protocol version ${version}` };
  if (command > 1) return { state: 'invalid', reason: `PROXY v2 command ${command}` };
  if (length > V2_MAX_PAYLOAD) return { state: 'invalid', reason: `PROXY v2 header of ${length} bytes (at most ${V2_MAX_PAYLOAD})` };
  if (bytes.length < 16 + length) return { state: 'incomplete' };
  const total = 16 + length;
  if (command === 0) return { state: 'complete', length: total };
  const body = bytes.subarray(16, total);
  if (family === 0x11) {
    if (length < 12) return { state: 'invalid', reason: 'PROXY v2 TCP/IPv4 addresses cut short' };
    return { state: 'complete', length: total, client: { address: `${body[0]}.${body[1]}.${body[2]}.${body[3]}`, port: body.readUInt16BE(8) } };
  }
  if (family === 0x21) {
    if (length < 36) return { state: 'invalid', reason: 'PROXY v2 TCP/IPv6 addresses cut short' };
    return { state: 'complete', length: total, client: { address: ipv6Text(body.subarray(0, 16)), port: body.readUInt16BE(32) } };
  }
  if (family === 0x00) return { state: 'complete', length: total };
  return { state: 'invalid', reason: `PROXY v2 address family 0x${family.toString(16).padStart(2, '0')} is not TCP` };
}

function parseV1(bytes: Buffer): ProxyHeader {
  const end = bytes.indexOf('\r\n', 0, 'latin1');
  if (end < 0) return bytes.length >= V1_MAX ? { state: 'invalid', reason: 'PROXY v1 line longer than 107 bytes' } : { state: 'incomplete' };
  if (end + 2 > V1_MAX) return { state: 'invalid', reason: 'PROXY v1 line longer than 107 bytes' };
  const fields = bytes.subarray(0, end).toString('latin1').split(' ');
  const length = end + 2;
  if (fields[1] === 'UNKNOWN') return { state: 'complete', length };
  const [, protocol, source, , sourcePort] = fields;
  const family = protocol === 'TCP4' ? 4 : protocol === 'TCP6' ? 6 : 0;
  const port = Number(sourcePort);
  if (fields.length !== 6 || !family || isIP(source ?? '') !== family || !/^\d{1,5}$/.test(sourcePort ?? '') || port > 65535) {
    return { state: 'invalid', reason: 'malformed PROXY v1 line' };
  }
  return { state: 'complete', length, client: { address: normaliseAddress(source!), port } };
}

/** 16 bytes as Node writes the address (an IPv4-mapped one as plain IPv4, as `normaliseAddress`). */
function ipv6Text(bytes: Buffer): string {
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes.readUInt16BE(10) === 0xffff) return `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`;
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16));
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j += 1;
    if (j - i > best.length && j - i > 1) best = { at: i, length: j - i };
    i = j;
  }
  if (best.at < 0) return groups.join(':');
  return `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.length).join(':')}`;
}

/**
 * Reads the header off the socket and puts back whatever followed it. Resolves with the header,
 * or with the reason it was refused; rejects when the socket closes first (the caller's grace
 * timer destroys it). Nothing is written to the socket.
 */
export function readProxyHeader(socket: Socket): Promise<ProxyHeader & { state: 'complete' | 'invalid' }> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const finish = (result: ProxyHeader & { state: 'complete' | 'invalid' }) => {
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      if (result.state === 'complete' && buffered.length > result.length) socket.unshift(buffered.subarray(result.length));
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      const header = parseProxyHeader(buffered);
      if (header.state !== 'incomplete') finish(header);
    };
    const onClose = () => {
      socket.off('data', onData);
      reject(new Error('connection closed before its PROXY header'));
    };
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}
