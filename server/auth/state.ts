// The server's own bookkeeping (sessions, API tokens, local users) as Secrets in the
// platform namespace, written with the server's identity, so every replica shares them and
// a restart logs nobody out (DESIGN.md "Service state"). Whatever decides a request (one
// record, or the records a person is shown or a change applies to) is read from the API
// server: another replica may have written or deleted it a moment ago. The informer's copy
// serves only housekeeping that may lag (sweeps, the bound on open sign-ins).
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isNotFound } from '../../kube/errors.js';
import { FIELD_MANAGERS, GROUP, LABELS } from '../../kube/group.js';
import { Informer, applyWatchEvent } from '../../kube/informer.js';
import { RESOURCES } from '../../kube/resources.js';

export const STATE_KIND_LABEL = `${GROUP}/kind`;

export type StateKind = 'session' | 'api-token' | 'local-user' | 'login-challenge' | 'app-ticket' | 'app-cookie';

export interface SecretObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

export interface StateRecord {
  /** Name of the Secret. */
  name: string;
  kind: StateKind;
  data: Record<string, string>;
}

/** A Secret holding one record; values are base64-encoded as the API expects; `labels` select it among its kind. */
export function renderStateSecret(namespace: string, kind: StateKind, name: string, data: Record<string, string>, labels: Record<string, string> = {}): SecretObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, labels: { ...labels, [STATE_KIND_LABEL]: kind, [LABELS.managedBy]: FIELD_MANAGERS.server } },
    type: 'Opaque',
    data: encodeData(data),
  };
}

export function encodeData(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]));
}

/** The record a Secret holds, or undefined when it is not a state Secret of `kind`. */
export function recordOf(secret: SecretObject, kind?: StateKind): StateRecord | undefined {
  const recordKind = secret.metadata?.labels?.[STATE_KIND_LABEL] as StateKind | undefined;
  const name = secret.metadata?.name;
  if (!recordKind || !name || (kind && recordKind !== kind)) return undefined;
  const data = Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  return { name, kind: recordKind, data };
}

export interface ServiceStateOptions {
  relistIntervalMs?: number;
  onError?: (err: unknown) => void;
}

export class ServiceState {
  private readonly informer: Informer<SecretObject>;

  constructor(
    private readonly client: KubeClient,
    readonly namespace: string,
    opts: ServiceStateOptions = {},
  ) {
    this.informer = new Informer<SecretObject>(client, RESOURCES.secret, {
      namespace,
      labelSelector: STATE_KIND_LABEL,
      relistIntervalMs: opts.relistIntervalMs,
      onError: opts.onError,
    });
  }

  /** Settles once the first list is in memory. */
  get synced(): Promise<void> {
    return this.informer.synced;
  }

  run(signal: AbortSignal): Promise<void> {
    return this.informer.run(signal);
  }

  /**
   * One record by Secret name, as the API server holds it now: a credential revoked or
   * changed on another replica is seen on the next request, not when the watch event arrives.
   */
  async find(kind: StateKind, name: string): Promise<StateRecord | undefined> {
    const secret = await this.client.getIfExists<SecretObject>(RESOURCES.secret, name, this.namespace);
    return secret && recordOf(secret, kind);
  }

  /** The record this replica's informer holds: a hint only, to be confirmed with `find`. */
  cached(kind: StateKind, name: string): StateRecord | undefined {
    const secret = this.informer.get(name, this.namespace);
    return secret && recordOf(secret, kind);
  }

  /** Every record of `kind` as the API server holds it now; `selector` (label selector terms) narrows them there. */
  async current(kind: StateKind, selector?: string): Promise<StateRecord[]> {
    const labelSelector = [`${STATE_KIND_LABEL}=${kind}`, ...(selector ? [selector] : [])].join(',');
    const secrets = await this.client.list<SecretObject>(RESOURCES.secret, { namespace: this.namespace, labelSelector });
    return secrets.items.map((secret) => recordOf(secret, kind)).filter((r): r is StateRecord => r !== undefined);
  }

  /** Every record of `kind` this replica's informer holds (housekeeping only: it may lag). */
  list(kind: StateKind): StateRecord[] {
    const out: StateRecord[] = [];
    for (const secret of this.informer.list()) {
      const record = recordOf(secret, kind);
      if (record) out.push(record);
    }
    return out;
  }

  /** Creates the record; a name already taken fails with the API server's 409. */
  async create(kind: StateKind, name: string, data: Record<string, string>, labels?: Record<string, string>): Promise<StateRecord> {
    const created = await this.client.create<SecretObject>(RESOURCES.secret, renderStateSecret(this.namespace, kind, name, data, labels), this.namespace);
    applyWatchEvent(this.informer.store, { type: 'ADDED', object: { apiVersion: 'v1', kind: 'Secret', ...created } });
    return recordOf(created, kind)!;
  }

  /** Merges `changes` into the record's data. */
  async update(kind: StateKind, name: string, changes: Record<string, string>): Promise<StateRecord> {
    const updated = await this.client.patch<SecretObject>(RESOURCES.secret, name, { data: encodeData(changes) }, { namespace: this.namespace });
    applyWatchEvent(this.informer.store, { type: 'MODIFIED', object: { apiVersion: 'v1', kind: 'Secret', ...updated } });
    return recordOf(updated, kind)!;
  }

  /** Deletes the record at once; false when it was already gone. */
  async remove(name: string): Promise<boolean> {
    const forget = () => applyWatchEvent(this.informer.store, { type: 'DELETED', object: { metadata: { name, namespace: this.namespace } } });
    try {
      await this.client.delete(RESOURCES.secret, name, this.namespace);
      forget();
      return true;
    } catch (err) {
      if (!isNotFound(err)) throw err;
      forget();
      return false;
    }
  }
}
