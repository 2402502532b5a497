// Reuse of tunnels between requests: one keep-alive HTTP agent per (person, identity,
// namespace, pod, port) whose connections are port forwards. The portforward websocket carries
// one TCP stream, so requests cannot share a tunnel at once, but one after another can: an
// answer the app lets stay open leaves its tunnel idle for a short while, and the next request
// of the same person as the same identity to the same port takes it instead of opening a new one.
import type { Agent } from 'node:http';
import { http } from '../../process/node-http.js';
import type { Duplex } from 'node:stream';
import type { TunnelSocket } from '../../kube/portforward.js';

/** How long a tunnel left open by an answer waits for the next request before it is closed (0: never reused). */
export const TUNNEL_IDLE_MS: number = 4_000;
/** Idle tunnels kept per key; more are closed as their answers end. */
const IDLE_PER_KEY = 4;

type OpenTunnel = () => Promise<TunnelSocket>;

/**
 * What Node's keep-alive agent calls on a socket that Node's own sockets have: an inactivity
 * timeout (the agent closes an idle socket through it) besides the no-op methods.
 */
function withInactivityTimeout(socket: Duplex): Duplex {
  let timer: NodeJS.Timeout | undefined;
  let ms = 0;
  const arm = () => {
    clearTimeout(timer);
    if (ms > 0 && !socket.destroyed) timer = setTimeout(() => socket.emit('timeout'), ms);
  };
  socket.on('data', arm);
  socket.once('close', () => clearTimeout(timer));
  return Object.assign(socket, {
    timeout: 0,
    setTimeout(next: number, onTimeout?: () => void) {
      ms = next;
      (socket as Duplex & { timeout: number }).timeout = next;
      // As net.Socket does: a timeout of 0 takes the callback off again (Node's HTTP client relies on it).
      if (onTimeout && next === 0) socket.removeListener('timeout', onTimeout);
      else if (onTimeout) socket.once('timeout', onTimeout);
      arm();
      return socket;
    },
  });
}

export class TunnelPool {
  private readonly agents = new Map<string, Agent>();
  private readonly ends = new WeakMap<Duplex, TunnelSocket['ended']>();

  constructor(private readonly idleMs = TUNNEL_IDLE_MS) {}

  /** The agent of `key`, opening tunnels with `open` when none is idle. */
  agentFor(key: string, open: OpenTunnel): Agent {
    const known = this.agents.get(key);
    if (known) return known;
    const reuse = this.idleMs > 0;
    const agent = new http.Agent(reuse ? { keepAlive: true, keepAliveMsecs: this.idleMs, timeout: this.idleMs, maxFreeSockets: IDLE_PER_KEY, scheduling: 'lifo' } : { keepAlive: false });
    const ends = this.ends;
    agent.createConnection = ((_options: unknown, done: (err: Error | null, socket?: Duplex) => void) => {
      open().then(
        ({ socket, ended }) => {
          ends.set(socket, ended);
          // After the agent has seen the socket close (its 'close' comes on a later tick).
          void ended.then(() => setImmediate(() => this.forgetIfUnused(key, agent)));
          done(null, withInactivityTimeout(socket));
        },
        (err: Error) => done(err),
      );
      return undefined;
    }) as unknown as Agent['createConnection'];
    this.agents.set(key, agent);
    return agent;
  }

  /** How the tunnel under `socket` ended (the kubelet's error, say). */
  endOf(socket: Duplex | null | undefined): TunnelSocket['ended'] | undefined {
    return socket ? this.ends.get(socket) : undefined;
  }

  /** Keys with an agent now (each has a tunnel open, idle or busy), for tests. */
  get keys(): number {
    return this.agents.size;
  }

  /** Tunnels idle now, for tests. */
  idleTunnels(): number {
    let idle = 0;
    for (const agent of this.agents.values()) for (const list of Object.values(agent.freeSockets)) idle += list?.length ?? 0;
    return idle;
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  private forgetIfUnused(key: string, agent: Agent): void {
    const busy = Object.values(agent.sockets).some((l) => l?.length) || Object.values(agent.freeSockets).some((l) => l?.length) || Object.values(agent.requests).some((l) => l?.length);
    if (!busy && this.agents.get(key) === agent) this.agents.delete(key);
  }
}
