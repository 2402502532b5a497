// ClusterRoleBindings: `svc-userspace-<name>` (SPEC 1.2 rule 5) and, for an administrator
// (`den.dev/role: admin`), `svc-admin-<name>` to `den-admin` (SPEC 1.7).
import { Construct } from 'constructs';
import { KubeClusterRoleBinding } from '../../../imports/k8s.cjs';
import { SERVICE_ACCOUNTS } from '../../../kube/group.js';
import { ADMIN_CLUSTER_ROLE } from '../../../contract/names.js';
import { userSpaceAccessName } from './cluster-role.js';
import { childMetadata, type UserSpaceChildrenProps } from './props.js';
import { bindingSubjects, clusterRoleRef, ownerSubject, serviceAccountSubject } from './subjects.js';


export function adminBindingName(userSpace: string): string {
  return `svc-admin-${userSpace}`;
}

export class UserSpaceClusterRoleBinding extends Construct {
  constructor(scope: Construct, id: string, props: UserSpaceChildrenProps) {
    super(scope, id);
    const name = userSpaceAccessName(props.userSpace);
    new KubeClusterRoleBinding(this, 'Resource', {
      metadata: childMetadata(props, name, { namespaced: false }),
      roleRef: clusterRoleRef(name),
      subjects: bindingSubjects(props, [
        ownerSubject(props),
        serviceAccountSubject(props, SERVICE_ACCOUNTS.session),
        serviceAccountSubject(props, SERVICE_ACCOUNTS.sessionReadonly),
      ]),
    });
  }
}

/** Read-scoped tokens (`session-readonly`) stay out: an administrator's API token for reading stays a reader. */
export class AdminClusterRoleBinding extends Construct {
  constructor(scope: Construct, id: string, props: UserSpaceChildrenProps) {
    super(scope, id);
    new KubeClusterRoleBinding(this, 'Resource', {
      metadata: childMetadata(props, adminBindingName(props.userSpace), { namespaced: false }),
      roleRef: clusterRoleRef(ADMIN_CLUSTER_ROLE),
      subjects: bindingSubjects(props, [ownerSubject(props), serviceAccountSubject(props, SERVICE_ACCOUNTS.session)]),
    });
  }
}
