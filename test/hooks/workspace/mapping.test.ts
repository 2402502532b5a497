import { expect } from 'chai';
import { workspaceOfPod, workspacesUsingImage } from '../../../hooks/workspace/sync.js';
import { NAME, NAMESPACE, POD_STATUS, pod, workspace } from './inputs.js';

describe('workspaceOfPod', () => {
  it('answers the Workspace named by the den.dev/workspace label, in the pod namespace', () => {
    expect(workspaceOfPod(pod(POD_STATUS.ready()))).to.deep.equal({ namespace: NAMESPACE, name: NAME });
  });

  it('answers nothing for a pod without the label or without a namespace', () => {
    expect(workspaceOfPod(pod(POD_STATUS.ready(), { labels: { app: 'web' } }))).to.equal(undefined);
    expect(workspaceOfPod(pod(POD_STATUS.ready(), { labels: { 'den.dev/workspace': '' } }))).to.equal(undefined);
    expect(workspaceOfPod({ metadata: { name: 'x', labels: { 'den.dev/workspace': NAME } } })).to.equal(undefined);
  });
});

describe('workspacesUsingImage', () => {
  const named = (namespace: string, name: string, image: string) => {
    const w = workspace({ imageRef: { name: image } });
    return { ...w, metadata: { ...w.metadata, namespace, name } };
  };

  it('answers every Workspace that references the image, sorted by namespace and name', () => {
    const workspaces = [
      named('svc-bob', 'b2', 'ubuntu'),
      named('svc-alice', 'a1', 'debian'),
      named('svc-alice', 'a2', 'ubuntu'),
      named('svc-bob', 'b1', 'ubuntu'),
    ];
    expect(workspacesUsingImage('ubuntu', workspaces)).to.deep.equal([
      { namespace: 'svc-alice', name: 'a2' },
      { namespace: 'svc-bob', name: 'b1' },
      { namespace: 'svc-bob', name: 'b2' },
    ]);
  });

  it('answers nothing when no Workspace references the image', () => {
    expect(workspacesUsingImage('fedora', [named('svc-alice', 'a1', 'ubuntu')])).to.deep.equal([]);
  });

  it('accepts any iterable, such as an informer cache', () => {
    const cache = new Map([['svc-alice/a1', named('svc-alice', 'a1', 'ubuntu')]]);
    expect(workspacesUsingImage('ubuntu', cache.values())).to.deep.equal([{ namespace: 'svc-alice', name: 'a1' }]);
  });
});
