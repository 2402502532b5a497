// `GET /w/{name}/terminal/ws`: the upgrade of den server's HTTP server to the browser
// terminal. Before anything is upgraded the request must come from a page of the base URL
// (Origin: no cross-site websocket hijacking), carry a live session cookie and offer the
// session's CSRF token as a subprotocol; otherwise it is answered with a plain HTTP error.
// After the upgrade, the workspace is resolved with the person's minted token and one
// pods/exec runs the image's shell as a login shell in its home.
import type { IncomingMessage, Server } from 'node:http';
import { http } from '../../process/node-http.js';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Log } from '../../process/role.js';
import { audit, AUDIT_ACTS } from '../../process/audit.js';
import type { KubeClient } from '../../kube/client.js';
import { isDns1123Label } from '../../kube/names.js';
import type { ActivityRecorder } from '../../shell/activity.js';
import { DEN_EVENT_ANNOTATIONS, DEN_EVENT_REASONS, humanDuration, type DenEventReason, type RecordDenEvent } from '../../kube/den-events.js';
import { shellCommand } from '../../shell/commands.js';
import { actAs } from '../auth/authenticate.js';
import { sessionIdFromCookieHeader } from '../auth/cookie.js';
import type { UserSpaceDirectory } from '../auth/directory.js';
import type { TokenMinter } from '../../kube/minting.js';
import { constantTimeEqual } from '../auth/secrets.js';
import type { SessionStore } from '../auth/sessions.js';
import type { Caller } from '../http/context.js';
import { HttpError } from '../../koa/errors.js';
import { clientAddress, TrustedProxies } from '../http/client-address.js';
import { CLOSE, CSRF_PROTOCOL_PREFIX, dimension, TERMINAL_PROTOCOL } from '../../web/terminal-protocol.js';
import { refuse, relayTerminal, type Relay } from './relay.js';
import { refusalOf, resolveTerminalTarget, type TerminalTarget } from './target.js';
import { DEFAULT_SHARE_CHECK_MS, pollShare, shareEndedMessage, stillShared } from '../../shell/share-check.js';
import { userNamespace } from '../../kube/group.js';

/** The terminal's websocket path; the workspace name in it must also be a DNS label (isDns1123Label). */
export const TERMINAL_PATH = /^\/w\/([^/]+)\/terminal\/ws$/;
/** Terminals one person may have open at once; each is an exec in a pod. */
export const MAX_TERMINALS_PER_PERSON = 10;
/** Largest message a browser may send (a paste is split by the page script). */
const MAX_MESSAGE_BYTES = 256 << 10;
const DEFAULT_SIZE = { cols: 80, rows: 24 };
/** How often open terminals are checked against their sessions: signing out ends them within this. */
const SESSION_CHECK_MS = 30_000;
export const SESSION_ENDED = 'your session has ended (signed out or expired); sign in again to open a terminal';

export interface TerminalDeps {
  /** `--base-url`: the only Origin a terminal may be opened from. */
  baseUrl: string;
  sessions: SessionStore;
  directory: UserSpaceDirectory;
  minter: TokenMinter;
  serverClient: KubeClient;
  log: Log;
  ready: () => boolean;
  now?: () => number;
  /** How often open terminals are checked against their sessions (default 30 s). */
  sessionCheckMs?: number;
  /** An open terminal is activity on its workspace (status.lastActivityTime, for idle stop), as an SSH session is. */
  activity: ActivityRecorder;
  /** Writes the TerminalOpened and TerminalClosed Events, with the person's own token. */
  events: RecordDenEvent;
  /** How often a guest's terminal asks whether the share still stands (DEFAULT_SHARE_CHECK_MS). */
  shareCheckMs?: number;
  /** `--trusted-proxies`: whose X-Forwarded-For names the client in those Events (none: the TCP peer). */
  trustedProxies?: readonly string[];
}

interface Opened {
  /** The cookie's session id, kept in memory only, to notice when the session ends. */
  sessionId: string;
  caller: Caller;
  client: KubeClient;
  workspace: string;
  size: { cols: number; rows: number };
  /** The client's address (server/http/client-address.ts), for the terminal's Events. */
  clientAddress: string;
  /** The owner of a workspace shared with the caller (`?owner=`, docs/sharing.md); absent for one's own. */
  owner?: string;
}

/** Offered subprotocols of an upgrade request, in order. */
function offeredProtocols(req: IncomingMessage): string[] {
  const header = req.headers['sec-websocket-protocol'];
  return (Array.isArray(header) ? header.join(',') : header ?? '').split(',').map((p) => p.trim()).filter(Boolean);
}

export function answerHttp(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

export class TerminalServer {
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_MESSAGE_BYTES,
    handleProtocols: (offered: Set<string>) => (offered.has(TERMINAL_PROTOCOL) ? TERMINAL_PROTOCOL : false),
  });
  private readonly origin: string;
  private readonly now: () => number;
  /** Terminals relaying to an exec now. */
  readonly relays = new Set<Relay>();
  /** Browser sockets open per person (relaying or still being resolved). */
  private readonly openByOwner = new Map<string, number>();
  /** The session each relay was opened with. */
  private readonly sessionOf = new Map<Relay, string>();
  private sessionCheck: NodeJS.Timeout | undefined;
  private readonly recording = new Set<Promise<unknown>>();
  private readonly trusted: TrustedProxies;

  constructor(private readonly deps: TerminalDeps) {
    this.origin = new URL(deps.baseUrl).origin;
    this.trusted = new TrustedProxies(deps.trustedProxies ?? []);
    this.now = deps.now ?? Date.now;
  }

  /** Serves terminal upgrades on `server`; other upgrade paths are answered 404. */
  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.handleUpgrade(req, socket, head));
    this.checkSessions();
  }

  /** Starts checking open terminals against their sessions (attach does; so does a server that routes upgrades itself). */
  checkSessions(): void {
    this.sessionCheck ??= setInterval(() => void this.closeEnded(), this.deps.sessionCheckMs ?? SESSION_CHECK_MS);
    this.sessionCheck.unref();
  }

  /**
   * Closes every terminal whose session has ended: a shell must not outlive the sign-out (or
   * expiry, or password change) that ended the session it was opened with. Returns how many.
   */
  async closeEnded(): Promise<number> {
    let closed = 0;
    for (const [relay, id] of [...this.sessionOf]) {
      let live: boolean;
      try {
        live = (await this.deps.sessions.lookup(id, this.now())) !== undefined;
      } catch (err) {
        this.deps.log('terminal session check failed', { error: String((err as Error)?.message ?? err) });
        continue;
      }
      if (live || !this.sessionOf.has(relay)) continue;
      this.sessionOf.delete(relay);
      relay.close(CLOSE.sessionEnded, SESSION_ENDED);
      closed++;
    }
    return closed;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', (err) => this.deps.log('terminal socket error', { error: err.message }));
    this.admit(req).then(
      (opened) => {
        if (socket.destroyed) return;
        this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(ws, opened));
      },
      (err: unknown) => {
        if (err instanceof HttpError) return answerHttp(socket, err.status, err.message);
        this.deps.log('terminal upgrade failed', { error: String((err as Error)?.message ?? err) });
        answerHttp(socket, 500, 'internal error');
      },
    );
  }

  /** Tells every open terminal that the server is going away, and waits for them to end. */
  async close(): Promise<void> {
    clearInterval(this.sessionCheck);
    this.sessionCheck = undefined;
    const all = [...this.relays];
    for (const relay of all) relay.close(CLOSE.goingAway, 'den server is restarting; reconnect in a moment');
    await Promise.all(all.map((r) => r.done));
    await this.eventsWritten();
  }

  /** The checks made before upgrading; throws HttpError with what the person should know. */
  private async admit(req: IncomingMessage): Promise<Opened> {
    const url = new URL(req.url ?? '/', 'http://den.invalid');
    const match = TERMINAL_PATH.exec(url.pathname);
    if (!match || !isDns1123Label(match[1]!) || req.method !== 'GET') throw new HttpError(404, `no websocket is served at ${url.pathname.slice(0, 200)}`);
    if (!this.deps.ready()) throw new HttpError(503, 'the server is starting; retry shortly');
    if (req.headers.origin !== this.origin) throw new HttpError(403, `a terminal may only be opened from a page of ${this.origin}`);

    const id = sessionIdFromCookieHeader(req.headers.cookie);
    if (!id) throw new HttpError(401, 'sign in first: the terminal needs your session');
    const session = await this.deps.sessions.lookup(id, this.now());
    if (!session) throw new HttpError(401, 'your session has ended; sign in again');

    const offered = offeredProtocols(req);
    const csrf = offered.find((p) => p.startsWith(CSRF_PROTOCOL_PREFIX))?.slice(CSRF_PROTOCOL_PREFIX.length);
    if (!csrf) throw new HttpError(403, `missing CSRF token: offer the subprotocol ${CSRF_PROTOCOL_PREFIX}<token> beside ${TERMINAL_PROTOCOL}`);
    if (!constantTimeEqual(csrf, session.csrfToken)) throw new HttpError(403, 'wrong CSRF token: reload the page');
    if (!offered.includes(TERMINAL_PROTOCOL)) throw new HttpError(400, `offer the subprotocol ${TERMINAL_PROTOCOL}`);

    const { caller, kube: client } = await actAs({ kind: 'cookie', session }, this.deps, { confirmed: true });
    const cols = url.searchParams.has('cols') ? dimension(Number(url.searchParams.get('cols'))) : DEFAULT_SIZE.cols;
    const rows = url.searchParams.has('rows') ? dimension(Number(url.searchParams.get('rows'))) : DEFAULT_SIZE.rows;
    if (!cols || !rows) throw new HttpError(400, 'cols and rows must be whole numbers from 1 to 1000');
    const forwardedFor = typeof req.headers['x-forwarded-for'] === 'string' ? req.headers['x-forwarded-for'] : undefined;
    const owner = url.searchParams.get('owner') ?? undefined;
    if (owner !== undefined && !isDns1123Label(owner)) throw new HttpError(400, "owner must be the Den user name of the workspace's owner");
    const shared = owner !== undefined && owner !== caller.userspace ? { owner } : {};
    return { sessionId: id, caller, client, workspace: match[1]!, size: { cols, rows }, clientAddress: clientAddress(req.socket.remoteAddress, forwardedFor, this.trusted), ...shared };
  }

  /**
   * Writes a terminal Event as the person; a failure is logged, and the terminal goes on. A guest's
   * terminal writes none: a share grants no Events in the owner's namespace (docs/sharing.md).
   */
  private record(opened: Opened, target: TerminalTarget, reason: DenEventReason, message: string): void {
    const { caller, client } = opened;
    if (opened.owner) return;
    const ref = { name: target.workspace, namespace: target.namespace, ...(target.workspaceUid ? { uid: target.workspaceUid } : {}) };
    const annotations: Record<string, string> = { [DEN_EVENT_ANNOTATIONS.person]: caller.userspace, [DEN_EVENT_ANNOTATIONS.kind]: 'terminal' };
    if (opened.clientAddress) annotations[DEN_EVENT_ANNOTATIONS.clientAddress] = opened.clientAddress;
    const write = this.deps.events(client, ref, { reason, message, annotations }).catch((err: unknown) =>
      this.deps.log('cannot record event', { namespace: target.namespace, workspace: target.workspace, reason, error: (err as Error)?.message ?? String(err) }),
    );
    this.recording.add(write);
    void write.finally(() => this.recording.delete(write));
  }

  /** Settles once every terminal Event started so far is written (or failed). */
  async eventsWritten(): Promise<void> {
    await Promise.allSettled([...this.recording]);
  }

  /** A guest's terminal closes within a check interval of the share's removal, saying why. */
  private watchShare(relay: Relay, opened: Opened, target: TerminalTarget, audited: Record<string, unknown>): () => void {
    return pollShare({
      intervalMs: this.deps.shareCheckMs ?? DEFAULT_SHARE_CHECK_MS,
      check: async () => ((await stillShared(opened.client, target)) ? undefined : `${shareEndedMessage(opened.owner!, target.workspace)}; the terminal is closed`),
      ended: (message) => {
        audit(this.deps.log, AUDIT_ACTS.shareEnded, { ...audited, reason: message });
        relay.close(CLOSE.forbidden, message);
      },
      failed: (err) => this.deps.log('cannot check a shared workspace terminal', { namespace: target.namespace, workspace: target.workspace, error: err?.message ?? String(err) }),
    });
  }

  private serve(ws: WebSocket, opened: Opened): void {
    const { caller, workspace } = opened;
    const namespace = opened.owner ? userNamespace(opened.owner) : caller.namespace;
    const fields = { namespace, workspace, owner: caller.email };
    const audited = { person: caller.email, userspace: caller.userspace, via: 'terminal' as const, kind: 'terminal', namespace, workspace, ...(opened.owner ? { owner: opened.owner } : {}) };
    const openedAt = this.now();
    ws.on('error', (err) => this.deps.log('terminal websocket error', { ...fields, error: err.message }));
    // Keystrokes and resizes typed while the workspace is being resolved wait in the socket, not in a lost event.
    ws.pause();
    // Counted from the upgrade until the browser's socket closes, so opening many at once cannot slip past the limit.
    const open = this.openByOwner.get(caller.email) ?? 0;
    if (open >= MAX_TERMINALS_PER_PERSON) {
      ws.resume();
      return refuse(ws, CLOSE.badRequest, `you already have ${MAX_TERMINALS_PER_PERSON} terminals open; close one first`);
    }
    this.openByOwner.set(caller.email, open + 1);
    ws.once('close', () => {
      const left = (this.openByOwner.get(caller.email) ?? 1) - 1;
      if (left > 0) this.openByOwner.set(caller.email, left);
      else this.openByOwner.delete(caller.email);
    });
    resolveTerminalTarget(opened.client, namespace, workspace, opened.owner ? { owner: opened.owner, guest: caller.userspace } : undefined).then(
      (target) => {
        if (ws.readyState !== ws.OPEN) return;
        const ended = this.deps.activity.open(target.namespace, target.workspace);
        const openedAt = this.now();
        this.record(opened, target, DEN_EVENT_REASONS.terminalOpened, `Browser terminal opened by ${caller.userspace} in pod ${target.pod}.`);
        const relay = relayTerminal(ws, {
          client: opened.client,
          target,
          command: shellCommand(target, { term: 'xterm-256color', vars: new Map() }),
          size: opened.size,
          onEnd: ({ exit, refused, by }) => {
            ended();
            this.record(opened, target, DEN_EVENT_REASONS.terminalClosed, `Browser terminal of ${caller.userspace} closed after ${humanDuration(this.now() - openedAt)}.`);
            this.deps.log('terminal closed', { ...fields, by, exitCode: exit?.exitCode, error: refused?.message ?? exit?.message });
            audit(this.deps.log, AUDIT_ACTS.sessionClosed, { ...audited, durationMs: this.now() - openedAt });
          },
        });
        this.relays.add(relay);
        this.sessionOf.set(relay, opened.sessionId);
        const stopWatching = opened.owner ? this.watchShare(relay, opened, target, audited) : undefined;
        void relay.done.then(() => {
          stopWatching?.();
          this.relays.delete(relay);
          this.sessionOf.delete(relay);
        });
        this.deps.log('terminal opened', { ...fields, pod: target.pod });
        audit(this.deps.log, AUDIT_ACTS.sessionOpened, audited);
      },
      (err: unknown) => {
        const refused = refusalOf(err, `opening workspace ${workspace}`);
        this.deps.log('terminal refused', { ...fields, error: refused.message });
        if (refused.code === CLOSE.forbidden) audit(this.deps.log, AUDIT_ACTS.clusterRefused, { ...audited, reason: refused.message });
        ws.resume();
        refuse(ws, refused.code, refused.message);
      },
    );
  }
}
