// The Details card's pod, node and repository facts, and which status polls read the pod for
// them (server/pages/workspace-placement.ts): none while stopped, only the slow polls otherwise.
import { expect } from 'chai';
import type { KubeClient } from '../../../kube/client.js';
import { KubeApiError } from '../../../kube/errors.js';
import { readPlacement, slowPartsOf, sourceFactOf, STOPPED } from '../../../server/pages/workspace-placement.js';
import type { Workspace } from '../../../contract/workspace.js';
import type { WorkspaceView } from '../../../web/templates/format.js';

/** A client whose only answer is `pod` (or a 404 without one), recording what was read. */
function podReader(pod?: { spec?: { nodeName?: string } }, failWith?: KubeApiError): { kube: KubeClient; reads: string[] } {
  const reads: string[] = [];
  const kube = {
    async get(resource: { plural: string }, name: string, namespace: string) {
      reads.push(`${resource.plural} ${namespace}/${name}`);
      if (failWith) throw failWith;
      if (!pod) throw new KubeApiError(404, { reason: 'NotFound', message: `pods "${name}" not found` }, 'GET', `/api/v1/namespaces/${namespace}/pods/${name}`);
      return pod;
    },
  } as unknown as KubeClient;
  return { kube, reads };
}

/** A Workspace as the page reads it (its view) and as the repository fact reads it. */
type Read = Workspace & WorkspaceView;
const ws = (phase: string, extra: Partial<Workspace> = {}): Read =>
  ({ metadata: { name: 'dev', namespace: 'svc-alice' }, spec: { imageRef: { name: 'ubuntu' } }, status: { phase, podName: 'dev-0' }, ...extra }) as unknown as Read;

describe("the Details card's pod, node and repository", () => {
  it('says a stopped workspace has no pod without reading anything, on the page and on every poll', async () => {
    const { kube, reads } = podReader({ spec: { nodeName: 'n1' } });
    expect(await readPlacement(kube, ws('Suspended'), 'svc-alice')).to.deep.equal(STOPPED);
    expect(await slowPartsOf(kube, ws('Suspended'), 'svc-alice', true)).to.deep.include({ placement: STOPPED });
    expect(await slowPartsOf(kube, ws('Suspended'), 'svc-alice', false)).to.deep.include({ placement: STOPPED });
    expect(reads).to.deep.equal([]);
  });

  it('reads the pod of a starting workspace on the polls that ask for slow parts only', async () => {
    const { kube, reads } = podReader({ spec: { nodeName: 'gpu-node-3' } });
    expect((await slowPartsOf(kube, ws('Starting'), 'svc-alice', false)).placement, 'kept as shown').to.equal(undefined);
    expect(reads).to.deep.equal([]);
    expect((await slowPartsOf(kube, ws('Starting'), 'svc-alice', true)).placement).to.deep.equal({ pod: 'dev-0', node: 'gpu-node-3' });
    expect(reads).to.deep.equal(['pods svc-alice/dev-0']);
  });

  it('says a pod not scheduled, not there yet, or not readable in its place, never failing the page', async () => {
    expect(await readPlacement(podReader({ spec: {} }).kube, ws('Pending'), 'svc-alice')).to.deep.equal({ pod: 'dev-0' });
    expect(await readPlacement(podReader().kube, ws('Starting'), 'svc-alice')).to.deep.equal({ note: 'not created yet' });
    const forbidden = new KubeApiError(403, { reason: 'Forbidden', message: 'pods "dev-0" is forbidden: User "x" cannot get resource "pods"' }, 'GET', '/api/v1/namespaces/svc-alice/pods/dev-0');
    expect(await readPlacement(podReader(undefined, forbidden).kube, ws('Failed'), 'svc-alice')).to.deep.equal({ note: 'cannot be read: pods "dev-0" is forbidden: User "x" cannot get resource "pods"' });
  });

  it('names the repository, its ref and folder, and where the clone is in the hook’s words', () => {
    const cloned = ws('Running', {
      spec: { imageRef: { name: 'ubuntu' }, source: { git: { url: 'https://git.example.com/team/api.git', ref: 'v1.2.0', path: 'src/api/' } } },
      status: { phase: 'Running', conditions: [{ type: 'Cloned', status: 'True', reason: 'Cloned', message: 'Cloned https://git.example.com/team/api.git (tag v1.2.0) into ~/src/api.', lastTransitionTime: '2030-01-01T00:00:00Z' }] },
    } as Partial<Workspace>);
    expect(sourceFactOf(cloned)).to.deep.equal({ url: 'https://git.example.com/team/api.git', ref: 'v1.2.0', directory: 'src/api', state: 'Cloned https://git.example.com/team/api.git (tag v1.2.0) into ~/src/api.' });
    const fresh = ws('Suspended', { spec: { imageRef: { name: 'ubuntu' }, source: { git: { url: 'https://git.example.com/team/api.git' } } } } as Partial<Workspace>);
    expect(sourceFactOf(fresh)).to.deep.equal({ url: 'https://git.example.com/team/api.git', directory: 'api', state: 'It is cloned into the home when the workspace first starts.' });
    expect(sourceFactOf(ws('Running'))).to.equal(undefined);
  });
});
