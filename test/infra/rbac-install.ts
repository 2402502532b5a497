// The install chart's RBAC as the tests read it (rbac.test.ts): the rendered manifests, which
// rules a ServiceAccount holds, whether they allow a request, and what each process's code
// calls (rbac-needs.ts) as requests.
import { renderUserSpaceChildren } from '../../hooks/userspace/children/chart.js';
import { renderInstall } from '../../infra/install/synth.js';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';
import type { PolicyRule } from '../../infra/install/rbac-rules.js';
import { type Need, type Process } from './rbac-needs.js';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: PolicyRule[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

export interface Request {
  group: string;
  resource: string;
  verb: string;
  name?: string;
  namespace?: string;
}

export const manifests = renderInstall(DEFAULT_SETTINGS) as unknown[] as Manifest[];

export function find(kind: string, name: string, namespace?: string): Manifest {
  const found = manifests.find(
    (m) => m.kind === kind && m.metadata.name === name && m.metadata.namespace === namespace,
  );
  if (!found) throw new Error(`no ${kind} ${namespace ? `${namespace}/` : ''}${name} in the chart`);
  return found;
}

/** RBAC's own matching: rules are additive, resourceNames narrow a rule to named objects. */
export function allows(rules: PolicyRule[], req: Request): boolean {
  return rules.some(
    (r) =>
      r.apiGroups.includes(req.group) &&
      r.resources.includes(req.resource) &&
      r.verbs.includes(req.verb) &&
      (r.resourceNames === undefined || (req.name !== undefined && r.resourceNames.includes(req.name))),
  );
}

/** What a ServiceAccount of svc-system may do in `namespace` (undefined: cluster-scoped requests). */
export function rulesOf(serviceAccount: string, namespace: string | undefined): PolicyRule[] {
  const rules: PolicyRule[] = [];
  for (const binding of manifests) {
    if (binding.kind !== 'ClusterRoleBinding' && binding.kind !== 'RoleBinding') continue;
    const bound = (binding.subjects ?? []).some(
      (s) => s.kind === 'ServiceAccount' && s.name === serviceAccount && s.namespace === 'svc-system',
    );
    if (!bound) continue;
    if (binding.kind === 'RoleBinding' && binding.metadata.namespace !== namespace) continue;
    const ref = binding.roleRef;
    if (!ref) throw new Error(`${binding.metadata.name} has no roleRef`);
    const role = find(ref.kind, ref.name, ref.kind === 'Role' ? binding.metadata.namespace : undefined);
    rules.push(...(role.rules ?? []));
  }
  return rules;
}

export function expand(rule: PolicyRule): Request[] {
  const out: Request[] = [];
  for (const group of rule.apiGroups)
    for (const resource of rule.resources)
      for (const verb of rule.verbs)
        for (const name of rule.resourceNames ?? [undefined]) out.push({ group, resource, verb, ...(name ? { name } : {}) });
  return out;
}

export function describeRequest(r: Request): string {
  return `${r.verb} ${r.group ? `${r.group}/` : ''}${r.resource}${r.name ? `/${r.name}` : ''}${r.namespace ? ` in ${r.namespace}` : ''}`;
}

export const everyRole = manifests.filter((m) => m.kind === 'ClusterRole' || m.kind === 'Role');

/** What the manager renders for an administrator's UserSpace, pull Secret included. */
export function userSpaceChildren(): Manifest[] {
  return renderUserSpaceChildren({
    userSpace: 'alice',
    namespace: 'svc-alice',
    owner: 'alice@example.com',
    quota: { cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 1, workspaces: 3 },
    gpuResource: 'nvidia.com/gpu',
    containerDefaults: { request: { cpu: '100m' }, limit: { cpu: '1' } },
    networkPolicy: 'Isolated',
    apiServer: [{ cidrs: ['10.0.0.1/32'], ports: [{ port: 6443, protocol: 'TCP' }] }],
    admin: true,
    disabled: false,
    pullSecrets: [{ name: 'registry', type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': 'e30=' } }],
  }) as unknown[] as Manifest[];
}

/** The namespace a need's calls go to, as a request names it. */
export function namespaceOf(need: Need): string | undefined {
  if (need.scope === 'cluster') return undefined;
  return need.scope === 'any namespace' ? 'svc-alice' : need.scope;
}

/** Every request a need stands for. */
export function requestsOf(need: Need): Request[] {
  const namespace = namespaceOf(need);
  return need.verbs.flatMap((verb) =>
    (need.names ?? [undefined]).map((name) => ({
      verb,
      group: need.group,
      resource: need.resource,
      ...(name ? { name } : {}),
      ...(namespace ? { namespace } : {}),
    })),
  );
}

/** What a process's ServiceAccount is granted: each rule's requests, where they hold. */
export function grantsOf(process: Process): { req: Request; role: string }[] {
  const out: { req: Request; role: string }[] = [];
  for (const binding of manifests) {
    if (binding.kind !== 'ClusterRoleBinding' && binding.kind !== 'RoleBinding') continue;
    if (!(binding.subjects ?? []).some((s) => s.kind === 'ServiceAccount' && s.name === process && s.namespace === 'svc-system')) continue;
    const ref = binding.roleRef!;
    const namespace = binding.metadata.namespace;
    const role = find(ref.kind, ref.name, ref.kind === 'Role' ? namespace : undefined);
    for (const rule of role.rules ?? []) {
      for (const req of expand(rule)) out.push({ req: namespace ? { ...req, namespace } : req, role: `${ref.kind} ${ref.name}` });
    }
  }
  return out;
}

