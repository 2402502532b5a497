// The platform's own namespace, svc-system.
import { Construct } from 'constructs';
import { KubeNamespace } from 'cdk8s-plus-28/lib/imports/k8s.js';
import { commonLabels, NAMESPACE } from '../../contract/names.js';

export class SystemNamespace extends Construct {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new KubeNamespace(this, 'namespace', {
      metadata: {
        name: NAMESPACE,
        labels: {
          ...commonLabels(),
          // Den's processes run with the restricted profile's settings; enforce it.
          'pod-security.kubernetes.io/enforce': 'restricted',
        },
      },
    });
  }
}
