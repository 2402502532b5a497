// Den's own Kubernetes Events about what people do, recorded on the Workspace so that
// `kubectl describe workspace` and the workspace page list them: SSH sessions (den gateway),
// browser terminals, starts, stops, resizes and deletions (den server, den manager). Every one
// is core/v1, type Normal, `source.component: den`, with the reporting process in
// `reportingComponent`, a readable message and the facts as `den.dev/*` annotations.
// Bursts are aggregated as Kubernetes' own event recorder does: the same reason and message
// about the same object within the window patch `count` and `lastTimestamp` of one Event.
import { randomBytes } from 'node:crypto';
import type { KubeClient, KubeObject } from './client.js';
import { isNotFound } from './errors.js';
import { API_VERSION, GROUP, KINDS } from './group.js';
import { RESOURCES } from './resources.js';

/** The reasons of Den's Events, one per act. */
export const DEN_EVENT_REASONS = {
  sshSessionOpened: 'SSHSessionOpened',
  sshSessionClosed: 'SSHSessionClosed',
  terminalOpened: 'TerminalOpened',
  terminalClosed: 'TerminalClosed',
  started: 'Started',
  stopped: 'Stopped',
  resized: 'Resized',
  deleted: 'Deleted',
} as const;

export type DenEventReason = (typeof DEN_EVENT_REASONS)[keyof typeof DEN_EVENT_REASONS];

/** The facts an Event carries besides its message, as annotations a reader can filter on. */
export const DEN_EVENT_ANNOTATIONS = {
  /** The person (UserSpace name) the act was done for. */
  person: `${GROUP}/person`,
  /** shell, exec, sftp, forward, terminal or lifecycle. */
  kind: `${GROUP}/kind`,
  /** The SHA256 fingerprint of the SSH key used, as ssh-keygen -l prints it. */
  fingerprint: `${GROUP}/fingerprint`,
  /** The client's address as the reporting process saw it. */
  clientAddress: `${GROUP}/client-address`,
  /** On a closed session: bytes from the client, bytes to it, and how long it lasted. */
  bytesIn: `${GROUP}/bytes-in`,
  bytesOut: `${GROUP}/bytes-out`,
  durationSeconds: `${GROUP}/duration-seconds`,
} as const;

/** `source.component` of every Den Event. */
export const DEN_EVENT_SOURCE = 'den';

/** `reportingComponent` of each Den process. */
export const DEN_REPORTING_COMPONENTS = {
  gateway: `${GROUP}/gateway`,
  server: `${GROUP}/server`,
  manager: `${GROUP}/manager`,
} as const;

/** Kubernetes' EventCorrelator aggregates identical events over ten minutes. */
export const AGGREGATION_WINDOW_MS = 10 * 60_000;
/** Aggregation entries kept at most; the oldest go first. */
const MAX_TRACKED = 4096;

export interface WorkspaceRef {
  namespace: string;
  name: string;
  uid?: string;
}

export interface DenEvent {
  reason: DenEventReason;
  message: string;
  annotations?: Record<string, string>;
}

function timestamp(at: number): string {
  return new Date(at).toISOString().replace(/\.\d+Z$/, 'Z');
}

/** The core/v1 Event for `event` about `ref`, first seen `at`. */
export function denEventObject(ref: WorkspaceRef, event: DenEvent, reporting: { component: string; instance: string }, at: number): KubeObject {
  // As client-go names them: the object's name and a unique suffix.
  const name = `${ref.name}.${at.toString(16)}${randomBytes(4).toString('hex')}`;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: ref.namespace, ...(event.annotations ? { annotations: event.annotations } : {}) },
    involvedObject: { apiVersion: API_VERSION, kind: KINDS.workspace, name: ref.name, namespace: ref.namespace, ...(ref.uid ? { uid: ref.uid } : {}) },
    reason: event.reason,
    message: event.message,
    type: 'Normal',
    source: { component: DEN_EVENT_SOURCE },
    reportingComponent: reporting.component,
    reportingInstance: reporting.instance,
    firstTimestamp: timestamp(at),
    lastTimestamp: timestamp(at),
    count: 1,
  } as KubeObject;
}

export interface DenEventRecorderOptions {
  /** `reportingComponent`: one of DEN_REPORTING_COMPONENTS. */
  component: string;
  /** `reportingInstance`: this replica (its pod name). */
  instance: string;
  windowMs?: number;
  now?: () => number;
  /** Told of an Event that could not be written; recording never fails the act it records. */
  onError: (err: Error, event: { namespace: string; workspace: string; reason: string }) => void;
}

interface Tracked {
  name: string;
  count: number;
  lastAt: number;
}

/** Writes Den Events with one process's identity, aggregating repeats; never throws. */
export class DenEventRecorder {
  private readonly tracked = new Map<string, Tracked>();
  /** The write under way per aggregation key, so a burst creates one Event and patches it in order. */
  private readonly pending = new Map<string, Promise<void>>();
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: DenEventRecorderOptions,
  ) {
    this.windowMs = opts.windowMs ?? AGGREGATION_WINDOW_MS;
    this.now = opts.now ?? Date.now;
  }

  /** Records `event` about `ref`; settles once it is written (or its failure reported). */
  record(ref: WorkspaceRef, event: DenEvent): Promise<void> {
    const key = JSON.stringify([ref.namespace, ref.name, ref.uid ?? '', event.reason, event.message, event.annotations ?? {}]);
    const previous = this.pending.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => this.write(key, ref, event))
      .catch((err: Error) => this.opts.onError(err, { namespace: ref.namespace, workspace: ref.name, reason: event.reason }))
      .finally(() => {
        if (this.pending.get(key) === next) this.pending.delete(key);
      });
    this.pending.set(key, next);
    return next;
  }

  /** Settles once every Event recorded so far is written. */
  async settled(): Promise<void> {
    await Promise.all([...this.pending.values()]);
  }

  private async write(key: string, ref: WorkspaceRef, event: DenEvent): Promise<void> {
    const at = this.now();
    const seen = this.tracked.get(key);
    if (seen && at - seen.lastAt < this.windowMs) {
      try {
        await this.client.patch(RESOURCES.event, seen.name, { count: seen.count + 1, lastTimestamp: timestamp(at) }, { namespace: ref.namespace, type: 'merge' });
        seen.count += 1;
        seen.lastAt = at;
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
        // The Event expired (the API server keeps them an hour by default): start a new one.
      }
    }
    const object = denEventObject(ref, event, { component: this.opts.component, instance: this.opts.instance }, at);
    await this.client.create(RESOURCES.event, object, ref.namespace);
    this.track(key, { name: object.metadata!.name!, count: 1, lastAt: at });
  }

  private track(key: string, entry: Tracked): void {
    this.tracked.delete(key);
    this.tracked.set(key, entry);
    const cutoff = this.now() - this.windowMs;
    for (const [k, t] of this.tracked) {
      if (this.tracked.size <= MAX_TRACKED && t.lastAt >= cutoff) break;
      this.tracked.delete(k);
    }
  }
}
