// RoleBindings `svc-owner`, `svc-reader`, `svc-workspace-edit` (SPEC 1.2 rules 1-3).
import { Construct } from 'constructs';
import { KubeRoleBinding } from '../../../imports/k8s.cjs';
import { SERVICE_ACCOUNTS } from '../../../kube/group.js';
import { childMetadata, type UserSpaceChildrenProps } from './props.js';
import { READER_ROLE, USER_ROLE } from './roles.js';
import { bindingSubjects, clusterRoleRef, ownerSubject, roleRef, serviceAccountSubject } from './subjects.js';

export const OWNER_BINDING = 'svc-owner';
export const READER_BINDING = 'svc-reader';
export const WORKSPACE_EDIT_BINDING = 'svc-workspace-edit';

/** The built-in aggregated ClusterRole the workspace pod identity gets in its namespace only. */
export const BUILTIN_EDIT = 'edit';

export class UserRoleBindings extends Construct {
  constructor(scope: Construct, id: string, props: UserSpaceChildrenProps) {
    super(scope, id);
    new KubeRoleBinding(this, OWNER_BINDING, {
      metadata: childMetadata(props, OWNER_BINDING, { namespaced: true }),
      roleRef: roleRef(USER_ROLE),
      subjects: bindingSubjects(props, [ownerSubject(props), serviceAccountSubject(props, SERVICE_ACCOUNTS.session)]),
    });
    new KubeRoleBinding(this, READER_BINDING, {
      metadata: childMetadata(props, READER_BINDING, { namespaced: true }),
      roleRef: roleRef(READER_ROLE),
      subjects: bindingSubjects(props, [serviceAccountSubject(props, SERVICE_ACCOUNTS.sessionReadonly)]),
    });
    new KubeRoleBinding(this, WORKSPACE_EDIT_BINDING, {
      metadata: childMetadata(props, WORKSPACE_EDIT_BINDING, { namespaced: true }),
      roleRef: clusterRoleRef(BUILTIN_EDIT),
      subjects: bindingSubjects(props, [serviceAccountSubject(props, SERVICE_ACCOUNTS.workspace)]),
    });
  }
}
