// Security-relevant acts as one JSON line each on the process's log, with the same field
// names in every process, so a log pipeline can select them (`audit` is set) and read them
// alike: sign-ins, API tokens issued and revoked, sessions opened and closed, refusals by
// the cluster. Never a secret: a token is named by its id, a key by its fingerprint.
/** Where audit lines go: the process's log (a Log, or a logger that always takes fields). */
export type AuditLog = (msg: string, fields: Record<string, unknown>) => void;

export const AUDIT_ACTS = {
  signIn: 'sign-in',
  tokenIssued: 'token-issued',
  tokenRevoked: 'token-revoked',
  sessionOpened: 'session-opened',
  sessionClosed: 'session-closed',
  clusterRefused: 'cluster-refused',
  portShareChanged: 'port-share-changed',
  shareGranted: 'share-granted',
  shareRemoved: 'share-removed',
  shareEnded: 'share-ended',
} as const;

export type AuditAct = (typeof AUDIT_ACTS)[keyof typeof AUDIT_ACTS];

/** The fields an audit line may carry; each means the same in every process. */
export interface AuditFields {
  /** success or failure (sign-in); absent where the act itself says it. */
  outcome?: 'success' | 'failure';
  /** Why it failed or was refused, in words (the cluster's own for a refusal). */
  reason?: string;
  /** Who: the person's email (owner) where known. */
  person?: string;
  /** The person's UserSpace. */
  userspace?: string;
  /** The Kubernetes identity the act ran as (`system:serviceaccount:svc-alice:session`). */
  identity?: string;
  /** The client's address as this process saw it. */
  client?: string;
  /** How the person came: web (pages), rest, ssh, terminal. */
  via?: 'web' | 'rest' | 'ssh' | 'terminal';
  /** Sign-in method (local, or the identity provider's name). */
  method?: string;
  /** Username typed at a failed local sign-in (never the password). */
  username?: string;
  namespace?: string;
  workspace?: string;
  /** Session kind: shell, exec, sftp, forward, terminal. */
  kind?: string;
  /** SHA256 fingerprint of the SSH key used. */
  fingerprint?: string;
  /** An API token's id (never the token). */
  tokenId?: string;
  /** API token scope: full or read. */
  scope?: string;
  /** On a closed session. */
  bytesIn?: number;
  bytesOut?: number;
  durationMs?: number;
  /** What the cluster refused: `create pods/exec`, an HTTP method and path. */
  request?: string;
  /** The HTTP status the cluster answered. */
  status?: number;
  /** A workspace's port (port-share-changed). */
  port?: number;
  /** Who may open it now: owner, authenticated, people (with `people`) or public. */
  level?: string;
  /** The UserSpace names a port is shared with. */
  people?: string[];
  /** A share's guest (their UserSpace), on share-granted, share-removed and share-ended. */
  guest?: string;
  /** A shared workspace's owner (their UserSpace), where the acting person is a guest. */
  owner?: string;
}

/** Writes one audit line: `msg: "audit"`, `audit: <act>`, then the fields. */
export function audit(log: AuditLog, act: AuditAct, fields: AuditFields): void {
  log('audit', { audit: act, ...fields });
}
