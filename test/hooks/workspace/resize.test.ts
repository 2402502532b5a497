// A resize as the Workspace hook sees it: the workspace container's resources it renders
// against those of the observed StatefulSet, compared as quantities.
import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { resizeMessage, resourceChanges } from '../../../hooks/workspace/resize.js';

function statefulSet(resources: Record<string, Record<string, string | number>> | undefined, container = 'workspace'): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'dev' }, spec: { template: { spec: { containers: [{ name: container, image: 'ubuntu', ...(resources ? { resources } : {}) }] } } } };
}

describe('resourceChanges (a Workspace resize)', () => {
  it('names each request and limit that changed, in a stable order', () => {
    const before = statefulSet({ requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '2', memory: '2Gi' } });
    const after = statefulSet({ requests: { cpu: '2', memory: '2Gi' }, limits: { cpu: '4', memory: '2Gi', 'nvidia.com/gpu': '1' } });
    const changes = resourceChanges(before, after);
    expect(changes).to.deep.equal(['cpu request 1 → 2', 'cpu limit 2 → 4', 'nvidia.com/gpu limit none → 1']);
    expect(resizeMessage(changes)).to.equal('Resized: cpu request 1 → 2, cpu limit 2 → 4, nvidia.com/gpu limit none → 1. A running pod restarts with the new size; the home volume is kept.');
  });

  it('sees no change where the API server wrote the same quantity another way', () => {
    expect(resourceChanges(statefulSet({ requests: { cpu: '1', memory: '1Gi' } }), statefulSet({ requests: { cpu: '1000m', memory: '1024Mi' } }))).to.deep.equal([]);
    expect(resourceChanges(statefulSet({ requests: { cpu: 1 } }), statefulSet({ requests: { cpu: '1' } }))).to.deep.equal([]);
  });

  it('counts resources removed as well as added', () => {
    expect(resourceChanges(statefulSet({ limits: { memory: '4Gi' } }), statefulSet(undefined))).to.deep.equal(['memory limit 4Gi → none']);
  });
});
