// The SSH gateway: an ssh2 Server that authenticates each connection against the
// Workspace cache, then serves session channels (shell, exec, sftp) through pods/exec and
// direct-tcpip channels to the pod's loopback through pods/portforward, both as the
// workspace owner: with a token minted for their `session` ServiceAccount, so the cluster's
// RBAC decides and its audit log names them. It keeps no state beyond its open connections
// and the minted tokens; everything it knows comes from the cluster API.
import net, { type AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import ssh2, { type Connection, type ServerChannel, type TcpipRequestInfo } from 'ssh2';
import type { Log } from '../process/role.js';
import type { KubeClient } from '../kube/client.js';
import type { Informer } from '../kube/informer.js';
import { sleep } from '../process/timers.js';
import { ActivityRecorder } from '../shell/activity.js';
import { FIELD_MANAGERS, userSpaceOfNamespace } from '../kube/group.js';
import { audit, AUDIT_ACTS } from '../process/audit.js';
import { EXEC_FAILURE_CODE } from '../kube/exec.js';
import { isDisabled, type UserSpace } from '../contract/user-space.js';
import { DEFAULT_SHARE_CHECK_MS, pollShare, shareEndedMessage, stillShared } from '../shell/share-check.js';
import { ConnectionChannels, resolveGuestTarget } from './guest.js';
import { DenEventRecorder, denEventSink, DEN_REPORTING_COMPONENTS, type DenEventSink } from '../kube/den-events.js';
import { KubeApiError } from '../kube/errors.js';
import { sessionClient } from '../kube/forwarding.js';
import { MintError, TokenMinter } from '../kube/minting.js';
import { MintingMetrics } from '../kube/minting-metrics.js';
import { GatewayMetrics } from './metrics.js';
import { Metrics } from '../process/metrics.js';
import { ConnectionAuth, DEFAULT_MAX_AUTH_TRIES, printable } from './auth.js';
import { BannerSender, DISCONNECT_PROTOCOL_ERROR, DisconnectSender } from './banner.js';
import type { OfferedKey } from './keys.js';
import { isLocalDestination } from './local-destination.js';
import { openPortForward } from '../kube/portforward.js';
import { DEFAULT_PRE_AUTH_LIMITS, PreAuthGate, type PreAuthLimits } from './pre-auth.js';
import { readProxyHeader, startsLikeProxyHeader, type ProxiedAddress } from './proxy-protocol.js';
import { normaliseAddress, TrustedProxies } from '../process/trusted-proxies.js';
import { serveSession } from './session.js';
import { connectionFields, SessionRecorder, type ConnectionFacts, type SessionTally } from './session-record.js';
import { resolveTarget } from './target.js';
import type { Workspace, WorkspaceImage } from './workspaces.js';

export interface GatewayOptions {
  hostKey: string;
  /** The gateway's own identity: reads Workspaces and pods, mints owners' tokens, records activity and Events. */
  client: KubeClient;
  /** Lifetime asked for the owners' minted tokens (`--token-ttl`). */
  tokenTtlSeconds?: number;
  /** `reportingInstance` of its Events: this replica (the pod's hostname unless a test says). */
  instance?: string;
  /** Cached Workspaces of that name, all namespaces. */
  named: (name: string) => Workspace[];
  /** The Workspaces of that name as the API server holds them now, asked when the cache authorizes no offered key. */
  current?: (name: string) => Promise<Workspace[]>;
  /** The cached WorkspaceImage of that name. */
  image: (name: string) => WorkspaceImage | undefined;
  /** Milliseconds between keepalive probes; a client missing three in a row is dropped. */
  keepaliveIntervalMs: number;
  /** Limits before authentication (sshd's LoginGraceTime, MaxStartups, MaxAuthTries); defaults as documented. */
  limits?: Partial<GatewayLimits>;
  log: Log;
  now?: () => Date;
  /** How often an open session refreshes status.lastActivityTime (ACTIVITY_REFRESH_MS unless a test says). */
  activityRefreshMs?: number;
  /** The process's figures; a gateway of its own (tests) counts into a registry nobody scrapes. */
  metrics?: Metrics;
  /** Addresses or CIDR ranges of load balancers whose connections begin with a PROXY protocol header; none: PROXY protocol off. */
  proxyProtocolFrom?: readonly string[];
  /**
   * The UserSpace cache: a shared workspace takes its guest's own profile keys (gateway/guest.ts), and an open guest
   * session ends when its person is disabled or removed. None: shared workspaces are refused.
   */
  people?: Pick<Informer<UserSpace>, 'list' | 'get'>;
  /** Milliseconds between the checks that a guest's share still stands (DEFAULT_SHARE_CHECK_MS unless a test says). */
  shareCheckMs?: number;
  /** In [0, 1): MaxStartups' random early drop (tests make it predictable). */
  random?: () => number;
}

export interface GatewayLimits extends PreAuthLimits {
  maxAuthTries: number;
}

export const DEFAULT_GATEWAY_LIMITS: GatewayLimits = { ...DEFAULT_PRE_AUTH_LIMITS, maxAuthTries: DEFAULT_MAX_AUTH_TRIES };

/** How long, at most, open sessions may take to finish once shutdown begins. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 25_000;
const SHUTDOWN_NOTICE = 'den: the SSH gateway is shutting down; reconnect to continue\r\n';

/**
 * Closes the connection's socket at once. ssh2's `end()` half-closes and waits for the peer,
 * which never answers when it is frozen or gone; ssh2 exposes the socket only internally.
 */
function destroyConnection(conn: Connection): void {
  const socket = (conn as Connection & { _sock?: { destroy(): void } })._sock;
  if (socket) socket.destroy();
  else conn.end();
}

export class Gateway {
  /** Accepts TCP connections and hands those within the pre-authentication limits to ssh2. */
  private readonly tcp: net.Server;
  private readonly server: ssh2.Server;
  private readonly gate: PreAuthGate;
  private readonly proxies: TrustedProxies;
  /** Connections from a trusted proxy whose PROXY header has not arrived yet. */
  private readonly awaitingHeader = new Set<net.Socket>();
  private readonly limits: GatewayLimits;
  private readonly disconnect = new DisconnectSender();
  private readonly connections = new Set<Connection>();
  private readonly running = new Set<ServerChannel>();
  private readonly activity: ActivityRecorder;
  private readonly banner = new BannerSender();
  private readonly metrics: GatewayMetrics;
  private readonly minter: TokenMinter;
  private readonly events: DenEventSink;
  private readonly record: SessionRecorder;
  private listening = false;
  private closing = false;

  constructor(private readonly opts: GatewayOptions) {
    this.limits = { ...DEFAULT_GATEWAY_LIMITS, ...opts.limits };
    this.gate = new PreAuthGate(this.limits, opts.log, { random: opts.random });
    this.proxies = new TrustedProxies(opts.proxyProtocolFrom ?? []);
    this.activity = new ActivityRecorder({
      client: opts.client,
      fieldManager: FIELD_MANAGERS.gateway,
      now: opts.now,
      refreshMs: opts.activityRefreshMs,
      onError: (err, where) => opts.log('cannot record activity', { ...where, error: err.message }),
    });
    const registry = (opts.metrics ?? new Metrics({ processFigures: false })).registry;
    const nowMs = opts.now ? () => opts.now!().getTime() : Date.now;
    this.metrics = new GatewayMetrics(registry, () => this.connections.size);
    this.minter = new TokenMinter(opts.client, { ttlSeconds: opts.tokenTtlSeconds ?? 600, minter: 'the gateway', metrics: new MintingMetrics(registry) });
    this.events = denEventSink(new DenEventRecorder({ reportingComponent: DEN_REPORTING_COMPONENTS.gateway, reportingInstance: opts.instance ?? hostname(), now: opts.now }), opts.client, (err, about) =>
      opts.log('cannot record event', { ...about, error: err.message }),
    );
    this.record = new SessionRecorder(this.events, opts.log, nowMs);
    this.server = new ssh2.Server(
      {
        hostKeys: [opts.hostKey],
        ident: 'den-gateway',
        keepaliveInterval: opts.keepaliveIntervalMs,
        keepaliveCountMax: 3,
      },
      (conn, info) => this.accept(conn, `${info.ip}:${info.port}`),
    );
    this.tcp = net.createServer((socket) => this.arrive(socket));
    this.tcp.on('error', (err: Error) => opts.log('ssh listener error', { error: err.message }));
  }

  get ready(): boolean {
    return this.listening && !this.closing;
  }

  get openConnections(): number {
    return this.connections.size;
  }

  /** TCP connections that have not authenticated yet (silent ones included). */
  get unauthenticatedConnections(): number {
    return this.gate.pending;
  }

  listen(host: string, port: number): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      this.tcp.once('error', onError);
      this.tcp.listen(port, host, () => {
        this.tcp.off('error', onError);
        this.listening = true;
        resolve(this.tcp.address() as AddressInfo);
      });
    });
  }

  /**
   * Stops accepting connections, lets open sessions finish for up to `graceMs`, then tells
   * the ones still running why they end and closes them.
   */
  async shutdown(graceMs = DEFAULT_SHUTDOWN_GRACE_MS): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const stopped = new Promise<void>((resolve) => this.tcp.close(() => resolve()));
    this.gate.closeAll();
    for (const socket of this.awaitingHeader) socket.destroy();
    const deadline = Date.now() + graceMs;
    while (this.connections.size > 0 && Date.now() < deadline) await sleep(Math.min(100, Math.max(1, deadline - Date.now())));
    if (this.connections.size > 0) {
      this.opts.log('closing sessions still open at shutdown', { connections: this.connections.size });
      for (const channel of this.running) channel.stderr.write(SHUTDOWN_NOTICE);
      for (const conn of this.connections) conn.end();
      const forced = Date.now() + 2_000;
      while (this.connections.size > 0 && Date.now() < forced) await sleep(50);
      for (const conn of this.connections) destroyConnection(conn);
    }
    await stopped;
    await Promise.all([this.activity.settled(), this.events.settled()]);
  }

  /** A TCP connection: from a trusted proxy its PROXY header first, then the limits, then ssh2. */
  private arrive(socket: net.Socket): void {
    if (this.closing) return void socket.destroy();
    const peer = { address: normaliseAddress(socket.remoteAddress ?? ''), port: socket.remotePort ?? 0 };
    if (this.proxies.has(peer.address)) return this.readHeader(socket, peer);
    // Anyone else is a plain SSH client; a PROXY header from them would forge a client address.
    socket.once('data', (first: Buffer) => {
      if (!startsLikeProxyHeader(first)) return;
      this.opts.log('PROXY protocol header from an address not trusted to send one; connection closed', { remote: `${peer.address}:${peer.port}` });
      socket.destroy();
    });
    this.enter(socket, peer, Date.now());
  }

  /** Waits for the header under the login grace time; a missing or malformed one closes the connection. */
  private readHeader(socket: net.Socket, peer: ProxiedAddress): void {
    const { log } = this.opts;
    const acceptedAt = Date.now();
    const from = `${peer.address}:${peer.port}`;
    this.awaitingHeader.add(socket);
    const onError = (err: Error) => log('connection error before its PROXY header', { proxy: from, error: err.message });
    socket.on('error', onError);
    const timer = setTimeout(() => {
      log('no PROXY protocol header within the login grace time; connection closed', { proxy: from, graceMs: this.limits.loginGraceMs });
      socket.destroy();
    }, this.limits.loginGraceMs);
    timer.unref();
    readProxyHeader(socket).then(
      (header) => {
        clearTimeout(timer);
        this.awaitingHeader.delete(socket);
        socket.off('error', onError); // ssh2 reports the connection's errors from here on
        if (header.state === 'invalid') {
          log('PROXY protocol header refused; connection closed', { proxy: from, reason: header.reason });
          return void socket.destroy();
        }
        this.enter(socket, header.client ?? peer, acceptedAt);
      },
      () => {
        clearTimeout(timer);
        this.awaitingHeader.delete(socket);
      },
    );
  }

  private enter(socket: net.Socket, client: ProxiedAddress, acceptedAt: number): void {
    if (this.closing) return void socket.destroy();
    if (!this.gate.admit(socket, client, acceptedAt)) return;
    this.metrics.watchSocket(socket);
    this.server.injectSocket(socket);
  }

  /** `key` is the TCP peer's `ip:port`; logs name the client, which a PROXY header may have given. */
  private accept(conn: Connection, key: string): void {
    const { log, people } = this.opts;
    const remote = this.gate.client(key) ?? key;
    if (this.closing) {
      conn.on('error', (err: Error) => log('ssh connection error during shutdown', { remote, error: err.message }));
      conn.end();
      return;
    }
    this.connections.add(conn);
    const setup = this.metrics.setupDuration.startTimer();
    let authenticated = false;
    // Interactive traffic: keystrokes and small protocol replies must not wait for Nagle.
    (conn as Connection & { setNoDelay(noDelay: boolean): unknown }).setNoDelay(true);
    const auth = new ConnectionAuth(
      {
        named: this.opts.named,
        current: this.opts.current,
        resolve: (ws: Workspace, offered: OfferedKey) => resolveTarget({ client: this.opts.client, image: this.opts.image }, ws, offered),
        people: people && (() => people.list()),
        resolveGuest: (person, owner, workspace) => resolveGuestTarget({ client: this.opts.client, minter: this.minter, image: this.opts.image }, person, owner, workspace),
        banner: this.banner,
        log,
        maxAuthTries: this.limits.maxAuthTries,
        refused: (reason) => this.metrics.authFailures.inc({ reason }),
      },
      remote,
      (ctx) => this.tooManyFailures(conn, key, ctx),
    );
    conn.on('error', (err: Error & { level?: string }) => {
      log('ssh connection error', { remote, error: err.message });
      // ssh2 only half-closes after a keepalive timeout; a frozen peer would keep the socket forever.
      if (err.level === 'client-timeout') destroyConnection(conn);
    });
    conn.on('authentication', (ctx) => auth.handle(ctx));
    conn.on('ready', () => {
      const { target, fingerprint } = auth;
      if (!target || !fingerprint) return conn.end();
      this.gate.authenticated(key);
      authenticated = true;
      setup();
      this.metrics.setups.inc({ result: 'ok' });
      this.metrics.sessionsOpen.inc();
      const closed = this.activity.open(target.namespace, target.workspace);
      const facts: ConnectionFacts = { target, fingerprint, client: remote };
      // The minted token is cached under the Workspace's UID, which a person deleted and created again never shares;
      // a guest's under their UserSpace's UID.
      const runsAs = target.guest ?? { uid: target.workspaceUid, namespace: target.namespace };
      const owner = sessionClient(this.opts.client, this.minter, runsAs.uid, runsAs.namespace);
      // Only a guest's channels are kept apart from the rest: the end of their share closes them.
      const running = target.guest ? new ConnectionChannels(this.running) : this.running;
      const stopWatching = target.guest ? this.watchGuest(conn, owner, facts, running) : undefined;
      let forwards: SessionTally | undefined;
      conn.on('session', (acceptSession) => {
        const session = acceptSession();
        if (session) serveSession(session, { client: owner, facts, record: this.record, log, running });
      });
      conn.on('tcpip', (acceptChannel, reject, info) => {
        this.forward(owner, facts, () => (forwards ??= this.record.opened(facts, 'forward')), acceptChannel, reject, info);
      });
      conn.once('close', () => {
        stopWatching?.();
        closed();
        forwards?.close();
      });
    });
    conn.once('close', () => {
      this.connections.delete(conn);
      if (authenticated) this.metrics.sessionsOpen.dec();
      else this.metrics.setups.inc({ result: 'failed' });
    });
  }

  /** A guest's connection ends within a check interval of the share's removal, saying why on every running channel. */
  private watchGuest(conn: Connection, asGuest: KubeClient, facts: ConnectionFacts, running: Set<ServerChannel>): () => void {
    const { log, people } = this.opts;
    const { target } = facts;
    const guest = target.guest!;
    const owner = userSpaceOfNamespace(target.namespace) ?? target.namespace;
    // A person disabled or deleted in the gateway's cache ends too.
    const check = async (): Promise<string | undefined> => {
      const person = people?.get(guest.userspace);
      if (!person || isDisabled(person)) return `den: your Den account ${guest.userspace} is disabled or removed; the session is closed`;
      if (!(await stillShared(asGuest, target))) return `den: ${shareEndedMessage(owner, target.workspace)}; the session is closed`;
      return undefined;
    };
    return pollShare({
      check,
      intervalMs: this.opts.shareCheckMs ?? DEFAULT_SHARE_CHECK_MS,
      failed: (err) => log('cannot check a shared workspace session', { namespace: target.namespace, workspace: target.workspace, guest: guest.userspace, error: err.message }),
      ended: (message) => {
        audit(log, AUDIT_ACTS.shareEnded, { ...connectionFields(facts), reason: message });
        const told = [...running];
        for (const channel of told) {
          channel.stderr.write(`\r\n${message}\r\n`);
          channel.exit(EXEC_FAILURE_CODE);
          channel.close();
        }
        // OpenSSH exits on a disconnect without printing what it has not printed yet: the client closes
        // after its channels do, and the connection (port forwards included) is cut a moment later.
        setTimeout(() => conn.end(), told.length > 0 ? 1_000 : 0).unref();
        setTimeout(() => destroyConnection(conn), 3_000).unref();
      },
    });
  }

  /** As sshd: SSH_MSG_DISCONNECT "Too many authentication failures", then the socket is closed. */
  private tooManyFailures(conn: Connection, key: string, ctx: object): void {
    const socket = this.gate.socket(key);
    if (!socket || !this.disconnect.send(ctx, DISCONNECT_PROTOCOL_ERROR, 'Too many authentication failures')) return void conn.end();
    // A client that does not close its end is cut off by the grace timer.
    socket.end();
  }

  /** A direct-tcpip channel: one pods/portforward as the owner, counted in the connection's forward session. */
  private forward(owner: KubeClient, facts: ConnectionFacts, tally: () => SessionTally, acceptChannel: () => ServerChannel | undefined, reject: () => void, info: TcpipRequestInfo): void {
    const { log } = this.opts;
    const { target } = facts;
    const port = info.destPort;
    if (!isLocalDestination(info.destIP) || !Number.isInteger(port) || port < 1 || port > 65535) {
      log('direct-tcpip refused: only the pod loopback may be reached', { workspace: target.workspace, destination: printable(`${info.destIP}:${port}`) });
      return reject();
    }
    openPortForward(owner, target, port).then(
      (tunnel) => {
        const channel = acceptChannel();
        if (!channel) return tunnel.close();
        const forwards = tally();
        forwards.connections += 1;
        forwards.watch(channel);
        channel.on('error', (err: Error) => log('forward channel error', { workspace: target.workspace, port, error: err.message }));
        channel.once('close', () => tunnel.close());
        void tunnel.attach(channel).then((end) => {
          if (end.error) log('port forward ended with an error', { workspace: target.workspace, port, error: end.error });
          channel.end();
        });
      },
      (err: Error) => {
        log('port forward refused by the cluster', { workspace: target.workspace, port, error: err.message });
        if (err instanceof KubeApiError) this.record.refused(facts, 'forward', 'create pods/portforward', err.status, err.message);
        else if (err instanceof MintError) this.record.refused(facts, 'forward', 'create serviceaccounts/token', undefined, err.message);
        reject();
      },
    );
  }
}
