// One process's identity: its ServiceAccount and the roles bound to it.
import { Construct } from 'constructs';
import {
  KubeClusterRole,
  KubeClusterRoleBinding,
  KubeRole,
  KubeRoleBinding,
  KubeServiceAccount,
} from 'cdk8s-plus-28/lib/imports/k8s.js';
import type { PolicyRule } from './rbac-rules.js';
import { commonLabels, NAMESPACE } from '../../contract/names.js';

export interface IdentityProps {
  /** Name of the ServiceAccount and of every role and binding. */
  name: string;
  clusterRules: PolicyRule[];
  /** Rules that hold only in the platform's namespace; none renders no Role. */
  namespaceRules?: PolicyRule[];
  serviceAccountAnnotations?: Record<string, string>;
}

export class Identity extends Construct {
  constructor(scope: Construct, id: string, props: IdentityProps) {
    super(scope, id);
    const labels = commonLabels();
    const subjects = [{ kind: 'ServiceAccount', name: props.name, namespace: NAMESPACE }];

    new KubeServiceAccount(this, 'service-account', {
      metadata: {
        name: props.name,
        namespace: NAMESPACE,
        labels,
        ...(props.serviceAccountAnnotations && Object.keys(props.serviceAccountAnnotations).length
          ? { annotations: props.serviceAccountAnnotations }
          : {}),
      },
    });
    new KubeClusterRole(this, 'cluster-role', {
      metadata: { name: props.name, labels },
      rules: props.clusterRules,
    });
    new KubeClusterRoleBinding(this, 'cluster-role-binding', {
      metadata: { name: props.name, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: props.name },
      subjects,
    });
    if (props.namespaceRules && props.namespaceRules.length > 0) {
      new KubeRole(this, 'role', {
        metadata: { name: props.name, namespace: NAMESPACE, labels },
        rules: props.namespaceRules,
      });
      new KubeRoleBinding(this, 'role-binding', {
        metadata: { name: props.name, namespace: NAMESPACE, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: props.name },
        subjects,
      });
    }
  }
}

/** The ClusterRole administrators are bound to; the manager binds it for `den.dev/role: admin` UserSpaces. */
export class AdminClusterRole extends Construct {
  constructor(scope: Construct, id: string, props: { name: string; rules: PolicyRule[] }) {
    super(scope, id);
    new KubeClusterRole(this, 'cluster-role', {
      metadata: { name: props.name, labels: commonLabels() },
      rules: props.rules,
    });
  }
}
