// Looking up observed children, and holding them as they are when the spec cannot be rendered.
import type { KubeObject } from '../../kube/client.js';
import { LABELS } from '../../kube/group.js';
import { childKey } from '../../kube/resources.js';
import type { ChildObject, ObservedChildren } from './types.js';
import { byCodePoint } from '../../kube/names.js';

/** The observed object the loop reported for a desired child, if any. */
export function observedOf(children: ObservedChildren, child: ChildObject): KubeObject | undefined {
  const ns = child.metadata.namespace;
  return children[childKey(child)]?.[ns ? `${ns}/${child.metadata.name}` : child.metadata.name];
}

/** Present and not on its way out: a child being deleted will have to be created again. */
export function isPresent(obj: KubeObject | undefined): obj is KubeObject {
  return !!obj && !obj.metadata?.deletionTimestamp;
}

// What each kind of child carries besides metadata, in the order the chart renders kinds; everything else on an observed object was
// written by the API server (defaults, status, bookkeeping) and is not the hook's to claim.
const CONTENT: Record<string, (obj: KubeObject) => Record<string, unknown>> = {
  Namespace: () => ({}),
  ServiceAccount: (o) => pick(o, ['automountServiceAccountToken']),
  ResourceQuota: (o) => specPick(o, 'hard'),
  LimitRange: (o) => specPick(o, 'limits'),
  NetworkPolicy: (o) => pick(o, ['spec']),
  Role: (o) => pick(o, ['rules']),
  RoleBinding: (o) => pick(o, ['roleRef', 'subjects']),
  ClusterRole: (o) => pick(o, ['rules']),
  ClusterRoleBinding: (o) => pick(o, ['roleRef', 'subjects']),
  Secret: (o) => pick(o, ['type', 'data']),
};

const KIND_ORDER = Object.keys(CONTENT);

function pick(obj: KubeObject, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => obj[k] !== undefined).map((k) => [k, structuredClone(obj[k])]));
}

function specPick(obj: KubeObject, key: string): Record<string, unknown> {
  const spec = obj.spec as Record<string, unknown> | undefined;
  return spec?.[key] === undefined ? {} : { spec: { [key]: structuredClone(spec[key]) } };
}

function ownLabels(labels: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!labels) return undefined;
  const kept = Object.entries(labels).filter(
    ([k]) => k.startsWith('den.dev/') || k === LABELS.managedBy || k.startsWith('pod-security.kubernetes.io/'),
  );
  return kept.length ? Object.fromEntries(kept) : undefined;
}

/**
 * The observed children as the hook would have written them, in render order. Returned when
 * the spec is invalid: the loop then re-applies what exists (no change) and prunes nothing.
 * `disabled` still strips subjects, so disabling a person works even while their spec is broken.
 */
export function holdObserved(children: ObservedChildren, disabled: boolean): ChildObject[] {
  const held: ChildObject[] = [];
  for (const byName of Object.values(children)) {
    for (const obj of Object.values(byName)) {
      const kind = obj.kind;
      const name = obj.metadata?.name;
      if (!kind || !obj.apiVersion || !name || !CONTENT[kind]) continue;
      const content = CONTENT[kind]!(obj);
      if (disabled && (kind === 'RoleBinding' || kind === 'ClusterRoleBinding')) delete content.subjects;
      const labels = ownLabels(obj.metadata?.labels);
      held.push({
        apiVersion: obj.apiVersion,
        kind,
        metadata: {
          name,
          ...(obj.metadata?.namespace ? { namespace: obj.metadata.namespace } : {}),
          ...(labels ? { labels } : {}),
        },
        ...content,
      });
    }
  }
  return held.sort(
    (a, b) =>
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
      byCodePoint(a.metadata.namespace ?? '', b.metadata.namespace ?? '') ||
      byCodePoint(a.metadata.name, b.metadata.name),
  );
}
