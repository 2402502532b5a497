// ServiceAccounts `workspace`, `session`, `session-readonly` (SPEC 1.2 rules 1-4).
import { Construct } from 'constructs';
import { KubeServiceAccount } from '../../../imports/k8s.cjs';
import { SERVICE_ACCOUNTS } from '../../../kube/group.js';
import { childMetadata, type UserSpaceChildrenProps } from './props.js';

export class UserServiceAccounts extends Construct {
  constructor(scope: Construct, id: string, props: UserSpaceChildrenProps) {
    super(scope, id);
    new KubeServiceAccount(this, SERVICE_ACCOUNTS.workspace, {
      metadata: childMetadata(props, SERVICE_ACCOUNTS.workspace, { namespaced: true }),
    });
    // The session identities are only ever used through TokenRequest (SPEC 5 rule 3); never
    // mounting them into pods by default keeps them apart from the pod identity (rule 4).
    for (const name of [SERVICE_ACCOUNTS.session, SERVICE_ACCOUNTS.sessionReadonly]) {
      new KubeServiceAccount(this, name, {
        metadata: childMetadata(props, name, { namespaced: true }),
        automountServiceAccountToken: false,
      });
    }
  }
}
