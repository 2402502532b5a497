// What the gateway records of each SSH session, for administrators and for the person: a
// Den Event on the Workspace when it opens and when it closes (kube/den-events.ts), and an
// audit line each time (process/audit.ts). A session is one shell, exec or sftp channel, or
// all the port forwards of one SSH connection together (never one record per forwarded
// connection). Bytes are counted on the SSH channel: in from the client, out to it.
import type { Readable, Writable } from 'node:stream';
import type { ServerChannel } from 'ssh2';
import { DEN_EVENT_ANNOTATIONS, DEN_EVENT_REASONS, type DenEventSink } from '../kube/den-events.js';
import { SERVICE_ACCOUNTS, userSpaceOfNamespace } from '../kube/group.js';
import { serviceAccountUsername } from '../kube/minting.js';
import { audit, AUDIT_ACTS } from '../process/audit.js';
import type { Log } from '../process/role.js';
import type { GatewayTarget } from './target.js';

export type SessionKind = 'shell' | 'exec' | 'sftp' | 'forward';

/** Who connected to which workspace: known once the connection authenticated. */
export interface ConnectionFacts {
  target: GatewayTarget;
  /** SHA256 fingerprint of the key that authenticated. */
  fingerprint: string;
  /** The client's `address:port` as the gateway sees it (from a PROXY header when trusted). */
  client: string;
}

/** One open session's counts; `close()` records it once. */
export interface SessionTally {
  bytesIn: number;
  bytesOut: number;
  /** Forwarded TCP connections (forward sessions only). */
  connections: number;
  /** Counts what flows on `channel` from now on. */
  watch(channel: ServerChannel): void;
  close(): void;
}

/** The identity a session of `target` runs as on the cluster: the guest's `session` ServiceAccount on a shared workspace, else the owner's. */
export function ownerIdentity(target: Pick<GatewayTarget, 'namespace' | 'guest'>): string {
  return serviceAccountUsername(target.guest?.namespace ?? target.namespace, SERVICE_ACCOUNTS.session);
}

/** The person a session of `target` is: the guest on a shared workspace, else the owner (their UserSpace). */
export function sessionPerson(target: Pick<GatewayTarget, 'namespace' | 'guest'>): string {
  return target.guest?.userspace ?? userSpaceOfNamespace(target.namespace) ?? target.namespace;
}

/** On a shared workspace the audit line also names its owner. */
function ownerField(target: Pick<GatewayTarget, 'namespace' | 'guest'>): { owner?: string } {
  return target.guest ? { owner: userSpaceOfNamespace(target.namespace) ?? target.namespace } : {};
}

/** Who an audit line about a session of `target` names: the person, and the owner on a shared workspace. */
export function personFields(target: Pick<GatewayTarget, 'namespace' | 'guest'>): { userspace: string; owner?: string } {
  return { userspace: sessionPerson(target), ...ownerField(target) };
}

/** What an audit line about a connection names: who (as whom on the cluster), from where, to which workspace, the session's kind where it has one, and the key. */
export function connectionFields(facts: ConnectionFacts, kind?: SessionKind) {
  const { target, fingerprint, client } = facts;
  return { ...personFields(target), identity: ownerIdentity(target), client, via: 'ssh' as const, namespace: target.namespace, workspace: target.workspace, ...(kind === undefined ? {} : { kind }), fingerprint };
}

function countWrites(stream: Writable, add: (n: number) => void): void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string') add(Buffer.byteLength(chunk));
    else if (chunk instanceof Uint8Array) add(chunk.length);
    return write(chunk, ...rest);
  }) as Writable['write'];
}

/** Counts what arrives on `stream` without reading it: a listener would start the flow before the exec is there to take it. */
function countPushes(stream: Readable, add: (n: number) => void): void {
  const push = stream.push.bind(stream);
  stream.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk instanceof Uint8Array) add(chunk.length);
    else if (typeof chunk === 'string') add(Buffer.byteLength(chunk, encoding));
    return push(chunk, encoding);
  };
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

export class SessionRecorder {
  constructor(
    private readonly events: DenEventSink,
    private readonly log: Log,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records the session opened and answers its tally, which records it closed. */
  opened(facts: ConnectionFacts, kind: SessionKind): SessionTally {
    const { target, fingerprint, client } = facts;
    const person = sessionPerson(target);
    const ref = { namespace: target.namespace, name: target.workspace, uid: target.workspaceUid };
    const annotations = {
      [DEN_EVENT_ANNOTATIONS.person]: person,
      [DEN_EVENT_ANNOTATIONS.kind]: kind,
      [DEN_EVENT_ANNOTATIONS.fingerprint]: fingerprint,
      [DEN_EVENT_ANNOTATIONS.clientAddress]: client,
    };
    const fields = connectionFields(facts, kind);
    const startedAt = this.now();
    audit(this.log, AUDIT_ACTS.sessionOpened, fields);
    void this.events.record(ref, {
      reason: DEN_EVENT_REASONS.sshSessionOpened,
      message: `SSH ${kind} session opened by ${person} from ${client} with key ${fingerprint}`,
      annotations,
    });
    let closed = false;
    const tally: SessionTally = {
      bytesIn: 0,
      bytesOut: 0,
      connections: 0,
      watch(channel) {
        countPushes(channel, (n) => (tally.bytesIn += n));
        countWrites(channel, (n) => (tally.bytesOut += n));
        countWrites(channel.stderr, (n) => (tally.bytesOut += n));
      },
      close: () => {
        if (closed) return;
        closed = true;
        const durationMs = this.now() - startedAt;
        const forwarded = kind === 'forward' ? `, ${tally.connections} forwarded connection${tally.connections === 1 ? '' : 's'}` : '';
        audit(this.log, AUDIT_ACTS.sessionClosed, { ...fields, bytesIn: tally.bytesIn, bytesOut: tally.bytesOut, durationMs });
        void this.events.record(ref, {
          reason: DEN_EVENT_REASONS.sshSessionClosed,
          message: `SSH ${kind} session closed for ${person} from ${client} with key ${fingerprint}: ${tally.bytesIn} bytes in, ${tally.bytesOut} bytes out, lasted ${seconds(durationMs)}${forwarded}`,
          annotations: {
            ...annotations,
            [DEN_EVENT_ANNOTATIONS.bytesIn]: String(tally.bytesIn),
            [DEN_EVENT_ANNOTATIONS.bytesOut]: String(tally.bytesOut),
            [DEN_EVENT_ANNOTATIONS.durationSeconds]: String(Math.round(durationMs / 1000)),
          },
        });
      },
    };
    return tally;
  }

  /** The cluster refused what a session asked for (the owner's role lacks pods/exec, say). */
  refused(facts: ConnectionFacts, kind: SessionKind, request: string, status: number | undefined, reason: string): void {
    audit(this.log, AUDIT_ACTS.clusterRefused, {
      ...connectionFields(facts, kind),
      request,
      ...(status === undefined ? {} : { status }),
      reason,
    });
  }
}
