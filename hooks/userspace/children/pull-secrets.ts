// Copies of the manager namespace's pull Secrets (SPEC 1.2 rule 7), same name, type and data.
import { Construct } from 'constructs';
import { KubeSecret } from '../../../imports/k8s.cjs';
import { LABELS } from '../../../kube/group.js';
import { childMetadata, type UserSpaceChildrenProps } from './props.js';

export class PullSecretMirrors extends Construct {
  constructor(scope: Construct, id: string, props: UserSpaceChildrenProps) {
    super(scope, id);
    for (const secret of props.pullSecrets) {
      new KubeSecret(this, secret.name, {
        metadata: childMetadata(props, secret.name, { namespaced: true, labels: { [LABELS.pullSecretMirror]: 'true' } }),
        type: secret.type,
        data: { ...secret.data },
      });
    }
  }
}
