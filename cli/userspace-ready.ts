// `den users add` waits for the UserSpace it created to be Ready: den manager has made its
// namespace, quota, limits, policy and RBAC, and Kubernetes' quota controller has counted its
// quota (until then the cluster may refuse the person's first workspace). It polls the one
// object: a watch would need the same retries around it for a wait of seconds.
import type { Writable } from 'node:stream';
import type { KubeClient } from '../kube/client.js';
import { isNotFound } from '../kube/errors.js';
import { RESOURCES } from '../kube/resources.js';
import { sleep } from '../process/timers.js';

interface ReadyCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

interface UserSpaceView {
  metadata?: { generation?: number };
  status?: { observedGeneration?: number; conditions?: ReadyCondition[] };
}

/** Where the wait ended: Ready, or why not (the last Ready condition seen, else what stood in the way). */
export type ReadyOutcome = { ready: true } | { ready: false; said: string };

/** `2m`, `90s`, `500ms`: a wait as the flag takes it. */
export function durationInWords(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** The Ready condition den manager wrote for the UserSpace as it is now, if it wrote one for this generation. */
function readyOf(userSpace: UserSpaceView): ReadyCondition | undefined {
  const { status, metadata } = userSpace;
  if (status?.observedGeneration !== undefined && metadata?.generation !== undefined && status.observedGeneration !== metadata.generation) return undefined;
  return status?.conditions?.find((c) => c.type === 'Ready');
}

/**
 * Polls UserSpace `name` until its Ready condition is True or `timeoutMs` has passed, writing
 * each new reason it is not Ready yet on `out`, so a person sees what it waits for.
 */
export async function waitForReady(client: KubeClient, name: string, timeoutMs: number, out: Writable, intervalMs = 500): Promise<ReadyOutcome> {
  const deadline = Date.now() + timeoutMs;
  let said = 'den manager has not written its status yet';
  let lastReason = '';
  for (;;) {
    try {
      const ready = readyOf(await client.get<UserSpaceView>(RESOURCES.userSpace, name));
      if (ready?.status === 'True') return { ready: true };
      if (ready) {
        said = `${ready.reason ?? 'NotReady'}: ${ready.message ?? ''}`;
        if (ready.reason !== lastReason) out.write(`  not Ready yet: ${said}\n`);
        lastReason = ready.reason ?? '';
      }
    } catch (err) {
      if (isNotFound(err)) return { ready: false, said: 'the UserSpace was deleted while waiting' };
      said = `the cluster did not answer: ${(err as Error).message}`;
    }
    const left = deadline - Date.now();
    if (left <= 0) return { ready: false, said };
    await sleep(Math.min(intervalMs, left));
  }
}
