// Two packets ssh2 has no API for, written through ssh2's packet writer; if a future ssh2
// changes those internals the packet is skipped and false is returned (the refusal or the
// disconnect itself still happens):
// - SSH_MSG_USERAUTH_BANNER in the middle of authentication (RFC 4252 section 5.4), so a
//   refusal can say why ("workspace demo is Suspended; start it first"); OpenSSH prints it
//   on stderr before "Permission denied". ssh2 only sends a fixed banner at the start.
// - SSH_MSG_DISCONNECT with a description ("Too many authentication failures", as sshd
//   says it); ssh2's own disconnect sends an empty one.
import { createRequire } from 'node:module';

const USERAUTH_BANNER = 53;
const MAX_BANNER_BYTES = 1024;

const DISCONNECT = 1;
/** SSH_DISCONNECT_PROTOCOL_ERROR: the reason sshd gives with "Too many authentication failures". */
export const DISCONNECT_PROTOCOL_ERROR = 2;

interface PacketWriter {
  allocStart: number;
  allocStartKEX: number;
  alloc(size: number, force?: boolean): Buffer;
  finalize(packet: Buffer, force?: boolean): Buffer;
}

interface ProtocolInternals {
  _packetRW: { write: PacketWriter };
}

type SendPacket = (proto: ProtocolInternals, packet: Buffer, bypassKexQueue?: boolean) => unknown;

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

export class DisconnectSender {
  private readonly sendPacket = loadSendPacket();

  /**
   * Sends SSH_MSG_DISCONNECT with `reason` and `message`; `ctx` is ssh2's AuthContext. Like
   * ssh2's own disconnect it may go out during a key exchange. False when ssh2's internals
   * are not as expected.
   */
  send(ctx: object, reason: number, message: string): boolean {
    const proto = protocolOf(ctx);
    if (!proto || !this.sendPacket || typeof proto._packetRW.write.allocStartKEX !== 'number') return false;
    const text = Buffer.from(message.replace(/[^\x20-\x7e]/g, '').slice(0, 256), 'utf8');
    const writer = proto._packetRW.write;
    let p = writer.allocStartKEX;
    const packet = writer.alloc(1 + 4 + 4 + text.length + 4, true);
    packet[p++] = DISCONNECT;
    packet.writeUInt32BE(reason, p);
    p += 4;
    packet.writeUInt32BE(text.length, p);
    p += 4;
    text.copy(packet, p);
    p += text.length;
    packet.writeUInt32BE(0, p); // empty language tag
    this.sendPacket(proto, writer.finalize(packet, true), true);
    return true;
  }
}
