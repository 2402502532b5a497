// Every Kubernetes API call each Den process makes with its own ServiceAccount, with the code
// that makes it. rbac.test.ts checks the chart against this list in both directions (each call
// is granted; nothing else is, except what the manager must hold to grant it), and
// `uncoveredRequests` checks requests recorded by the fake API server against it, so the list
// cannot silently fall behind the code.
import type { RequestRecord } from '../support/fake-apiserver.js';
import { fieldSelectorName } from '../support/fake-apiserver/selectors.js';

export type Process = 'den-manager' | 'den-server' | 'den-gateway';

/**
 * Where a call goes: `cluster` for cluster-scoped objects and all-namespace lists and watches,
 * `any namespace` for objects in namespaces created at run time, or one named namespace.
 */
export type Scope = 'cluster' | 'any namespace' | 'svc-system' | 'default';

export interface Need {
  verbs: string[];
  group: string;
  /** `plural` or `plural/subresource`. */
  resource: string;
  scope: Scope;
  /** The objects the calls name, when they are always the same few. */
  names?: string[];
  /** The code that makes the call. */
  why: string;
  /** Why a ClusterRole grants a call that only goes to one namespace. */
  clusterWide?: string;
}

const CACHE = ['list', 'watch'];
/** The reconcile loop's children: cached, server-side applied (patch; create when absent), pruned. */
const CHILD = [...CACHE, 'create', 'patch', 'delete'];
const RBAC = 'rbac.authorization.k8s.io';

export const NEEDS: Record<Process, Need[]> = {
  'den-manager': [
    { verbs: [...CACHE, 'get', 'patch'], group: 'den.dev', resource: 'userspaces', scope: 'cluster', why: 'hooks/loop/controller.ts: parent cache, status-conflict re-read, finalizer patch; hooks/admission/caches.ts' },
    // Not a call: the UserSpace validator asks a SubjectAccessReview whether the manager may update every UserSpace before it lets the finalizer patch through.
    { verbs: ['update'], group: 'den.dev', resource: 'userspaces', scope: 'cluster', why: 'hooks/admission/admins.ts isAdmin' },
    { verbs: ['update'], group: 'den.dev', resource: 'userspaces/status', scope: 'cluster', why: 'hooks/loop/controller.ts writeStatus' },
    // A child's owner reference has blockOwnerDeletion (hooks/loop/keys.ts): the API server wants update on the owner's finalizers.
    { verbs: ['update'], group: 'den.dev', resource: 'userspaces/finalizers', scope: 'cluster', why: 'hooks/loop/keys.ts ownerReference' },
    { verbs: CACHE, group: 'den.dev', resource: 'workspaces', scope: 'cluster', why: 'hooks/loop/controller.ts parent cache; hooks/admission/caches.ts' },
    { verbs: ['get'], group: 'den.dev', resource: 'workspaces', scope: 'any namespace', why: 'hooks/loop/controller.ts status-conflict re-read' },
    { verbs: ['update'], group: 'den.dev', resource: 'workspaces/status', scope: 'any namespace', why: 'hooks/loop/controller.ts writeStatus' },
    { verbs: ['patch'], group: 'den.dev', resource: 'workspaces', scope: 'any namespace', why: 'hooks/loop/controller.ts changeParent (idle stop)' },
    { verbs: ['get', 'list', 'create', 'patch'], group: '', resource: 'events', scope: 'any namespace', why: 'hooks/loop/controller.ts changeParent events (idle stop), counted by kube/den-events.ts' },
    { verbs: ['update'], group: 'den.dev', resource: 'workspaces/finalizers', scope: 'any namespace', why: 'hooks/loop/keys.ts ownerReference' },
    { verbs: CACHE, group: 'den.dev', resource: 'workspaceimages', scope: 'cluster', why: 'hooks/workspace/controller.ts related images; hooks/loop/controller.ts child cache of ImageRegistry; hooks/admission/caches.ts' },
    { verbs: ['create', 'patch', 'delete'], group: 'den.dev', resource: 'workspaceimages', scope: 'cluster', why: 'hooks/loop/controller.ts applyChild, deleteChild (ImageRegistry entries)' },
    { verbs: [...CACHE, 'get'], group: 'den.dev', resource: 'imageregistries', scope: 'cluster', why: 'hooks/loop/controller.ts parent cache, status-conflict re-read' },
    { verbs: ['update'], group: 'den.dev', resource: 'imageregistries/status', scope: 'cluster', why: 'hooks/loop/controller.ts writeStatus' },
    { verbs: ['update'], group: 'den.dev', resource: 'imageregistries/finalizers', scope: 'cluster', why: 'hooks/loop/keys.ts ownerReference' },
    { verbs: [...CHILD, 'get'], group: '', resource: 'namespaces', scope: 'cluster', why: 'UserSpace child; hooks/manager.ts finalizer getIfExists' },
    ...['resourcequotas', 'limitranges', 'serviceaccounts', 'secrets', 'services'].map(
      (resource): Need => ({ verbs: CACHE, group: '', resource, scope: 'cluster', why: 'hooks/loop/controller.ts child cache' }),
    ),
    ...['resourcequotas', 'limitranges', 'serviceaccounts', 'secrets', 'services'].map(
      (resource): Need => ({ verbs: ['create', 'patch', 'delete'], group: '', resource, scope: 'any namespace', why: 'hooks/loop/controller.ts applyChild, deleteChild' }),
    ),
    { verbs: CACHE, group: '', resource: 'services', scope: 'default', why: 'hooks/manager.ts apiService (the kubernetes Service)' },
    {
      verbs: CACHE,
      group: 'discovery.k8s.io',
      resource: 'endpointslices',
      scope: 'default',
      why: 'hooks/manager.ts apiEndpoints',
      clusterWide: 'a Role in default would be the chart\'s only object outside svc-system, and the manager reads every pod\'s address anyway',
    },
    { verbs: CACHE, group: '', resource: 'secrets', scope: 'svc-system', why: 'hooks/manager.ts pullSecrets' },
    { verbs: ['create'], group: '', resource: 'secrets', scope: 'svc-system', why: 'gateway/host-key.ts ensureHostKeySecret; hooks/admission/tls-secret.ts' },
    { verbs: ['get', 'update'], group: '', resource: 'secrets', scope: 'svc-system', names: ['den-webhook-tls'], why: 'hooks/admission/tls-secret.ts ensureWebhookTls (rotation)' },
    { verbs: CACHE, group: '', resource: 'pods', scope: 'cluster', why: 'hooks/manager.ts related pods' },
    { verbs: CACHE, group: '', resource: 'events', scope: 'cluster', why: "hooks/workspace/controller.ts refusals: the StatefulSet controller's FailedCreate Events" },
    { verbs: CACHE, group: '', resource: 'persistentvolumeclaims', scope: 'cluster', why: 'hooks/admission/caches.ts claims' },
    { verbs: ['list'], group: '', resource: 'persistentvolumeclaims', scope: 'any namespace', why: 'hooks/admission/fresh-view.ts: a refusal read again' },
    { verbs: ['list'], group: 'den.dev', resource: 'workspaces', scope: 'any namespace', why: 'hooks/admission/fresh-view.ts: a refusal read again' },
    { verbs: ['get'], group: 'den.dev', resource: 'workspaceimages', scope: 'cluster', why: 'hooks/admission/fresh-view.ts: a refusal read again' },
    { verbs: CACHE, group: 'apps', resource: 'statefulsets', scope: 'cluster', why: 'hooks/loop/controller.ts child cache' },
    { verbs: ['create', 'patch', 'delete'], group: 'apps', resource: 'statefulsets', scope: 'any namespace', why: 'hooks/loop/controller.ts applyChild, deleteChild' },
    { verbs: CACHE, group: 'networking.k8s.io', resource: 'networkpolicies', scope: 'cluster', why: 'hooks/loop/controller.ts child cache' },
    { verbs: ['create', 'patch', 'delete'], group: 'networking.k8s.io', resource: 'networkpolicies', scope: 'any namespace', why: 'hooks/loop/controller.ts applyChild, deleteChild' },
    { verbs: CACHE, group: RBAC, resource: 'roles', scope: 'cluster', why: 'hooks/loop/controller.ts child cache' },
    { verbs: ['create', 'patch', 'delete'], group: RBAC, resource: 'roles', scope: 'any namespace', why: 'hooks/loop/controller.ts applyChild, deleteChild' },
    { verbs: CACHE, group: RBAC, resource: 'rolebindings', scope: 'cluster', why: 'hooks/loop/controller.ts child cache' },
    { verbs: ['create', 'patch', 'delete'], group: RBAC, resource: 'rolebindings', scope: 'any namespace', why: 'hooks/loop/controller.ts applyChild, deleteChild' },
    { verbs: CHILD, group: RBAC, resource: 'clusterroles', scope: 'cluster', why: 'UserSpace child; hooks/manager.ts finalizer' },
    { verbs: CHILD, group: RBAC, resource: 'clusterrolebindings', scope: 'cluster', why: 'UserSpace child; hooks/manager.ts finalizer' },
    // Binding a ClusterRole whose rules the creator does not hold needs `bind` on it (hooks/userspace/children/role-bindings.ts).
    { verbs: ['bind'], group: RBAC, resource: 'clusterroles', scope: 'cluster', names: ['edit', 'den-admin'], why: 'svc-workspace-edit and the administrators\' binding' },
    // Held as well, it spares the API server an escalation check per binding (infra/install/rbac-rules.ts).
    { verbs: ['bind'], group: RBAC, resource: 'roles', scope: 'any namespace', names: ['svc-workspace-user', 'svc-workspace-reader'], why: 'svc-owner and svc-reader (hooks/userspace/children/role-bindings.ts)' },
    { verbs: ['create'], group: 'authorization.k8s.io', resource: 'subjectaccessreviews', scope: 'cluster', why: 'hooks/admission/admins.ts' },
    ...['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'].map(
      (resource): Need => ({ verbs: ['get', 'list', 'watch', 'update'], group: 'admissionregistration.k8s.io', resource, scope: 'cluster', names: ['den-webhooks'], why: 'hooks/admission/registration.ts registerOne, keepWebhooksRegistered' }),
    ),
    { verbs: ['create'], group: 'coordination.k8s.io', resource: 'leases', scope: 'svc-system', why: 'hooks/loop/leader.ts (first election)' },
    { verbs: ['get', 'update'], group: 'coordination.k8s.io', resource: 'leases', scope: 'svc-system', names: ['den-manager'], why: 'hooks/loop/leader.ts renew, release' },
  ],
  'den-server': [
    { verbs: ['create'], group: '', resource: 'serviceaccounts/token', scope: 'any namespace', names: ['session', 'session-readonly'], why: 'kube/minting.ts for server/auth/authenticate.ts' },
    { verbs: [...CACHE, 'get'], group: 'den.dev', resource: 'userspaces', scope: 'cluster', why: 'server/auth/directory.ts (resolveConfirmed for writes)' },
    { verbs: ['patch'], group: 'den.dev', resource: 'workspaces/status', scope: 'any namespace', why: 'shell/activity.ts for server/terminal/upgrade.ts (lastActivityTime)' },
    { verbs: [...CACHE, 'get', 'create', 'patch', 'delete'], group: '', resource: 'secrets', scope: 'svc-system', why: 'server/auth/state.ts' },
    { verbs: CACHE, group: RBAC, resource: 'rolebindings', scope: 'cluster', why: 'server/auth/services.ts share cache for server/api/shares.ts listSharedWith (the share RoleBindings naming a guest)' },
  ],
  'den-gateway': [
    { verbs: CACHE, group: 'den.dev', resource: 'workspaces', scope: 'cluster', why: 'gateway/role.ts cache' },
    { verbs: ['get'], group: 'den.dev', resource: 'workspaces', scope: 'any namespace', why: 'gateway/target.ts re-fetch (SPEC 1.5 step 4)' },
    { verbs: ['patch'], group: 'den.dev', resource: 'workspaces/status', scope: 'any namespace', why: 'shell/activity.ts for gateway/server.ts (lastActivityTime)' },
    { verbs: CACHE, group: 'den.dev', resource: 'workspaceimages', scope: 'cluster', why: 'gateway/role.ts cache (shell, home path)' },
    { verbs: CACHE, group: 'den.dev', resource: 'userspaces', scope: 'cluster', why: "gateway/role.ts cache (a guest's profile keys, gateway/guest.ts)" },
    { verbs: ['get'], group: '', resource: 'pods', scope: 'any namespace', why: 'gateway/target.ts label check' },
    // exec and port forwarding run as the workspace owner's `session` ServiceAccount, never as the gateway.
    { verbs: ['create'], group: '', resource: 'serviceaccounts/token', scope: 'any namespace', names: ['session'], why: 'kube/minting.ts for gateway/server.ts (the owner\'s token)' },
    { verbs: ['get', 'list', 'create', 'patch'], group: '', resource: 'events', scope: 'any namespace', why: 'kube/den-events.ts for gateway/session-record.ts (SSHSessionOpened, SSHSessionClosed, counted across replicas)' },
  ],
};

export interface ApiRequest {
  verb: string;
  group: string;
  resource: string;
  /** Undefined for cluster-scoped objects and all-namespace lists and watches. */
  namespace?: string;
  name?: string;
}

/** Whether `need` covers `req`; a need in `any namespace` covers every namespace. */
export function covers(need: Need, req: ApiRequest): boolean {
  if (need.group !== req.group || need.resource !== req.resource || !need.verbs.includes(req.verb)) return false;
  if (need.names && (req.name === undefined || !need.names.includes(req.name))) return false;
  if (req.namespace === undefined) return need.scope === 'cluster';
  return need.scope === 'any namespace' || need.scope === req.namespace;
}

/** A recorded request as RBAC sees it (websocket upgrades carry no verb: they count as create). */
export function apiRequestOf(record: RequestRecord): ApiRequest | undefined {
  const m = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)(\/.*)?$/.exec(record.path);
  if (!m) return undefined;
  let segments = (m[2] ?? '').split('/').filter(Boolean).map(decodeURIComponent);
  let namespace: string | undefined;
  if (segments[0] === 'namespaces' && segments.length >= 3) {
    namespace = segments[1];
    segments = segments.slice(2);
  }
  const [plural, pathName, subresource] = segments;
  if (!plural) return undefined;
  const name = pathName ?? (record.verb === 'list' || record.verb === 'watch' ? fieldSelectorName(new URLSearchParams(record.query).get('fieldSelector') ?? undefined) : undefined);
  return {
    verb: record.verb ?? 'create',
    group: m[1] ?? '',
    resource: subresource ? `${plural}/${subresource}` : plural,
    ...(namespace === undefined ? {} : { namespace }),
    ...(name === undefined ? {} : { name }),
  };
}

/**
 * Non-resource paths every identity may read through the built-in ClusterRole
 * system:public-info-viewer, so the chart grants nothing for them: `GET /version` is how each
 * process waits for the API server at start (kube/availability.ts).
 */
const PUBLIC_INFO = new Set(['GET /version']);

/** The requests of `process` (by its ServiceAccount in svc-system) that no need covers, described. */
export function uncoveredRequests(process: Process, records: readonly RequestRecord[]): string[] {
  const user = `system:serviceaccount:svc-system:${process}`;
  const out = new Set<string>();
  for (const record of records) {
    if (record.user !== user) continue;
    const req = apiRequestOf(record);
    if (!req && PUBLIC_INFO.has(`${record.method} ${record.path}`)) continue;
    if (!req) out.add(`${record.method} ${record.path}`);
    else if (!NEEDS[process].some((need) => covers(need, req))) {
      out.add(`${req.verb} ${req.group ? `${req.group}/` : ''}${req.resource}${req.name ? ` ${req.name}` : ''} in ${req.namespace ?? 'the cluster'}`);
    }
  }
  return [...out];
}
