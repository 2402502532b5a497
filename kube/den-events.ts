// Den's own Events about what people do with a Workspace (core/v1 Events on the Workspace, in
// its namespace), so `kubectl describe workspace`, the page's Events tab and the activity page
// show them. One home for the reasons, the annotations and the recorder every process uses.
// Bursts are aggregated as Kubernetes' EventRecorder does: the same reason, object and message
// again within AGGREGATION_WINDOW_MS patches the first Event's count and lastTimestamp.
import { randomInt } from 'node:crypto';
import type { KubeClient, KubeObject } from './client.js';
import { isConflict, isNotFound, KubeApiError } from './errors.js';
import { API_VERSION, GROUP, KINDS } from './group.js';
import { RESOURCES } from './resources.js';

export const DEN_EVENT_REASONS = {
  sshSessionOpened: 'SSHSessionOpened',
  sshSessionClosed: 'SSHSessionClosed',
  terminalOpened: 'TerminalOpened',
  terminalClosed: 'TerminalClosed',
  started: 'Started',
  stopped: 'Stopped',
  resized: 'Resized',
  deleted: 'Deleted',
  /** Who may open a port through the host-based preview changed (contract/port-share.ts). */
  portShareChanged: 'PortShareChanged',
  shared: 'Shared',
  unshared: 'Unshared',
} as const;
export type DenEventReason = (typeof DEN_EVENT_REASONS)[keyof typeof DEN_EVENT_REASONS];

/** What kind of act an Event records (`den.dev/kind`), the activity filter's values. */
export const ACTIVITY_KINDS = ['shell', 'exec', 'sftp', 'forward', 'terminal', 'lifecycle', 'share'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export const DEN_EVENT_ANNOTATIONS = {
  /** The person who acted (their UserSpace name); absent when Den itself acted (idle stop). */
  person: `${GROUP}/person`,
  kind: `${GROUP}/kind`,
  /** SHA256 fingerprint of the SSH key that opened a session. */
  fingerprint: `${GROUP}/fingerprint`,
  /** The client's address as the process that served it saw it. */
  clientAddress: `${GROUP}/client-address`,
  /** On a closed SSH session: bytes from the client, bytes to it, and how long it lasted. */
  bytesIn: `${GROUP}/bytes-in`,
  bytesOut: `${GROUP}/bytes-out`,
  durationSeconds: `${GROUP}/duration-seconds`,
} as const;

/** `source.component` of every Den Event: what the activity list selects on. */
export const DEN_EVENT_SOURCE = 'den';

export const DEN_REPORTING_COMPONENTS = {
  server: `${GROUP}/server`,
  manager: `${GROUP}/manager`,
  gateway: `${GROUP}/gateway`,
} as const;

/** As Kubernetes' EventCorrelator: a repeat within this window counts on the first Event. */
export const AGGREGATION_WINDOW_MS = 10 * 60_000;
/** Kubernetes refuses longer Event messages (events.k8s.io). */
const MAX_MESSAGE_LENGTH = 1024;
/** Recent Events kept for aggregation; the oldest are forgotten first. */
const MAX_REMEMBERED = 4096;

export interface WorkspaceRef {
  name: string;
  namespace: string;
  uid?: string;
  /** Another kind of object than a Workspace (the manager's loop records Events about any parent). */
  objectType?: { apiVersion: string; kind: string };
}

export interface DenEvent {
  /** One of DEN_EVENT_REASONS for what people do; the manager's loop may pass others. */
  reason: string;
  /** A sentence a person reads. */
  message: string;
  annotations?: Record<string, string>;
  /** Normal unless said otherwise. */
  type?: 'Normal' | 'Warning';
}

export type RecordDenEvent = (client: KubeClient, workspace: WorkspaceRef, event: DenEvent) => Promise<void>;

/** The Workspace an object names, for an Event about it. */
export function workspaceRefOf(workspace: KubeObject): WorkspaceRef {
  const { name = '', namespace = '', uid } = workspace.metadata ?? {};
  return uid ? { name, namespace, uid } : { name, namespace };
}

/** `3h12m`, `45m`, `30s`: how long, for people (Event messages). */
export function humanDuration(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes === 0) return `${Math.floor(Math.max(0, ms) / 1000)}s`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h === 0 ? `${m}m` : m === 0 ? `${h}h` : `${h}h${m}m`;
}

/** RFC 3339 with whole seconds, as Kubernetes writes Event timestamps. */
function timestamp(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function clip(message: string): string {
  return message.length <= MAX_MESSAGE_LENGTH ? message : `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}

/** The core/v1 Event first written for `event` (count 1), named as Kubernetes names them: `<object>.<hex time>`. */
export function denEventObject(workspace: WorkspaceRef, event: DenEvent, reportingComponent: string, now: Date, reportingInstance?: string): KubeObject {
  const at = timestamp(now);
  // Nanoseconds as Kubernetes uses, with the sub-millisecond part random: two replicas never collide.
  const suffix = (BigInt(now.getTime()) * 1_000_000n + BigInt(randomInt(1_000_000))).toString(16);
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${workspace.name}.${suffix}`, namespace: workspace.namespace, annotations: { ...(event.annotations ?? {}) } },
    involvedObject: {
      apiVersion: workspace.objectType?.apiVersion ?? API_VERSION,
      kind: workspace.objectType?.kind ?? KINDS.workspace,
      name: workspace.name,
      namespace: workspace.namespace,
      ...(workspace.uid ? { uid: workspace.uid } : {}),
    },
    type: event.type ?? 'Normal',
    reason: event.reason,
    message: clip(event.message),
    source: { component: DEN_EVENT_SOURCE },
    reportingComponent,
    ...(reportingInstance ? { reportingInstance } : {}),
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
  };
}

interface EventShape extends KubeObject {
  message?: string;
  type?: string;
  count?: number;
  lastTimestamp?: string;
}

/** An Event as it stands in the cluster, to count one more on. */
interface Counted {
  name: string;
  resourceVersion: string;
  count: number;
  last: number;
}

/** Times a count is re-read after another writer changed the Event first. */
const COUNT_ATTEMPTS = 3;

export interface DenEventRecorderOptions {
  reportingComponent: string;
  /** `reportingInstance`: this replica (its pod name), when known. */
  reportingInstance?: string;
  now?: () => Date;
  windowMs?: number;
}

/**
 * Writes Den Events for one process, aggregating repeats. Each write uses the client it is
 * given, so an Event is written with the identity of whoever acted (a person's minted token).
 * Writes of one key run one after another, so a burst yields one create and then patches. The
 * count is always read from the cluster and written back guarded by its resourceVersion, and an
 * act this replica has not written recently is first looked for among the namespace's Events, so
 * the replicas of a process (and a restarted one) count on the same Event.
 */
export class DenEventRecorder {
  /** The name of the Event last written per act (key), newest last. */
  private readonly recent = new Map<string, string>();
  private readonly queues = new Map<string, Promise<void>>();
  private readonly now: () => Date;
  private readonly windowMs: number;

  constructor(private readonly opts: DenEventRecorderOptions) {
    this.now = opts.now ?? (() => new Date());
    this.windowMs = opts.windowMs ?? AGGREGATION_WINDOW_MS;
  }

  /** Records `event` about `workspace`; rejects with the API server's error when it cannot. */
  readonly record: RecordDenEvent = (client, workspace, event) => {
    const key = JSON.stringify([workspace.objectType?.kind ?? KINDS.workspace, workspace.namespace, workspace.name, workspace.uid ?? '', event.type ?? 'Normal', event.reason, clip(event.message)]);
    const previous = this.queues.get(key) ?? Promise.resolve();
    const run = previous.then(() => this.write(client, key, workspace, event));
    const settled = run.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return run;
  };

  private async write(client: KubeClient, key: string, workspace: WorkspaceRef, event: DenEvent): Promise<void> {
    const now = this.now();
    for (let attempt = 0; attempt < COUNT_ATTEMPTS; attempt++) {
      const current = await this.current(client, key, workspace, event, now);
      if (!current) break;
      const count = current.count + 1;
      try {
        // Guarded by the resourceVersion read: a replica counting at the same moment makes this one read again.
        await client.patch(RESOURCES.event, current.name, { metadata: { resourceVersion: current.resourceVersion }, count, lastTimestamp: timestamp(now) }, { namespace: workspace.namespace, type: 'merge' });
        this.remember(key, current.name);
        return;
      } catch (err) {
        if (isNotFound(err)) break;
        if (!isConflict(err)) throw err;
      }
    }
    const created = await client.create(RESOURCES.event, denEventObject(workspace, event, this.opts.reportingComponent, now, this.opts.reportingInstance), workspace.namespace);
    this.remember(key, created.metadata?.name ?? '');
  }

  /**
   * The Event to count this act on, as the cluster holds it now: the one this process wrote last
   * for the same act, else one another replica (or this one before a restart) wrote; none when
   * the last was longer than the window ago.
   */
  private async current(client: KubeClient, key: string, workspace: WorkspaceRef, event: DenEvent, now: Date): Promise<Counted | undefined> {
    const name = this.recent.get(key);
    let found: Counted | undefined;
    try {
      found = name ? countedOf(await client.get<EventShape>(RESOURCES.event, name, workspace.namespace)) : await this.findRecent(client, workspace, event);
    } catch (err) {
      if (isNotFound(err)) found = undefined;
      // An identity that may write Events but not read them still records the act, uncounted.
      else if (err instanceof KubeApiError && err.status === 403) return undefined;
      else throw err;
    }
    return found && now.getTime() - found.last < this.windowMs ? found : undefined;
  }

  /** The latest Den Event of the same act on the object, as the cluster holds it. */
  private async findRecent(client: KubeClient, workspace: WorkspaceRef, event: DenEvent): Promise<Counted | undefined> {
    const selector = [
      `source=${DEN_EVENT_SOURCE}`,
      `reason=${event.reason}`,
      `involvedObject.kind=${workspace.objectType?.kind ?? KINDS.workspace}`,
      `involvedObject.name=${workspace.name}`,
      ...(workspace.uid ? [`involvedObject.uid=${workspace.uid}`] : []),
    ].join(',');
    const { items } = await client.list<EventShape>(RESOURCES.event, { namespace: workspace.namespace, fieldSelector: selector });
    const message = clip(event.message);
    let found: Counted | undefined;
    for (const e of items) {
      if (e.message !== message || (e.type ?? 'Normal') !== (event.type ?? 'Normal')) continue;
      const counted = countedOf(e);
      if (!found || counted.last > found.last) found = counted;
    }
    return found;
  }

  private remember(key: string, name: string): void {
    this.recent.delete(key);
    this.recent.set(key, name);
    if (this.recent.size > MAX_REMEMBERED) this.recent.delete(this.recent.keys().next().value!);
  }
}

function countedOf(e: EventShape): Counted {
  return { name: e.metadata?.name ?? '', resourceVersion: e.metadata?.resourceVersion ?? '', count: e.count ?? 1, last: Date.parse(e.lastTimestamp ?? '') || 0 };
}

/** Den Events written with one fixed identity; `record` never rejects (a failure goes to `onError`). */
export interface DenEventSink {
  record(workspace: WorkspaceRef, event: DenEvent): Promise<void>;
  /** Settles once every Event recorded so far is written (or its failure reported). */
  settled(): Promise<void>;
}

/** A sink writing through `recorder` with `client`'s identity (the gateway's own, say). */
export function denEventSink(recorder: DenEventRecorder, client: KubeClient, onError: (err: Error, about: { namespace: string; workspace: string; reason: string }) => void): DenEventSink {
  const pending = new Set<Promise<void>>();
  return {
    record(workspace, event) {
      const write = recorder.record(client, workspace, event).catch((err: Error) => onError(err, { namespace: workspace.namespace, workspace: workspace.name, reason: event.reason }));
      pending.add(write);
      void write.finally(() => pending.delete(write));
      return write;
    },
    async settled() {
      await Promise.all([...pending]);
    },
  };
}
