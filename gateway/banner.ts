// SSH_MSG_USERAUTH_BANNER in the middle of authentication (RFC 4252 section 5.4), so a
// refusal can say why ("workspace demo is Suspended; start it first"); OpenSSH prints it
// on stderr before "Permission denied". ssh2 only sends a fixed banner at the start, so
// this writes the packet through ssh2's packet writer; if a future ssh2 changes those
// internals the banner is skipped (the refusal itself still happens) and false is returned.
import { createRequire } from 'node:module';

const USERAUTH_BANNER = 53;
const MAX_BANNER_BYTES = 1024;

interface PacketWriter {
  allocStart: number;
  alloc(size: number): Buffer;
  finalize(packet: Buffer): Buffer;
}

interface ProtocolInternals {
  _packetRW: { write: PacketWriter };
}

type SendPacket = (proto: ProtocolInternals, packet: Buffer) => unknown;

function loadSendPacket(): SendPacket | undefined {
  const require = createRequire(import.meta.url);
  const utils = require('ssh2/lib/protocol/utils.js') as { sendPacket?: unknown };
  return typeof utils.sendPacket === 'function' ? (utils.sendPacket as SendPacket) : undefined;
}

function protocolOf(ctx: object): ProtocolInternals | undefined {
  const proto = (ctx as { _protocol?: Partial<ProtocolInternals> })._protocol;
  const writer = proto?._packetRW?.write;
  if (!writer || typeof writer.alloc !== 'function' || typeof writer.finalize !== 'function') return undefined;
  return proto as ProtocolInternals;
}

/** Removes control characters (a banner is printed on the person's terminal) and caps the length. */
export function bannerText(message: string): string {
  const clean = message.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').slice(0, MAX_BANNER_BYTES);
  return clean.endsWith('\n') ? clean.replace(/\r?\n$/, '\r\n') : `${clean}\r\n`;
}

export class BannerSender {
  private readonly sendPacket = loadSendPacket();

  /**
   * Sends `message` as a banner during authentication; `ctx` is ssh2's AuthContext. False
   * when ssh2's internals are not as expected.
   */
  send(ctx: object, message: string): boolean {
    const proto = protocolOf(ctx);
    if (!proto || !this.sendPacket) return false;
    const text = Buffer.from(bannerText(message), 'utf8');
    const writer = proto._packetRW.write;
    let p = writer.allocStart;
    const packet = writer.alloc(1 + 4 + text.length + 4);
    packet[p++] = USERAUTH_BANNER;
    packet.writeUInt32BE(text.length, p);
    p += 4;
    text.copy(packet, p);
    p += text.length;
    packet.writeUInt32BE(0, p); // empty language tag
    this.sendPacket(proto, writer.finalize(packet));
    return true;
  }
}
