// What stands between a request and storage, in kube-apiserver's order: RBAC (and its escalation
// check on Roles and bindings), NamespaceLifecycle, name and metadata validation, CRD defaults and
// schema, the mutating and validating webhooks, LimitRanger and ResourceQuota admission.
import type { KubeObject } from '../../../kube/client.js';
import { dns1035LabelProblems, metadataProblems } from '../../../kube/names.js';
import { groupOf, RESOURCES, type ResourceType } from '../../../kube/resources.js';
import { callWebhooks, type AdmissionOutcome } from './admission.js';
import { ApiError, status } from './api-error.js';
import { isCore, typeKey } from './helpers.js';
import { BUILT_IN_LIST_KEYS, type ListKeys } from './managed-fields.js';
import { clone } from './patch.js';
import { AdmissionRefusal, applyLimitDefaults, checkLimitRanges, checkQuotas, defaultPodRequests, type Quota } from './quota.js';
import { authorize, clusterRoleRules, escalationMessage, forbiddenMessage, ruleNotHeld, type Attributes, type PolicyRule, type UserInfo } from './rbac.js';
import { Store } from './store.js';

export abstract class AdmissionChain extends Store {
  /**
   * An object as kube-apiserver's built-in admission would store it on create (namespace
   * lifecycle, LimitRange defaults and checks, ResourceQuota), for harness controllers that
   * then seed() it; throws the ApiError a real create would answer. Webhooks are not called.
   */
  admitBuiltIn(o: KubeObject): KubeObject {
    const t = this.typeOfObject(o);
    const obj = clone(o);
    this.checkNamespace(t, obj.metadata?.namespace, obj.metadata!.name!);
    const limitRanges = t.namespaced ? this.objects(RESOURCES.limitRange, obj.metadata!.namespace) : [];
    if (isCore(t, 'pods')) {
      defaultPodRequests(obj);
      applyLimitDefaults(obj, limitRanges);
    }
    this.builtInValidation(t, obj, limitRanges)();
    return obj;
  }

  protected rbacObjects() {
    return {
      clusterRoles: (name: string) => this.find(RESOURCES.clusterRole, undefined, name) as any,
      roles: (ns: string, name: string) => this.find(RESOURCES.role, ns, name) as any,
      clusterRoleBindings: () => [...(this.data.get(typeKey(RESOURCES.clusterRoleBinding))?.values() ?? [])] as any,
      roleBindings: (ns: string) => [...(this.data.get(typeKey(RESOURCES.roleBinding))?.values() ?? [])].filter((b) => b.metadata?.namespace === ns) as any,
    };
  }

  protected authorize(user: UserInfo, a: Attributes): void {
    if (!authorize(this.rbacObjects(), user, a)) throw new ApiError(403, status(403, 'Forbidden', forbiddenMessage(user, a), { ...(a.name ? { name: a.name } : {}), ...(a.group ? { group: a.group } : {}), kind: a.resource }));
  }

  /** Evaluates an access review without throwing. */
  allowed(user: UserInfo, a: Attributes): boolean {
    try {
      this.authorize(user, a);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * RBAC's escalation check on writes of Roles and bindings (kube-apiserver's policybased
   * storage): system:masters pass; a Role needs `escalate` on it, a binding `bind` on its
   * roleRef, or else the author must hold every rule granted. A binding's roleRef must
   * then exist: `roles.rbac.authorization.k8s.io "x" not found` (404).
   */
  protected checkGrant(t: ResourceType, obj: KubeObject, user: UserInfo): void {
    if (user.groups.includes('system:masters') || groupOf(t.apiVersion) !== 'rbac.authorization.k8s.io') return;
    const objects = this.rbacObjects();
    const namespace = t.namespaced ? obj.metadata?.namespace : undefined;
    const name = obj.metadata?.name ?? '';
    const label = `${t.plural}.rbac.authorization.k8s.io`;
    let rules: PolicyRule[];
    if (t.plural === 'roles' || t.plural === 'clusterroles') {
      if (authorize(objects, user, { verb: 'escalate', group: 'rbac.authorization.k8s.io', resource: t.plural, namespace, name })) return;
      rules = (obj as { rules?: PolicyRule[] }).rules ?? [];
    } else if (t.plural === 'rolebindings' || t.plural === 'clusterrolebindings') {
      const ref = (obj as { roleRef?: { kind?: string; name?: string } }).roleRef ?? {};
      const refType = ref.kind === 'Role' ? RESOURCES.role : RESOURCES.clusterRole;
      const refName = ref.name ?? '';
      if (authorize(objects, user, { verb: 'bind', group: 'rbac.authorization.k8s.io', resource: refType.plural, namespace, name: refName })) return;
      const role = ref.kind === 'Role' && namespace ? (this.find(RESOURCES.role, namespace, refName) as { rules?: PolicyRule[] } | undefined) : undefined;
      const found = ref.kind === 'Role' ? role && (role.rules ?? []) : clusterRoleRules(objects, refName);
      if (!found) throw this.notFound(refType, refName);
      rules = found;
    } else return;
    const missing = ruleNotHeld(objects, user, rules, namespace);
    if (missing) throw new ApiError(403, status(403, 'Forbidden', escalationMessage(label, name, user, missing), { name, group: 'rbac.authorization.k8s.io', kind: t.plural }));
  }

  /** The NamespaceLifecycle admission plugin: no new content in a missing or terminating namespace. */
  protected checkNamespace(t: ResourceType, namespace: string | undefined, name: string): void {
    if (!t.namespaced) return;
    if (!namespace) throw new ApiError(400, status(400, 'BadRequest', 'the namespace of the object does not match the namespace on the request'));
    const ns = this.find(RESOURCES.namespace, undefined, namespace);
    if (!ns) throw this.notFound(RESOURCES.namespace, namespace);
    if (ns.metadata?.deletionTimestamp) {
      const group = groupOf(t.apiVersion);
      const label = group ? `${t.plural}.${group}` : t.plural;
      const message = `${label} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`;
      throw new ApiError(403, status(403, 'Forbidden', message, { name, ...(group ? { group } : {}), kind: t.plural, causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }] }));
    }
  }

  protected validateName(t: ResourceType, name: string | undefined): void {
    if (!name) throw new ApiError(422, status(422, 'Invalid', `${t.kind} "" is invalid: metadata.name: Required value: name or generateName is required`, { kind: t.kind, causes: [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }] }));
    const re = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
    if (!re.test(name) || name.length > 253) {
      const msg = `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
      throw new ApiError(422, status(422, 'Invalid', `${t.kind} "${name}" is invalid: metadata.name: ${msg}`, { name, kind: t.kind, causes: [{ reason: 'FieldValueInvalid', message: msg, field: 'metadata.name' }] }));
    }
  }

  /** kube-apiserver's checks of labels, annotation keys, and a Service's name (a DNS-1035 label). */
  protected validateMetadata(t: ResourceType, obj: KubeObject): void {
    const name = obj.metadata?.name ?? '';
    const problems = metadataProblems(obj.metadata);
    if (t.plural === 'services' && t.apiVersion === 'v1') problems.unshift(...dns1035LabelProblems(name).map((m) => `metadata.name: Invalid value: ${JSON.stringify(name)}: ${m}`));
    if (problems.length === 0) return;
    const message = `${t.kind} "${name}" is invalid: ${problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`}`;
    throw new ApiError(422, status(422, 'Invalid', message, { name, kind: t.kind, causes: problems.map((p) => ({ reason: 'FieldValueInvalid', message: p.replace(/^[^:]+: /, ''), field: p.split(':')[0]! })) }));
  }

  protected async admit(t: ResourceType, operation: 'CREATE' | 'UPDATE', obj: KubeObject, old: KubeObject | undefined, user: UserInfo): Promise<KubeObject> {
    let current = this.schemas.default(obj);
    const configs = (kind: ResourceType) => [...(this.data.get(typeKey(kind))?.values() ?? [])];
    const namespaceOf = (ns: string) => this.find(RESOURCES.namespace, undefined, ns);
    const outcome: AdmissionOutcome = await callWebhooks({ configs: configs(RESOURCES.mutatingWebhookConfiguration), mutating: true, type: t, operation, object: current, oldObject: old, user, namespaceOf });
    current = this.schemas.default(outcome.object);
    this.schemas.validate(current, old);
    await callWebhooks({ configs: configs(RESOURCES.validatingWebhookConfiguration), mutating: false, type: t, operation, object: current, oldObject: old, user, namespaceOf });
    return current;
  }

  /**
   * LimitRanger's and ResourceQuota's validation of a new object, which run after the webhooks;
   * answers how to count it in the quotas' status.used (as the quota admission plugin writes it).
   */
  protected builtInValidation(t: ResourceType, obj: KubeObject, limitRanges: KubeObject[]): () => void {
    if (!t.namespaced) return () => {};
    try {
      if (isCore(t, 'pods')) checkLimitRanges('Pod', obj, limitRanges);
      if (isCore(t, 'persistentvolumeclaims')) checkLimitRanges('PersistentVolumeClaim', obj, limitRanges);
      const counted = checkQuotas(typeKey(t), obj, this.quotasIn(obj.metadata!.namespace!));
      return () => {
        for (const { quota, used } of counted) {
          const live = this.find(RESOURCES.resourceQuota, quota.metadata!.namespace, quota.metadata!.name!);
          if (live) this.put(RESOURCES.resourceQuota, this.stamp({ ...clone(live), status: { ...(live as Quota).status, used } } as KubeObject, RESOURCES.resourceQuota, live), 'MODIFIED');
        }
      };
    } catch (err) {
      if (!(err instanceof AdmissionRefusal)) throw err;
      const group = groupOf(t.apiVersion);
      const name = obj.metadata!.name!;
      throw new ApiError(403, status(403, 'Forbidden', `${group ? `${t.plural}.${group}` : t.plural} "${name}" is forbidden: ${err.message}`, { name, ...(group ? { group } : {}), kind: t.plural }));
    }
  }

  protected alreadyExists(t: ResourceType, name: string): ApiError {
    const group = groupOf(t.apiVersion);
    const label = group ? `${t.plural}.${group}` : t.plural;
    return new ApiError(409, status(409, 'AlreadyExists', `${label} "${name}" already exists`, { name, ...(group ? { group } : {}), kind: t.plural }));
  }

  protected conflict(t: ResourceType, name: string): ApiError {
    const group = groupOf(t.apiVersion);
    const label = group ? `${t.plural}.${group}` : t.plural;
    return new ApiError(409, status(409, 'Conflict', `Operation cannot be fulfilled on ${label} "${name}": the object has been modified; please apply your changes to the latest version and try again`, { name, ...(group ? { group } : {}), kind: t.plural }));
  }

  /** How server-side apply merges this kind's lists: its CRD schema's list-map keys, else the built-in ones. */
  protected listKeysOf(t: ResourceType): ListKeys {
    const crd = this.schemas.listKeysOf(t.apiVersion, t.kind);
    return crd ? (path) => (path[0] === 'metadata' ? BUILT_IN_LIST_KEYS(path) : crd(path)) : BUILT_IN_LIST_KEYS;
  }

}
