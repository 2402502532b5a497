// What a Kubernetes Service does in front of two replicas, on loopback: HTTP requests go to
// the replicas in turn, one request at a time (keep-alive from the client does not pin a
// replica, as with an ingress or kube-proxy's per-connection balancing across many clients),
// websocket upgrades included; TCP connections (SSH) go in turn, one connection at a time.
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

export interface Backend {
  host: string;
  port: number;
}

/** Picks backends in turn. */
class Rotation {
  private next = 0;
  constructor(private readonly backends: readonly Backend[]) {
    if (backends.length === 0) throw new Error('a round-robin proxy needs at least one backend');
  }

  /** Backends out of the rotation, as the endpoints controller leaves out a pod that is not ready. */
  readonly withdrawn = new Set<number>();

  pick(): Backend {
    const serving = this.backends.filter((b) => !this.withdrawn.has(b.port));
    // No endpoint left: connections go to a withdrawn one and are refused or hang, as they would.
    const from = serving.length > 0 ? serving : this.backends;
    const backend = from[this.next % from.length]!;
    this.next += 1;
    return backend;
  }
}

/** The raw head of an upgrade request, to replay to the chosen backend. */
function upgradeHead(req: http.IncomingMessage): string {
  const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

function splice(a: Socket, b: Socket): void {
  // No Nagle: a relay that holds back small writes (a TLS record, an HTTP answer) until the peer's
  // delayed ACK adds 40 ms to a round trip that kube-proxy's forwarding does not.
  a.setNoDelay(true);
  b.setNoDelay(true);
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

abstract class LoopbackListener {
  protected readonly sockets = new Set<Socket>();
  protected abstract readonly server: net.Server;
  port = 0;

  protected track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  async listen(port = 0): Promise<number> {
    await new Promise<void>((ok, fail) => {
      this.server.once('error', fail);
      this.server.listen(port, '127.0.0.1', () => ok());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }
}

/** HTTP, one backend per request (and per websocket upgrade). */
export class RoundRobinHttpProxy extends LoopbackListener {
  protected readonly server: http.Server;
  private readonly rotation: Rotation;
  // As ingress-nginx keeps its upstream connections (60 s idle, upstream-keepalive-timeout): a
  // backend that closes an idle connection sooner loses requests sent on it as it closes.
  private readonly agent = new http.Agent({ keepAlive: true, timeout: 60_000 });
  /** Requests sent to each backend, by `host:port`. */
  readonly served = new Map<string, number>();

  constructor(backends: readonly Backend[]) {
    super();
    this.rotation = new Rotation(backends);
    this.server = http.createServer((req, res) => this.forward(req, res));
    this.server.on('connection', (s) => this.track(s));
    this.server.on('upgrade', (req, socket, head) => this.upgrade(req, socket as Socket, head));
  }

  override async close(): Promise<void> {
    this.agent.destroy();
    await super.close();
  }

  private pick(): Backend {
    const backend = this.rotation.pick();
    const key = `${backend.host}:${backend.port}`;
    this.served.set(key, (this.served.get(key) ?? 0) + 1);
    return backend;
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const backend = this.pick();
    const upstream = http.request({ host: backend.host, port: backend.port, method: req.method, path: req.url, headers: req.headers, agent: this.agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`round-robin proxy: ${err.message}`);
    });
    req.pipe(upstream);
  }

  private upgrade(req: http.IncomingMessage, socket: Socket, head: Buffer): void {
    const backend = this.pick();
    const upstream = net.connect(backend.port, backend.host, () => {
      upstream.write(upgradeHead(req));
      if (head.length > 0) upstream.write(head);
      splice(socket, upstream);
    });
    this.track(upstream);
    upstream.on('error', () => socket.destroy());
  }
}

/** TCP, one backend per connection (SSH). */
export class RoundRobinTcpProxy extends LoopbackListener {
  protected readonly server: net.Server;
  private readonly rotation: Rotation;

  constructor(backends: readonly Backend[]) {
    super();
    this.rotation = new Rotation(backends);
    this.server = net.createServer((client) => {
      this.track(client);
      const backend = this.rotation.pick();
      const upstream = net.connect(backend.port, backend.host);
      this.track(upstream);
      splice(client, upstream);
    });
  }

  /** Takes the backend on `port` out of the rotation (its pod not ready), or puts it back. */
  withdraw(port: number, out = true): void {
    if (out) this.rotation.withdrawn.add(port);
    else this.rotation.withdrawn.delete(port);
  }
}
