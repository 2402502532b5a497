// The gateway's figures: connections and authenticated sessions open, session set-ups and how
// long they took, authentication failures by reason, and the bytes carried each way.
import type { Socket } from 'node:net';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Why an authentication attempt was refused; a closed set, so a label of bounded size. */
export type AuthFailureReason = 'method' | 'unknown-key' | 'bad-signature' | 'ambiguous-name' | 'workspace-unavailable' | 'internal';

export class GatewayMetrics {
  readonly sessionsOpen: Gauge;
  readonly setups: Counter<'result'>;
  readonly setupDuration: Histogram;
  readonly authFailures: Counter<'reason'>;
  private readonly bytes: Counter<'direction'>;
  /** Open sockets and the byte counts already added for them. */
  private readonly sockets = new Map<Socket, { read: number; written: number }>();

  constructor(registry: Registry, openConnections: () => number) {
    const registers = [registry];
    new Gauge({
      name: 'den_gateway_connections_open',
      help: 'SSH connections open, authenticated or not.',
      registers,
      collect() {
        this.set(openConnections());
      },
    });
    this.sessionsOpen = new Gauge({ name: 'den_gateway_sessions_open', help: 'Authenticated SSH connections open (each one counts as activity on its workspace).', registers });
    this.setups = new Counter({ name: 'den_gateway_session_setups_total', help: 'Connections that authenticated (ok) or ended before authenticating (failed).', labelNames: ['result'], registers });
    this.setupDuration = new Histogram({
      name: 'den_gateway_session_setup_duration_seconds',
      help: 'From the TCP connection to an authenticated session with its pod resolved.',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.authFailures = new Counter({ name: 'den_gateway_auth_failures_total', help: 'Refused authentication attempts by reason.', labelNames: ['reason'], registers });
    const sockets = this.sockets;
    const bytes = (this.bytes = new Counter({
      name: 'den_gateway_bytes_total',
      help: 'Bytes received from (in) and sent to (out) SSH clients, encrypted, as the sockets count them.',
      labelNames: ['direction'],
      registers,
      collect() {
        for (const [socket, counted] of sockets) addBytes(bytes, socket, counted);
      },
    }));
  }

  /** Counts this socket's bytes from now until it closes. */
  watchSocket(socket: Socket): void {
    const counted = { read: 0, written: 0 };
    this.sockets.set(socket, counted);
    socket.once('close', () => {
      addBytes(this.bytes, socket, counted);
      this.sockets.delete(socket);
    });
  }
}

function addBytes(bytes: Counter<'direction'>, socket: Socket, counted: { read: number; written: number }): void {
  const read = socket.bytesRead;
  const written = socket.bytesWritten;
  if (read > counted.read) bytes.inc({ direction: 'in' }, read - counted.read);
  if (written > counted.written) bytes.inc({ direction: 'out' }, written - counted.written);
  counted.read = read;
  counted.written = written;
}
