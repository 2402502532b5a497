import { expect } from 'chai';
import { podAsRead } from '../../../hooks/workspace/pod.js';
import { syncWorkspace } from '../../../hooks/workspace/sync.js';
import type { KubeObject } from '../../../kube/client.js';
import { IMAGE_REF, POD_STATUS, input, observedService, observedStatefulSet, pod, terminating } from './inputs.js';

describe('the Workspace controller pod cache', () => {
  const withSpec = (p: KubeObject): KubeObject => ({
    ...p,
    metadata: { ...p.metadata, managedFields: [{ manager: 'kubelet', operation: 'Update', subresource: 'status', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': {} } }] },
    spec: { containers: [{ name: 'workspace', image: IMAGE_REF, command: ['sleep', 'infinity'], env: [{ name: 'HOME', value: '/home/dev' }], volumeMounts: [{ name: 'home', mountPath: '/home/dev' }] }], volumes: [{ name: 'home', persistentVolumeClaim: { claimName: 'home' } }], nodeName: 'node-1' },
  });

  const cases: [string, KubeObject][] = [
    ['ready', pod(POD_STATUS.ready())],
    ['image pull back-off', pod(POD_STATUS.imagePullBackOff())],
    ['crash loop', pod(POD_STATUS.crashLoopBackOff())],
    ['unschedulable', pod(POD_STATUS.unschedulable())],
    ['evicted', pod(POD_STATUS.evicted())],
    ['terminating', terminating(POD_STATUS.ready())],
  ];
  for (const [what, observed] of cases) {
    it(`makes the hook write the same status for a ${what} pod as cached as for the whole pod`, () => {
      const whole = withSpec(observed);
      const opts = { service: observedService(), statefulSet: observedStatefulSet(1, 1) };
      expect(syncWorkspace(input({ ...opts, pods: [podAsRead(whole)] }))).to.deep.equal(syncWorkspace(input({ ...opts, pods: [whole] })));
    });
  }

  it('keeps neither managedFields nor the pod spec beyond its containers\' names and images', () => {
    const cached = podAsRead(withSpec(pod(POD_STATUS.ready())));
    expect(cached.metadata).to.not.have.property('managedFields');
    expect(cached.spec).to.deep.equal({ containers: [{ name: 'workspace', image: IMAGE_REF }], initContainers: undefined });
    expect(cached.status).to.deep.equal(POD_STATUS.ready());
  });
});
