// ClusterRole `svc-userspace-<name>` (SPEC 1.2 rules 5-6): this one UserSpace, and the catalog.
import { Construct } from 'constructs';
import { KubeClusterRole, type PolicyRule } from '../../../imports/k8s.cjs';
import { GROUP, PLURALS } from '../../../kube/group.js';
import { childMetadata, type UserSpaceChildrenProps } from './props.js';

export function userSpaceAccessName(userSpace: string): string {
  return `svc-userspace-${userSpace}`;
}

/**
 * `list` cannot be limited by resourceNames, so the rule names only get, watch and patch; patch
 * exists for the owner's SSH keys, and the validating webhook refuses every other field (rule 6).
 */
export function userSpaceAccessRules(userSpace: string): PolicyRule[] {
  return [
    { apiGroups: [GROUP], resources: [PLURALS.userSpace], resourceNames: [userSpace], verbs: ['get', 'watch', 'patch'] },
    { apiGroups: [GROUP], resources: [PLURALS.workspaceImage], verbs: ['get', 'list', 'watch', 'use'] },
  ];
}

export class UserSpaceClusterRole extends Construct {
  constructor(scope: Construct, id: string, props: UserSpaceChildrenProps) {
    super(scope, id);
    new KubeClusterRole(this, 'Resource', {
      metadata: childMetadata(props, userSpaceAccessName(props.userSpace), { namespaced: false }),
      rules: userSpaceAccessRules(props.userSpace),
    });
  }
}
