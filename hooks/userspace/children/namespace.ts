// Namespace `svc-<userspace>` (SPEC 1.1, 1.2).
import { Construct } from 'constructs';
import { KubeNamespace } from '../../../imports/k8s.cjs';
import { childMetadata, type UserSpaceChildrenProps } from './props.js';

/**
 * Pod Security "baseline" is enforced because the `workspace` identity holds `edit` in this
 * namespace (rule 1) and could otherwise start privileged or hostPath pods.
 */
export const POD_SECURITY_LABELS = {
  'pod-security.kubernetes.io/enforce': 'baseline',
} as const;

export class UserNamespace extends Construct {
  constructor(scope: Construct, id: string, props: UserSpaceChildrenProps) {
    super(scope, id);
    new KubeNamespace(this, 'Resource', {
      metadata: childMetadata(props, props.namespace, { namespaced: false, labels: { ...POD_SECURITY_LABELS } }),
    });
  }
}
