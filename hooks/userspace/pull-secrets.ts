// Which Secrets of the manager's namespace are mirrored into user namespaces (SPEC 1.2 rule 7).
import type { KubeObject } from '../../kube/client.js';
import { LABELS } from '../../kube/group.js';
import type { MirroredSecret } from './children/props.js';
import { byCodePoint } from '../../kube/names.js';

/** Only Secrets a kubelet can use as imagePullSecrets are copied, whatever else carries the label. */
export const PULL_SECRET_TYPES = ['kubernetes.io/dockerconfigjson', 'kubernetes.io/dockercfg'] as const;

function stringData(data: unknown): Record<string, string> {
  if (!data || typeof data !== 'object') return {};
  return Object.fromEntries(
    Object.entries(data as Record<string, unknown>)
      .filter((e): e is [string, string] => typeof e[1] === 'string')
      .sort(([a], [b]) => byCodePoint(a, b)),
  );
}

/** The pull Secrets to mirror, sorted by name; a source being deleted is no longer mirrored. */
export function mirroredPullSecrets(secrets: KubeObject[], managerNamespace: string): MirroredSecret[] {
  return secrets
    .filter(
      (s) =>
        s.metadata?.namespace === managerNamespace &&
        s.metadata?.labels?.[LABELS.pullSecret] === 'true' &&
        !s.metadata?.deletionTimestamp &&
        typeof s.metadata?.name === 'string' &&
        (PULL_SECRET_TYPES as readonly unknown[]).includes(s.type),
    )
    .map((s) => ({ name: s.metadata!.name!, type: s.type as string, data: stringData(s.data) }))
    .filter((s, i, all) => all.findIndex((t) => t.name === s.name) === i)
    .sort((a, b) => byCodePoint(a.name, b.name));
}
