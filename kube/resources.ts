// Where each kind Den touches lives in the Kubernetes REST API.
import { API_VERSION } from './group.js';

export interface ResourceType {
  /** apiVersion as written in objects: `v1`, `apps/v1`, `den.dev/v1alpha1`. */
  apiVersion: string;
  kind: string;
  /** Lower-case plural used in paths and RBAC rules. */
  plural: string;
  namespaced: boolean;
}

function type(apiVersion: string, kind: string, plural: string, namespaced: boolean): ResourceType {
  return { apiVersion, kind, plural, namespaced };
}

export const RESOURCES = {
  namespace: type('v1', 'Namespace', 'namespaces', false),
  pod: type('v1', 'Pod', 'pods', true),
  service: type('v1', 'Service', 'services', true),
  serviceAccount: type('v1', 'ServiceAccount', 'serviceaccounts', true),
  secret: type('v1', 'Secret', 'secrets', true),
  configMap: type('v1', 'ConfigMap', 'configmaps', true),
  event: type('v1', 'Event', 'events', true),
  persistentVolumeClaim: type('v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true),
  resourceQuota: type('v1', 'ResourceQuota', 'resourcequotas', true),
  limitRange: type('v1', 'LimitRange', 'limitranges', true),
  statefulSet: type('apps/v1', 'StatefulSet', 'statefulsets', true),
  networkPolicy: type('networking.k8s.io/v1', 'NetworkPolicy', 'networkpolicies', true),
  endpointSlice: type('discovery.k8s.io/v1', 'EndpointSlice', 'endpointslices', true),
  role: type('rbac.authorization.k8s.io/v1', 'Role', 'roles', true),
  roleBinding: type('rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings', true),
  clusterRole: type('rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', false),
  clusterRoleBinding: type('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'clusterrolebindings', false),
  lease: type('coordination.k8s.io/v1', 'Lease', 'leases', true),
  mutatingWebhookConfiguration: type('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', false),
  validatingWebhookConfiguration: type('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false),
  customResourceDefinition: type('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'customresourcedefinitions', false),
  workspace: type(API_VERSION, 'Workspace', 'workspaces', true),
  workspaceImage: type(API_VERSION, 'WorkspaceImage', 'workspaceimages', false),
  userSpace: type(API_VERSION, 'UserSpace', 'userspaces', false),
  imageRegistry: type(API_VERSION, 'ImageRegistry', 'imageregistries', false),
} as const satisfies Record<string, ResourceType>;

const byKind = new Map<string, ResourceType>(
  Object.values(RESOURCES).map((r) => [`${r.kind}.${r.apiVersion}`, r]),
);

/** The resource type of an object's `kind` and `apiVersion`, or undefined when Den does not know it. */
export function resourceOf(apiVersion: string, kind: string): ResourceType | undefined {
  return byKind.get(`${kind}.${apiVersion}`);
}

/** `Kind.apiVersion`, the key of the hook contract's `children` map (DESIGN.md). */
export function childKey(r: Pick<ResourceType, 'apiVersion' | 'kind'>): string {
  return `${r.kind}.${r.apiVersion}`;
}

/** API group of an apiVersion: `""` for the core group. */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export interface PathOptions {
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** REST path of a collection, an object, or an object's subresource. */
export function resourcePath(r: ResourceType, opts: PathOptions = {}): string {
  const prefix = r.apiVersion.includes('/') ? `/apis/${r.apiVersion}` : `/api/${r.apiVersion}`;
  let path = prefix;
  if (r.namespaced && opts.namespace !== undefined) path += `/namespaces/${encodeURIComponent(opts.namespace)}`;
  path += `/${r.plural}`;
  if (opts.name !== undefined) path += `/${encodeURIComponent(opts.name)}`;
  if (opts.subresource !== undefined) path += `/${opts.subresource}`;
  return path;
}
