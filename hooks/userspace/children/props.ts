// What the UserSpace child constructs render from: plain, already validated values. The hook
// decides (quota parsing, LimitRange defaults, API server addresses); the constructs only draw.
import type { ObjectMeta } from '../../../imports/k8s.cjs';
import { FIELD_MANAGERS, LABELS } from '../../../kube/group.js';
import type { NETWORK_POLICIES } from '../../../contract/user-space.js';

/** `spec.networkPolicy`, as the CRD enumerates it. */
export type NetworkPolicyMode = (typeof NETWORK_POLICIES)[number];

export interface PortSpec {
  port: number;
  protocol: string;
}

/** Addresses that answer as the API server, with the ports they answer on. */
export interface ApiServerRule {
  cidrs: string[];
  ports: PortSpec[];
}

export interface MirroredSecret {
  name: string;
  type: string;
  data: Record<string, string>;
}

export interface UserSpaceChildrenProps {
  /** The UserSpace's metadata.name. */
  userSpace: string;
  /** `svc-<userSpace>`. */
  namespace: string;
  /** spec.owner: the cluster user bound as the owner. */
  owner: string;
  quota: { cpu: string; memory: string; storage: string; gpu: number; workspaces: number };
  gpuResource: string;
  /** Container defaults of the LimitRange; a resource absent here gets no default. */
  containerDefaults: { request: Record<string, string>; limit: Record<string, string> };
  networkPolicy: NetworkPolicyMode;
  apiServer: ApiServerRule[];
  /** `den.dev/role: admin`: also bind the owner and `session` to `den-admin`. */
  admin: boolean;
  /** `den.dev/disabled: "true"`: every binding renders without subjects. */
  disabled: boolean;
  pullSecrets: MirroredSecret[];
}

/** Labels every child carries, so the loop and people can find what a UserSpace made. */
export function childLabels(props: Pick<UserSpaceChildrenProps, 'userSpace'>): Record<string, string> {
  return {
    [LABELS.userSpace]: props.userSpace,
    [LABELS.managedBy]: FIELD_MANAGERS.manager,
  };
}

/** Metadata of a child: explicit name, the user namespace when namespaced, and the labels. */
export function childMetadata(
  props: Pick<UserSpaceChildrenProps, 'userSpace' | 'namespace'>,
  name: string,
  opts: { namespaced: boolean; labels?: Record<string, string> },
): ObjectMeta {
  return {
    name,
    ...(opts.namespaced ? { namespace: props.namespace } : {}),
    labels: { ...childLabels(props), ...opts.labels },
  };
}
