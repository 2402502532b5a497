// What an operator reading the manager's log is told to do about a reconcile that keeps failing,
// where the API server's own words do not say it.
import type { ResourceType } from '../../kube/resources.js';

const NAMESPACE_GONE = /namespaces "([a-z0-9-]+)" not found/;

/**
 * Advice for a failed reconcile of `key` (namespace/name) of `parent`, or undefined. After a
 * kube-apiserver restart, Kubernetes may finish deleting a namespace while custom resources in it
 * remain in etcd (the namespace controller missed them during CRD discovery); every apply of their
 * children is then refused with `namespaces "…" not found`, and only a person can end it.
 */
export function reconcileAdvice(parent: ResourceType, key: string, error: string): string | undefined {
  const gone = NAMESPACE_GONE.exec(error)?.[1];
  if (!gone || !parent.namespaced || !key.startsWith(`${gone}/`)) return undefined;
  const name = key.slice(gone.length + 1);
  return `namespace ${gone} is gone but ${parent.kind} ${name} is still stored in it (Kubernetes can leave such objects behind when a namespace is deleted around an API server restart); ` +
    `if the namespace was meant to go, delete them with kubectl delete ${parent.plural} --all -n ${gone}; if not, recreate it (for a person's namespace, check their UserSpace); Den retries until one happens`;
}
