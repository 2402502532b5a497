// status.lastActivityTime on the Workspace (SPEC 1.5 step 8): patched when a session opens and
// when it closes, and while any session to the workspace stays open, every
// ACTIVITY_REFRESH_MS, so every replica's open sessions are visible in the cluster to the
// manager's idle stop. The gateway's SSH sessions use it, and so can the server's browser
// terminal (with its own field manager).
import type { KubeClient } from '../kube/client.js';
import { ACTIVITY_REFRESH_MS } from '../kube/group.js';
import { RESOURCES } from '../kube/resources.js';

/** RFC 3339 with whole seconds, as Kubernetes writes its own timestamps. */
export function activityTimestamp(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function activityPatch(now: Date): { status: { lastActivityTime: string } } {
  return { status: { lastActivityTime: activityTimestamp(now) } };
}

export async function recordActivity(client: KubeClient, namespace: string, workspace: string, now: Date, fieldManager: string): Promise<void> {
  await client.patch(RESOURCES.workspace, workspace, activityPatch(now), {
    namespace,
    type: 'merge',
    subresource: 'status',
    fieldManager,
  });
}

export interface ActivityRecorderOptions {
  client: KubeClient;
  fieldManager: string;
  onError: (err: Error, where: { namespace: string; workspace: string; event: 'open' | 'refresh' | 'close' }) => void;
  now?: () => Date;
  refreshMs?: number;
}

interface Tracked {
  open: number;
  timer: NodeJS.Timeout;
}

/** Open sessions per workspace of one process, and the writes they cause. */
export class ActivityRecorder {
  private readonly tracked = new Map<string, Tracked>();
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly opts: ActivityRecorderOptions) {}

  /** A session to the workspace opened; call the returned function once when it closes. */
  open(namespace: string, workspace: string): () => void {
    const key = `${namespace}/${workspace}`;
    let entry = this.tracked.get(key);
    if (!entry) {
      const timer = setInterval(() => this.write(namespace, workspace, 'refresh'), this.opts.refreshMs ?? ACTIVITY_REFRESH_MS);
      timer.unref();
      this.tracked.set(key, (entry = { open: 0, timer }));
    }
    entry.open += 1;
    this.write(namespace, workspace, 'open');
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      const current = this.tracked.get(key);
      if (current && --current.open === 0) {
        clearInterval(current.timer);
        this.tracked.delete(key);
      }
      this.write(namespace, workspace, 'close');
    };
  }

  /** Sessions open now, all workspaces together. */
  get openSessions(): number {
    let n = 0;
    for (const entry of this.tracked.values()) n += entry.open;
    return n;
  }

  /** Settles once every write started so far has ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  private write(namespace: string, workspace: string, event: 'open' | 'refresh' | 'close'): void {
    const now = (this.opts.now ?? (() => new Date()))();
    const write = recordActivity(this.opts.client, namespace, workspace, now, this.opts.fieldManager)
      .catch((err: Error) => this.opts.onError(err, { namespace, workspace, event }))
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }
}
