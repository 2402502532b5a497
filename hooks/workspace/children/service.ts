// The headless Service `<workspace>` that governs the StatefulSet's pod DNS name (SPEC 1.3 step 4).
import { Construct } from 'constructs';
import { KubeService } from '../../../imports/k8s.cjs';
import { childMetadata, podSelector, type WorkspaceChildrenProps } from './props.js';

export class WorkspaceService extends Construct {
  constructor(scope: Construct, id: string, props: WorkspaceChildrenProps) {
    super(scope, id);
    // Headless and without ports: it only gives the pod its stable DNS identity
    // (<workspace>-0.<workspace>.<namespace>.svc). SSH reaches the pod through the gateway's
    // pods/exec, never through this Service, so no port is published. The API server accepts a
    // port-less Service only when clusterIP is None, which is why cdk8s-plus' Service (it
    // insists on a port) is not used.
    new KubeService(this, 'Service', {
      metadata: childMetadata(props),
      spec: {
        clusterIp: 'None',
        selector: podSelector(props),
      },
    });
  }
}
