// A workspace shared with another person (docs/sharing.md): one Role and one RoleBinding in the
// owner's namespace, written with the owner's own token, naming exactly that workspace's objects
// and bound to the guest's `session` ServiceAccount. One home for their names, labels and rules,
// read by REST (server/api/shares.ts), the gateway (gateway/guest.ts) and the tests.
import { API_VERSION, GROUP, KINDS, PLURALS, SERVICE_ACCOUNTS, defaultPodName, userNamespace, userSpaceOfNamespace } from '../kube/group.js';
import { isDns1123Label } from '../kube/names.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

export const SHARE_LABELS = {
  /** The shared Workspace's name, on the Role and the RoleBinding. */
  workspace: `${GROUP}/share-workspace`,
  /** The guest's UserSpace name: what the guest's list selects on. */
  guest: `${GROUP}/share-guest`,
} as const;

/** The annotation carrying who granted the share (the owner's UserSpace), for `kubectl describe`. */
export const SHARE_GRANTED_BY = `${GROUP}/share-granted-by`;

/**
 * The SSH username of a shared workspace: `<workspace>.<owner>`. Both parts are DNS labels
 * (no dots), so the first dot splits them without doubt, an own workspace's name (a label) can
 * never look like one, and OpenSSH takes it as `ssh dev.alice@host` without quoting.
 */
export function sharedSshUser(workspace: string, owner: string): string {
  return `${workspace}.${owner}`;
}

/** The workspace and owner a `<workspace>.<owner>` username names, or undefined for any other username. */
export function parseSharedSshUser(username: string): { workspace: string; owner: string } | undefined {
  const dot = username.indexOf('.');
  if (dot < 0) return undefined;
  const workspace = username.slice(0, dot);
  const owner = username.slice(dot + 1);
  if (!isDns1123Label(workspace) || !isDns1123Label(owner)) return undefined;
  return { workspace, owner };
}

/**
 * The Role's and the RoleBinding's name (one name, two kinds): `den-share.<workspace>.<guest>`.
 * Dots, which neither name can hold, keep `a-b` shared with `c` apart from `a` shared with `b-c`.
 */
export function shareObjectName(workspace: string, guest: string): string {
  return `den-share.${workspace}.${guest}`;
}

export interface ShareRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames: string[];
}

/**
 * What a guest may do: read that one Workspace (the gateway and the browser terminal re-read it
 * before a session), read its pod, and exec and port-forward into it (a websocket upgrade is a
 * GET on older API servers, a create on newer). Nothing else: no update, patch or delete of the
 * Workspace (so no stop, resize or deletion), no other pod, no logs, no Events, no Secrets.
 */
export function shareRules(workspace: string): ShareRule[] {
  const pod = defaultPodName(workspace);
  return [
    { apiGroups: [GROUP], resources: [PLURALS.workspace], verbs: ['get'], resourceNames: [workspace] },
    { apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: [pod] },
    { apiGroups: [''], resources: ['pods/exec', 'pods/portforward'], verbs: ['create', 'get'], resourceNames: [pod] },
  ];
}

export interface ShareObjects {
  role: Record<string, unknown>;
  binding: Record<string, unknown>;
}

/**
 * The Role and RoleBinding that share `workspace` of `owner` with `guest`. With the Workspace's
 * `uid` both are owned by it, so Kubernetes' garbage collector deletes them with the Workspace: a
 * workspace deleted and created again under the same name is not shared by an old grant.
 */
export function shareObjects(owner: string, workspace: string, guest: string, uid?: string): ShareObjects {
  const namespace = userNamespace(owner);
  const name = shareObjectName(workspace, guest);
  const metadata = {
    name,
    namespace,
    labels: { [SHARE_LABELS.workspace]: workspace, [SHARE_LABELS.guest]: guest },
    annotations: { [SHARE_GRANTED_BY]: owner },
    ...(uid ? { ownerReferences: [{ apiVersion: API_VERSION, kind: KINDS.workspace, name: workspace, uid }] } : {}),
  };
  return {
    role: { apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata, rules: shareRules(workspace) },
    binding: {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'RoleBinding',
      metadata,
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name: SERVICE_ACCOUNTS.session, namespace: userNamespace(guest) }],
    },
  };
}

/** A share as REST answers it, read from a RoleBinding. */
export interface ShareView {
  owner: string;
  workspace: string;
  person: string;
  created: string | null;
}

interface BindingLike {
  metadata?: { namespace?: string; labels?: Record<string, string>; creationTimestamp?: string };
  subjects?: { kind?: string; name?: string; namespace?: string }[];
}

/**
 * The share a RoleBinding records, or undefined when it is not one Den made: both labels, a
 * user namespace, and a subject that is the labelled guest's `session` ServiceAccount.
 */
export function shareOfBinding(binding: BindingLike): ShareView | undefined {
  const labels = binding.metadata?.labels ?? {};
  const workspace = labels[SHARE_LABELS.workspace];
  const person = labels[SHARE_LABELS.guest];
  const owner = userSpaceOfNamespace(binding.metadata?.namespace ?? '');
  if (!workspace || !person || !owner) return undefined;
  const bound = (binding.subjects ?? []).some((s) => s.kind === 'ServiceAccount' && s.name === SERVICE_ACCOUNTS.session && s.namespace === userNamespace(person));
  if (!bound) return undefined;
  return { owner, workspace, person, created: binding.metadata?.creationTimestamp ?? null };
}
