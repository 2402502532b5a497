// What each Den identity may do, as plain RBAC rules. Kept as data so tests and docs read the
// same lists the chart renders. Every verb and resource is spelled out: no wildcards.
import { GROUP, SERVICE_ACCOUNTS } from '../../kube/group.js';
import {
  ADMIN_CLUSTER_ROLE,
  BUILT_IN_EDIT_ROLE,
  LEADER_LEASE,
  READER_ROLE,
  USER_ROLE,
  WEBHOOK_CONFIGURATION,
  WEBHOOK_TLS_SECRET,
} from '../../contract/names.js';
import { GIT_CREDENTIALS_SECRET, PERSONAL_ENV_SECRET } from '../../contract/personal.js';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

const READ = ['get', 'list', 'watch'];
/** Informer caches: list, then watch. */
const CACHE = ['list', 'watch'];
/** Children the reconcile loop owns: cached, server-side applied (patch, and create when absent) and pruned. */
const CHILD = [...CACHE, 'create', 'patch', 'delete'];
const CRUD = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const CORE = '';

/**
 * The manager, cluster-wide. It reconciles UserSpaces into namespaces it creates at run time, so
 * what it writes there cannot be limited to named namespaces. Each verb is one its code calls
 * (test/infra/rbac-needs.ts names the call), or one it must hold to grant it (below).
 *
 * RBAC forbids creating a Role that grants more than its creator holds unless the creator has
 * `escalate`. Instead of `escalate`, the manager holds every permission the per-user Roles and
 * ClusterRoles grant (SPEC 1.2: full CRUD on Workspace, pod/log/event reads, pods/exec, home PVC
 * deletion, and `use` on WorkspaceImage; pods/portforward for SSH forwarding and port preview), and gets
 * `bind` only on the two ClusterRoles it binds without holding them, and on the two per-user Roles
 * by name. The latter grants nothing it does not hold (it writes those Roles itself, under the
 * escalation check), but spares the API server the check on each RoleBinding that names them: a
 * check that reads every ClusterRoleBinding from storage, one more per person, so 300 people's
 * children took the manager 52 s against 12 s for an administrator (docs/manager.md, "On a real API server").
 */
export function managerClusterRules(): PolicyRule[] {
  return [
    // update: the UserSpace validator lets only administrators, those who may update every
    // UserSpace (hooks/admission/admins.ts), change metadata.finalizers, and the manager does.
    { apiGroups: [GROUP], resources: ['userspaces'], verbs: ['get', ...CACHE, 'update', 'patch'] },
    { apiGroups: [GROUP], resources: ['workspaces'], verbs: CRUD },
    // Registry sync (SPEC 1.6): ImageRegistries are parents, read and never written but for
    // their status; the WorkspaceImages they own are its children (get: the Workspace hook's image).
    { apiGroups: [GROUP], resources: ['imageregistries'], verbs: ['get', ...CACHE] },
    { apiGroups: [GROUP], resources: ['workspaceimages'], verbs: [...READ, 'use', 'create', 'patch', 'delete'] },
    { apiGroups: [GROUP], resources: ['userspaces/status', 'workspaces/status', 'imageregistries/status'], verbs: ['update'] },
    // Owner references with blockOwnerDeletion need update on the owner's finalizers.
    { apiGroups: [GROUP], resources: ['userspaces/finalizers', 'workspaces/finalizers', 'imageregistries/finalizers'], verbs: ['update'] },
    { apiGroups: [CORE], resources: ['namespaces'], verbs: ['get', ...CHILD] },
    // secrets: pull Secrets mirrored into every user namespace (the webhook certificate and the
    // gateway host key are read and replaced through the Role in svc-system).
    { apiGroups: [CORE], resources: ['resourcequotas', 'limitranges', 'serviceaccounts', 'services', 'secrets'], verbs: CHILD },
    { apiGroups: [CORE], resources: ['pods', 'events'], verbs: READ },
    // Events about parents the loop changes itself (hooks/workspace/idle.ts: Stopped by idle
    // auto-stop; a Resized), patched when one repeats (kube/den-events.ts); patch is also what owners get.
    { apiGroups: [CORE], resources: ['events'], verbs: ['create', 'patch'] },
    // pods/log, pods/exec and pods/portforward are held only so the manager may grant them to
    // workspace owners (see above); so is PVC delete, which the manager itself uses only for the
    // home of a dormant Workspace where the installation says so (--dormant-delete-home).
    { apiGroups: [CORE], resources: ['pods/log'], verbs: ['get'] },
    { apiGroups: [CORE], resources: ['pods/exec', 'pods/portforward'], verbs: ['create', 'get'] },
    { apiGroups: [CORE], resources: ['persistentvolumeclaims'], verbs: [...READ, 'delete'] },
    // get on the person's own variables and git credentials Secrets, held only to grant it to them.
    { apiGroups: [CORE], resources: ['secrets'], verbs: ['get'], resourceNames: [PERSONAL_ENV_SECRET, GIT_CREDENTIALS_SECRET] },
    // The `kubernetes` Service's addresses, for the user namespaces' NetworkPolicies.
    { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: CACHE },
    { apiGroups: ['apps'], resources: ['statefulsets'], verbs: CHILD },
    { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: CHILD },
    {
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'],
      verbs: CHILD,
    },
    // get on Roles and RoleBindings is held only to grant it to owners, who read their shares (contract/share.ts).
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['get'] },
    {
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['clusterroles'],
      verbs: ['bind'],
      resourceNames: [BUILT_IN_EDIT_ROLE, ADMIN_CLUSTER_ROLE],
    },
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['bind'], resourceNames: [USER_ROLE, READER_ROLE] },
    // The UserSpace validator asks whether the requester is an administrator.
    { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
      // list and watch name the object by a metadata.name field selector, which RBAC matches against resourceNames.
      verbs: ['get', 'list', 'watch', 'update'],
      resourceNames: [WEBHOOK_CONFIGURATION],
    },
  ];
}

/** The manager in its own namespace: the leader-election Lease, the webhook certificate. */
export function managerNamespaceRules(): PolicyRule[] {
  return [
    // create cannot be limited by name: the name of a new object is not known to the authorizer.
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'], resourceNames: [LEADER_LEASE] },
    { apiGroups: [CORE], resources: ['secrets'], verbs: ['get', 'update'], resourceNames: [WEBHOOK_TLS_SECRET] },
  ];
}

/** The server, cluster-wide: minting tokens for the per-user identities and reading memberships. */
export function serverClusterRules(): PolicyRule[] {
  return [
    {
      apiGroups: [CORE],
      resources: ['serviceaccounts/token'],
      verbs: ['create'],
      resourceNames: [SERVICE_ACCOUNTS.session, SERVICE_ACCOUNTS.sessionReadonly],
    },
    // get: a write confirms the person's UserSpace (disabled through another replica a moment ago?).
    { apiGroups: [GROUP], resources: ['userspaces'], verbs: ['get', ...CACHE] },
    // status.lastActivityTime while a browser terminal is open (shell/activity.ts), as the gateway does for SSH.
    { apiGroups: [GROUP], resources: ['workspaces/status'], verbs: ['patch'] },
    // A guest's "shared with you" list: the share RoleBindings labelled with their name, in every
    // owner's namespace (contract/share.ts). Only a pointer: each workspace is then read with the
    // guest's own token, so the cluster decides what they see (docs/sharing.md).
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'], verbs: CACHE },
  ];
}

/** The server in its own namespace: sessions, API token records, local users, login challenges. */
export function serverNamespaceRules(): PolicyRule[] {
  return [{ apiGroups: [CORE], resources: ['secrets'], verbs: ['get', ...CACHE, 'create', 'patch', 'delete'] }];
}

/**
 * The gateway never reads Secrets (SPEC 1.5); its host key arrives as a mounted file. It opens
 * no exec or port forward with its own identity: sessions run as the workspace owner's `session`
 * ServiceAccount, whose token it mints, so the owner's Role decides and the audit log names them.
 */
export function gatewayClusterRules(): PolicyRule[] {
  return [
    { apiGroups: [GROUP], resources: ['workspaces'], verbs: READ },
    { apiGroups: [GROUP], resources: ['workspaces/status'], verbs: ['patch'] },
    // The image's shell and home path decide what a session starts.
    { apiGroups: [GROUP], resources: ['workspaceimages'], verbs: CACHE },
    { apiGroups: [CORE], resources: ['pods'], verbs: ['get'] },
    { apiGroups: [CORE], resources: ['serviceaccounts/token'], verbs: ['create'], resourceNames: [SERVICE_ACCOUNTS.session] },
    // A shared workspace (docs/sharing.md) takes the guest's own profile keys: UserSpaces cached.
    { apiGroups: [GROUP], resources: ['userspaces'], verbs: CACHE },
    // SSHSessionOpened / SSHSessionClosed on the Workspace; a burst is counted on one Event, read
    // (get, list: the other replica's) and patched (kube/den-events.ts).
    { apiGroups: [CORE], resources: ['events'], verbs: ['get', 'list', 'create', 'patch'] },
  ];
}

/** Administrators: the whole den.dev API and cluster-wide reads for the admin pages (SPEC 1.7). */
export function adminClusterRules(): PolicyRule[] {
  return [
    { apiGroups: [GROUP], resources: ['workspaces', 'userspaces', 'imageregistries'], verbs: CRUD },
    { apiGroups: [GROUP], resources: ['workspaceimages'], verbs: [...CRUD, 'use'] },
    {
      apiGroups: [GROUP],
      resources: ['workspaces/status', 'userspaces/status', 'imageregistries/status', 'workspaceimages/status'],
      verbs: ['get'],
    },
    {
      apiGroups: [CORE],
      resources: ['pods', 'pods/log', 'events', 'persistentvolumeclaims', 'resourcequotas', 'namespaces'],
      verbs: READ,
    },
    // An administrator deleting someone's workspace through REST also removes its home PVC (SPEC 4.2).
    { apiGroups: [CORE], resources: ['persistentvolumeclaims'], verbs: ['delete'] },
    // Den's Events (kube/den-events.ts) say so when an administrator starts, stops or deletes
    // someone's workspace, written with the administrator's own token.
    { apiGroups: [CORE], resources: ['events'], verbs: ['create', 'patch'] },
    { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: READ },
  ];
}
