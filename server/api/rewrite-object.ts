// One object read, changed and patched back with the caller's own token, conditional on the
// resourceVersion it was read at: a write that came between answers 409 and the change is made
// again on what it wrote (personal-store.ts's Secrets, port-share.ts's Workspace).
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isConflict } from '../../kube/errors.js';
import type { ResourceType } from '../../kube/resources.js';

/** Attempts of a read-modify-write before a concurrent writer wins with 409. */
const WRITE_ATTEMPTS = 3;

export interface RewriteOptions<T> {
  /** How the object is read; a plain get unless given (personal-store.ts answers 503 for a Secret not made yet). */
  read?: () => Promise<T>;
  fieldManager?: string;
}

/**
 * Reads `name` in `namespace`, patches it with `change(current)` and `current`'s resourceVersion,
 * and answers the object as patched; a 409 starts again from a fresh read, at most three times.
 */
export async function rewriteObject<T extends { metadata?: { resourceVersion?: string } } = KubeObject>(
  kube: KubeClient,
  resource: ResourceType,
  name: string,
  namespace: string,
  change: (current: T) => object,
  opts: RewriteOptions<T> = {},
): Promise<T> {
  const read = opts.read ?? (() => kube.get<T>(resource, name, namespace));
  for (let attempt = 1; ; attempt++) {
    const current = await read();
    const patch = change(current) as { metadata?: object };
    try {
      return await kube.patch<T>(resource, name, { ...patch, metadata: { ...patch.metadata, resourceVersion: current.metadata?.resourceVersion } }, { namespace, fieldManager: opts.fieldManager });
    } catch (err) {
      if (!isConflict(err) || attempt >= WRITE_ATTEMPTS) throw err;
    }
  }
}
