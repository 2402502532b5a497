// SSH authentication (SPEC 1.5 steps 2-5, SPEC 5): the username is the Workspace name,
// only public keys are accepted, the key must be one of the Workspace's
// spec.sshAuthorizedKeys and its signature must verify, then the target is re-checked
// against the API server before the session starts.
import { keyFingerprint } from '../contract/git-ssh.js';
import { isDns1123Label } from '../kube/names.js';
import { userNamespace } from '../kube/group.js';
import type { Log } from '../process/role.js';
import { audit, AUDIT_ACTS } from '../process/audit.js';
import type { BannerSender } from './banner.js';
import { findAuthorizedKey, type AuthorizedKey, type OfferedKey } from './keys.js';
import { SessionRefused, type GatewayTarget } from './target.js';
import type { Workspace } from './workspaces.js';
import type { AuthFailureReason } from './metrics.js';
import { parseSharedSshUser } from '../contract/share.js';
import type { UserSpace } from '../contract/user-space.js';
import { keyHolders } from './guest.js';
import { personFields } from './session-record.js';

/** sshd's default MaxAuthTries: the failed attempts after which a client is disconnected. */
export const DEFAULT_MAX_AUTH_TRIES = 6;

export interface AuthDeps {
  named: (name: string) => Workspace[];
  /**
   * The Workspaces of that name as the API server holds them now. Asked before a key is refused:
   * this gateway's cache may not yet hold a Workspace (or key) written a moment ago.
   */
  current?: (name: string) => Promise<Workspace[]>;
  resolve: (ws: Workspace, offered: OfferedKey) => Promise<GatewayTarget>;
  /** Every cached UserSpace: whose own profile keys a shared workspace's username (`<workspace>.<owner>`) takes. None: no shared workspaces. */
  people?: () => Iterable<UserSpace>;
  /** Where a guest's session to `owner`'s `workspace` goes, read as the guest (gateway/guest.ts); throws SessionRefused. */
  resolveGuest?: (person: UserSpace, owner: string, workspace: string) => Promise<GatewayTarget>;
  banner: Pick<BannerSender, 'send'>;
  log: Log;
  /** Failed attempts after which `onTooManyFailures` ends the connection (sshd's MaxAuthTries). */
  maxAuthTries: number;
  /** Told of every refused attempt. */
  refused: (reason: AuthFailureReason) => void;
}

/** Strips anything but printable ASCII from client-chosen text before it reaches a log line. */
export function printable(text: string, max = 64): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, max);
}

/** What the gateway reads from ssh2's AuthContext (any method). */
export interface AuthRequest {
  username: string;
  method: string;
  /** publickey only: the offered key, and for a signed request the signed blob and signature. */
  key?: { algo: string; data: Buffer };
  blob?: Buffer;
  signature?: Buffer;
  hashAlgo?: string;
  accept(): void;
  reject(methodsLeft?: string[], isPartial?: boolean): void;
}

interface Match {
  ws: Workspace;
  key: AuthorizedKey;
}

/**
 * Authentication state of one SSH connection. Failed attempts are counted as sshd counts
 * them: every refused request but the client's first `none` (how it asks for the methods)
 * and a key query answered "this key would do".
 */
export class ConnectionAuth {
  private attempts = 0;
  private failures = 0;
  /** Set once authentication succeeded: where this connection's channels go. */
  target: GatewayTarget | undefined;
  /** Set with `target`: the SHA256 fingerprint of the key that authenticated. */
  fingerprint: string | undefined;

  constructor(
    private readonly deps: AuthDeps,
    private readonly remote: string,
    /** Told, instead of refusing the last attempt, to disconnect the client. */
    private readonly onTooManyFailures: (ctx: AuthRequest) => void,
  ) {}

  handle(ctx: AuthRequest): void {
    // Requests the client sent before it read the disconnect get no answer.
    if (this.failures >= this.deps.maxAuthTries) return;
    this.attempts += 1;
    if (ctx.method === 'none' && this.attempts === 1) return ctx.reject(['publickey']);
    if (ctx.method !== 'publickey' || !ctx.key) return this.fail(ctx, 'method', `${ctx.method} authentication refused`);
    this.publicKey(ctx, { algo: ctx.key.algo, data: ctx.key.data }).catch((err: unknown) => {
      this.deps.log('authentication error', { remote: this.remote, user: printable(ctx.username), error: (err as Error).message });
      this.fail(ctx, 'internal', 'internal error');
    });
  }

  private fail(ctx: AuthRequest, kind: AuthFailureReason, reason: string, fields: { fingerprint?: string; namespace?: string } = {}): void {
    if (this.failures >= this.deps.maxAuthTries) return; // already disconnecting
    this.failures += 1;
    this.deps.refused(kind);
    const method = printable(ctx.method, 32);
    audit(this.deps.log, AUDIT_ACTS.signIn, { outcome: 'failure', method, username: printable(ctx.username), client: this.remote, via: 'ssh', reason, ...fields });
    if (this.failures < this.deps.maxAuthTries) return ctx.reject(['publickey']);
    this.deps.log('too many authentication failures; disconnecting', { remote: this.remote, user: printable(ctx.username), failures: this.failures });
    this.onTooManyFailures(ctx);
  }

  private async matches(username: string, offered: OfferedKey): Promise<Match[]> {
    if (!isDns1123Label(username)) return [];
    const cached = this.authorizing(this.deps.named(username), offered);
    if (cached.length > 0 || !this.deps.current) return cached;
    return this.authorizing(await this.deps.current(username), offered);
  }

  private authorizing(workspaces: Workspace[], offered: OfferedKey): Match[] {
    const out: Match[] = [];
    for (const ws of workspaces) {
      const key = findAuthorizedKey(offered, ws.spec?.sshAuthorizedKeys);
      if (key) out.push({ ws, key });
    }
    return out;
  }

  private async publicKey(ctx: AuthRequest, offered: OfferedKey): Promise<void> {
    const fingerprint = keyFingerprint(offered.data);
    const shared = parseSharedSshUser(ctx.username);
    if (shared) return this.guestKey(ctx, offered, shared, fingerprint);
    const found = await this.matches(ctx.username, offered);
    // Unknown workspace and wrong key look the same to the client: no name enumeration.
    if (found.length === 0) return this.fail(ctx, 'unknown-key', 'no workspace of that name authorizes this key', { fingerprint });
    if (!ctx.signature || !ctx.blob) {
      ctx.accept(); // the client only asked whether this key would do; it signs next
      return;
    }
    const problem = found[0]!.key.signatureProblem(ctx.blob, ctx.signature, ctx.hashAlgo);
    if (problem) return this.fail(ctx, 'bad-signature', problem, { fingerprint });
    if (found.length > 1) {
      const namespaces = found.map((m) => m.ws.metadata?.namespace).join(', ');
      this.deps.banner.send(ctx, `workspace name ${ctx.username} exists in several namespaces (${namespaces}) that all accept this key; remove the key from all but one`);
      return this.fail(ctx, 'ambiguous-name', `ambiguous workspace name (namespaces ${namespaces})`, { fingerprint });
    }
    const { ws } = found[0]!;
    await this.admit(ctx, () => this.deps.resolve(ws, offered), fingerprint, ws.metadata?.namespace);
  }

  /**
   * Resolves where the session goes and lets it in: the sign-in's audit line (the person, and the owner for a guest),
   * then accept. On a SessionRefused tells the client (banner) and counts the failure.
   */
  private async admit(ctx: AuthRequest, resolve: () => Promise<GatewayTarget>, fingerprint: string, namespace: string | undefined): Promise<void> {
    try {
      this.target = await resolve();
      this.fingerprint = fingerprint;
    } catch (err) {
      if (!(err instanceof SessionRefused)) throw err;
      if (err.userMessage) this.deps.banner.send(ctx, err.userMessage);
      return this.fail(ctx, 'workspace-unavailable', err.message, { namespace, fingerprint });
    }
    audit(this.deps.log, AUDIT_ACTS.signIn, {
      outcome: 'success',
      method: 'publickey',
      username: printable(ctx.username),
      client: this.remote,
      via: 'ssh',
      ...personFields(this.target),
      namespace: this.target.namespace,
      workspace: this.target.workspace,
      fingerprint,
    });
    ctx.accept();
  }

  /**
   * `<workspace>.<owner>`: a shared workspace (docs/sharing.md). The key must be one of a person's
   * own profile keys; the session then runs as that person, and the cluster decides (the share's
   * RoleBinding) whether they may read the workspace and exec into it.
   */
  private async guestKey(ctx: AuthRequest, offered: OfferedKey, shared: { workspace: string; owner: string }, fingerprint: string): Promise<void> {
    const holders = this.deps.people && this.deps.resolveGuest ? keyHolders(this.deps.people(), offered) : [];
    if (holders.length === 0) return this.fail(ctx, 'unknown-key', "no person's profile lists this key", { fingerprint });
    if (!ctx.signature || !ctx.blob) {
      ctx.accept();
      return;
    }
    const problem = holders[0]!.key.signatureProblem(ctx.blob, ctx.signature, ctx.hashAlgo);
    if (problem) return this.fail(ctx, 'bad-signature', problem, { fingerprint });
    if (holders.length > 1) {
      const people = holders.map((h) => h.person.metadata?.name).join(', ');
      this.deps.banner.send(ctx, `this key is in the profiles of several people (${people}); each person needs a key of their own`);
      return this.fail(ctx, 'ambiguous-name', `key in several people's profiles (${people})`, { fingerprint });
    }
    const person = holders[0]!.person;
    await this.admit(ctx, () => this.deps.resolveGuest!(person, shared.owner, shared.workspace), fingerprint, userNamespace(shared.owner));
  }
}
