// Renders every child of one UserSpace in an in-memory cdk8s chart. Nothing is written to disk:
// the App is never synthesized, only the chart's JSON is read.
import { type App, Chart } from 'cdk8s';
import { inMemoryApp } from '../../loop/in-memory-app.js';
import { UserSpaceClusterRole } from './cluster-role.js';
import { AdminClusterRoleBinding, UserSpaceClusterRoleBinding } from './cluster-role-bindings.js';
import { UserLimits } from './limit-range.js';
import { UserNamespace } from './namespace.js';
import { UserIsolation } from './network-policy.js';
import type { UserSpaceChildrenProps } from './props.js';
import { PersonalSecrets } from './personal-secrets.js';
import { PullSecretMirrors } from './pull-secrets.js';
import { UserQuota } from './resource-quota.js';
import { UserRoleBindings } from './role-bindings.js';
import { WorkspaceRoles } from './roles.js';
import { UserServiceAccounts } from './service-accounts.js';

export class UserSpaceChildren extends Chart {
  constructor(scope: App, id: string, props: UserSpaceChildrenProps) {
    super(scope, id);
    // Construction order is output order: the namespace first, then what lives in it, so an
    // apply in list order never waits on a missing namespace.
    new UserNamespace(this, 'Namespace', props);
    new UserServiceAccounts(this, 'ServiceAccounts', props);
    new UserQuota(this, 'Quota', props);
    new UserLimits(this, 'Limits', props);
    new UserIsolation(this, 'Isolation', props);
    new WorkspaceRoles(this, 'Roles', props);
    new UserRoleBindings(this, 'RoleBindings', props);
    new UserSpaceClusterRole(this, 'ClusterRole', props);
    new UserSpaceClusterRoleBinding(this, 'ClusterRoleBinding', props);
    if (props.admin) new AdminClusterRoleBinding(this, 'AdminBinding', props);
    new PersonalSecrets(this, 'PersonalSecrets', props);
    new PullSecretMirrors(this, 'PullSecrets', props);
  }
}

/** The children as plain JSON objects, in a fixed order. */
export function renderUserSpaceChildren(props: UserSpaceChildrenProps): Record<string, unknown>[] {
  return new UserSpaceChildren(inMemoryApp(), 'userspace', props).toJson() as Record<string, unknown>[];
}
