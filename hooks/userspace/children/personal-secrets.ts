// The person's environment and git credentials Secrets (contract/personal.ts), created empty:
// the manager owns only their metadata, the person writes their data with their own token.
import { Construct } from 'constructs';
import { KubeSecret } from '../../../imports/k8s.cjs';
import { GIT_CREDENTIALS_SECRET, PERSONAL_ENV_SECRET, PERSONAL_LABEL } from '../../../contract/personal.js';
import { childMetadata, type UserSpaceChildrenProps } from './props.js';

export class PersonalSecrets extends Construct {
  constructor(scope: Construct, id: string, props: UserSpaceChildrenProps) {
    super(scope, id);
    new KubeSecret(this, PERSONAL_ENV_SECRET, {
      metadata: childMetadata(props, PERSONAL_ENV_SECRET, { namespaced: true, labels: { [PERSONAL_LABEL]: 'env' } }),
      type: 'Opaque',
    });
    new KubeSecret(this, GIT_CREDENTIALS_SECRET, {
      metadata: childMetadata(props, GIT_CREDENTIALS_SECRET, { namespaced: true, labels: { [PERSONAL_LABEL]: 'git-credentials' } }),
      type: 'Opaque',
    });
  }
}
