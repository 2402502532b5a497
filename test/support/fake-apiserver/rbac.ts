// RBAC authorization as kube-apiserver evaluates it: bindings whose subjects match the
// user grant the rules of their role; the first matching rule allows; nothing denies.

export interface UserInfo {
  username: string;
  groups: string[];
  uid?: string;
}

export interface Attributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

interface Binding {
  metadata: { name: string; namespace?: string };
  subjects?: Subject[];
  roleRef: { kind: string; name: string };
}

const ALL = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const READ = ['get', 'list', 'watch'];

/** The built-in ClusterRoles Den relies on, reduced to the resources that matter here. */
export const BUILTIN_CLUSTER_ROLES: Record<string, PolicyRule[]> = {
  'cluster-admin': [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  edit: [
    {
      verbs: ALL,
      apiGroups: [''],
      resources: ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'configmaps', 'secrets', 'services', 'persistentvolumeclaims', 'serviceaccounts', 'replicationcontrollers', 'endpoints'],
    },
    { verbs: ALL, apiGroups: ['apps'], resources: ['deployments', 'statefulsets', 'replicasets', 'daemonsets'] },
    { verbs: ALL, apiGroups: ['batch'], resources: ['jobs', 'cronjobs'] },
    { verbs: READ, apiGroups: [''], resources: ['pods/log', 'events', 'limitranges', 'resourcequotas', 'namespaces'] },
    // As in kube-apiserver's system:aggregate-to-edit: the namespace's ServiceAccounts may be
    // impersonated and have tokens minted.
    { verbs: ['impersonate'], apiGroups: [''], resources: ['serviceaccounts'] },
    { verbs: ['create'], apiGroups: [''], resources: ['serviceaccounts/token'] },
  ],
  view: [
    { verbs: READ, apiGroups: [''], resources: ['pods', 'pods/log', 'configmaps', 'services', 'persistentvolumeclaims', 'serviceaccounts', 'endpoints', 'events', 'limitranges', 'resourcequotas', 'namespaces'] },
    { verbs: READ, apiGroups: ['apps'], resources: ['deployments', 'statefulsets', 'replicasets', 'daemonsets'] },
  ],
  'system:basic-user': [{ verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] }],
};

function includesOrStar(list: string[] | undefined, value: string): boolean {
  return !!list && (list.includes('*') || list.includes(value));
}

export function ruleAllows(rule: PolicyRule, a: Attributes): boolean {
  if (!includesOrStar(rule.verbs, a.verb)) return false;
  if (!includesOrStar(rule.apiGroups, a.group)) return false;
  const full = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const resources = rule.resources ?? [];
  const resourceOk = resources.includes('*') || resources.includes(full) || (!!a.subresource && resources.includes(`*/${a.subresource}`));
  if (!resourceOk) return false;
  if (rule.resourceNames && rule.resourceNames.length > 0) return !!a.name && rule.resourceNames.includes(a.name);
  return true;
}

export function subjectMatches(subject: Subject, user: UserInfo, bindingNamespace: string | undefined): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.username;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount':
      return user.username === `system:serviceaccount:${subject.namespace ?? bindingNamespace}:${subject.name}`;
    default:
      return false;
  }
}

export interface RbacObjects {
  clusterRoles: (name: string) => { rules?: PolicyRule[] } | undefined;
  roles: (namespace: string, name: string) => { rules?: PolicyRule[] } | undefined;
  clusterRoleBindings: () => Binding[];
  roleBindings: (namespace: string) => Binding[];
}

export function authorize(objects: RbacObjects, user: UserInfo, a: Attributes): boolean {
  if (user.groups.includes('system:masters')) return true;
  const clusterRules = (name: string): PolicyRule[] => objects.clusterRoles(name)?.rules ?? BUILTIN_CLUSTER_ROLES[name] ?? [];
  if (user.groups.includes('system:authenticated') && clusterRules('system:basic-user').some((r) => ruleAllows(r, a))) return true;
  for (const b of objects.clusterRoleBindings()) {
    if (!(b.subjects ?? []).some((s) => subjectMatches(s, user, undefined))) continue;
    if (clusterRules(b.roleRef.name).some((r) => ruleAllows(r, a))) return true;
  }
  if (a.namespace === undefined) return false;
  for (const b of objects.roleBindings(a.namespace)) {
    if (!(b.subjects ?? []).some((s) => subjectMatches(s, user, a.namespace))) continue;
    const rules = b.roleRef.kind === 'ClusterRole' ? clusterRules(b.roleRef.name) : (objects.roles(a.namespace, b.roleRef.name)?.rules ?? []);
    if (rules.some((r) => ruleAllows(r, a))) return true;
  }
  return false;
}

/** The message kube-apiserver writes for a denied request (see fixtures forbidden-*.json). */
export function forbiddenMessage(user: UserInfo, a: Attributes): string {
  const label = a.group ? `${a.resource}.${a.group}` : a.resource;
  const subject = a.name ? `${label} "${a.name}"` : label;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace !== undefined ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return `${subject} is forbidden: User "${user.username}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}`;
}

/** The single requests a rule allows: one per verb, group, resource (and name, when it names any). */
function requestsOf(rule: PolicyRule, namespace: string | undefined): Attributes[] {
  const requests: Attributes[] = [];
  for (const verb of rule.verbs) {
    for (const group of rule.apiGroups ?? []) {
      for (const full of rule.resources ?? []) {
        const [resource, subresource] = full.split('/') as [string, string | undefined];
        const names = rule.resourceNames?.length ? rule.resourceNames : [undefined];
        for (const name of names) requests.push({ verb, group, resource, subresource, namespace, name });
      }
    }
  }
  return requests;
}

/**
 * The first rule of `rules` that `user` does not hold in `namespace` (cluster-wide when
 * undefined), as RBAC's escalation check (ConfirmNoEscalation) finds it; undefined when the
 * user holds them all. Rules for non-resource URLs are never held here: the fake does not
 * authorize non-resource requests.
 */
export function ruleNotHeld(objects: RbacObjects, user: UserInfo, rules: PolicyRule[], namespace: string | undefined): PolicyRule | undefined {
  const held = rulesHeld(objects, user, namespace);
  return rules.find((rule) => rule.nonResourceURLs?.length || !requestsOf(rule, namespace).every((a) => held.some((r) => ruleAllows(r, a))));
}

/** Every rule `user` holds in `namespace` (cluster-wide ones included), as `authorize` finds them. */
function rulesHeld(objects: RbacObjects, user: UserInfo, namespace: string | undefined): PolicyRule[] {
  const clusterRules = (name: string): PolicyRule[] => objects.clusterRoles(name)?.rules ?? BUILTIN_CLUSTER_ROLES[name] ?? [];
  const held: PolicyRule[] = [];
  if (user.groups.includes('system:authenticated')) held.push(...clusterRules('system:basic-user'));
  for (const b of objects.clusterRoleBindings()) {
    if ((b.subjects ?? []).some((s) => subjectMatches(s, user, undefined))) held.push(...clusterRules(b.roleRef.name));
  }
  if (namespace === undefined) return held;
  for (const b of objects.roleBindings(namespace)) {
    if (!(b.subjects ?? []).some((s) => subjectMatches(s, user, namespace))) continue;
    held.push(...(b.roleRef.kind === 'ClusterRole' ? clusterRules(b.roleRef.name) : (objects.roles(namespace, b.roleRef.name)?.rules ?? [])));
  }
  return held;
}

/** The rules a built-in or stored ClusterRole grants; undefined when there is no such ClusterRole. */
export function clusterRoleRules(objects: RbacObjects, name: string): PolicyRule[] | undefined {
  const stored = objects.clusterRoles(name);
  if (stored) return stored.rules ?? [];
  return BUILTIN_CLUSTER_ROLES[name];
}

/** kube-apiserver's refusal of a Role or binding that would grant what its author does not hold. */
export function escalationMessage(label: string, name: string, user: UserInfo, rule: PolicyRule): string {
  const shown = `{APIGroups:${JSON.stringify(rule.apiGroups ?? [])}, Resources:${JSON.stringify(rule.resources ?? [])}${rule.resourceNames?.length ? `, ResourceNames:${JSON.stringify(rule.resourceNames)}` : ''}, Verbs:${JSON.stringify(rule.verbs)}}`;
  return `${label} "${name}" is forbidden: user "${user.username}" (groups=[${user.groups.map((g) => JSON.stringify(g)).join(' ')}]) is attempting to grant RBAC permissions not currently held:\n${shown}`;
}
