import { expect } from 'chai';
import { freshViewFrom } from '../../../hooks/admission/fresh-view.js';
import type { AdmissionResponse } from '../../../hooks/admission/review.js';
import { reviewWorkspaceValidationRechecked, type FreshView } from '../../../hooks/admission/webhooks.js';
import { denCrds } from '../../../contract/index.js';
import { RESOURCES } from '../../../kube/resources.js';
import { FakeApiServer } from '../../support/fake-apiserver.js';
import { generateSshKey } from '../../support/ssh-keys.js';
import { reviewOf, viewOf, type ViewContent } from './reviews.js';
import { claim, GPU, IMAGES, image, NOW, userSpace, workspace } from './world.js';

describe('a Workspace refusal is read again from the API server before it is answered', () => {
  const key = generateSshKey('ed25519').publicLine;
  const full = (): ViewContent => ({
    images: IMAGES,
    userSpaces: [userSpace('alice', [key], { cpu: '4', memory: '8Gi', storage: '50Gi', gpu: 1, workspaces: 2 })],
    workspaces: [workspace('one', { sshAuthorizedKeys: [key] }), workspace('two', { sshAuthorizedKeys: [key] })],
    claims: [claim('home-one-0', '10Gi'), claim('home-two-0', '10Gi')],
  });
  const create = (name: string, spec = {}) => reviewOf({ kind: 'Workspace', object: workspace(name, { sshAuthorizedKeys: [key], running: false, ...spec }) }).request;

  async function decide(cached: ViewContent, fresh: FreshView, request = create('three')) {
    const reversed: AdmissionResponse[] = [];
    const reads: string[] = [];
    const counting: FreshView = (namespace, imageName) => {
      reads.push(`${namespace} ${imageName}`);
      return fresh(namespace, imageName);
    };
    const answer = await reviewWorkspaceValidationRechecked(request, viewOf(cached), counting, { gpuResource: GPU, onReversed: (r) => reversed.push(r) }, NOW);
    return { answer, reversed, reads };
  }

  it('admits a workspace the cache counts over quota when the API server no longer holds the one that filled it', async () => {
    const now = full();
    now.workspaces = now.workspaces!.filter((w) => w.metadata?.name !== 'two');
    const { answer, reversed, reads } = await decide(full(), async () => viewOf(now));
    expect(answer.allowed, answer.status?.message).to.equal(true);
    expect(reads).to.deep.equal(['svc-alice python']);
    expect(reversed.map((r) => r.status?.message)).to.have.length(1);
    expect(reversed[0]!.status?.message).to.include('exceeded quota of UserSpace "alice" (spec.quota.workspaces)');
  });

  it('admits a workspace of a catalog entry created a moment ago that the cache has not seen', async () => {
    const cached = { ...full(), images: [] };
    const { answer } = await decide({ ...cached, workspaces: [] }, async () => viewOf({ ...full(), workspaces: [], images: [image('fresh-entry')] }), create('three', { imageRef: { name: 'fresh-entry' } }));
    expect(answer.allowed, answer.status?.message).to.equal(true);
  });

  it("refuses with what the API server holds when it refuses too", async () => {
    const now = full();
    now.workspaces!.push(workspace('four', { sshAuthorizedKeys: [key] }));
    const { answer, reversed } = await decide(full(), async () => viewOf(now));
    expect(answer.allowed).to.equal(false);
    expect(answer.status?.code).to.equal(403);
    expect(answer.status?.message).to.include('requested 1, used 3, limited 2');
    expect(reversed).to.deep.equal([]);
  });

  it("keeps the cache's refusal when the API server cannot be read", async () => {
    const { answer } = await decide(full(), async () => {
      throw new Error('connect ECONNREFUSED');
    });
    expect(answer.allowed).to.equal(false);
    expect(answer.status?.message).to.include('requested 1, used 2, limited 2');
  });

  it('reads nothing again for a refusal that rests on the object alone', async () => {
    const roomy = full();
    roomy.workspaces = [];
    const { answer, reads } = await decide(roomy, async () => {
      throw new Error('not to be called');
    }, create('three', { resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } }));
    expect(answer.allowed).to.equal(false);
    expect(answer.status?.code).to.equal(422);
    expect(reads).to.deep.equal([]);
  });

  it('reads nothing again for an admission', async () => {
    const roomy = full();
    roomy.workspaces = [];
    const { answer, reads } = await decide(roomy, async () => {
      throw new Error('not to be called');
    });
    expect(answer.allowed).to.equal(true);
    expect(reads).to.deep.equal([]);
  });

  describe('freshViewFrom', () => {
    let api: FakeApiServer;
    before(async () => {
      api = new FakeApiServer();
      await api.start();
      api.installCrds(denCrds().map((crd) => ({ ...crd })));
    });
    after(() => api.close());

    it("reads the entry, the namespace's owner, its Workspaces and its claims from the API server, and nothing of other namespaces", async () => {
      const world = full();
      api.seed(
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-alice' } },
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-bob' } },
        ...world.images!, ...world.userSpaces!, ...world.workspaces!, ...world.claims!,
        workspace('elsewhere', { sshAuthorizedKeys: [key] }, 'svc-bob'),
      );
      const view = await freshViewFrom(api.client())('svc-alice', 'python');
      expect(view.workspaceImage('python')?.metadata?.name).to.equal('python');
      expect(view.workspaceImage('custom-home'), 'an entry it was not asked for').to.equal(undefined);
      expect(view.userSpace('alice')?.spec?.quota?.workspaces).to.equal(2);
      expect(view.workspaces('svc-alice').map((w) => w.metadata?.name)).to.deep.equal(['one', 'two']);
      expect(view.claims('svc-alice').map((c) => c.metadata?.name)).to.deep.equal(['home-one-0', 'home-two-0']);
      expect(view.workspaces('svc-bob')).to.deep.equal([]);
      const missing = await freshViewFrom(api.client())('svc-nobody', 'no-such-entry');
      expect([missing.workspaceImage('no-such-entry'), missing.userSpace('nobody')]).to.deep.equal([undefined, undefined]);
      expect(api.requests.some((r) => r.method === 'GET' && r.path === `/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces`), 'a LIST of the namespace only').to.equal(true);
      api.remove(RESOURCES.workspace, 'elsewhere', 'svc-bob');
    });

    it('reads once for refusals in one namespace at the same moment', async () => {
      const fresh = freshViewFrom(api.client());
      const mark = api.requests.length;
      const [a, b] = await Promise.all([fresh('svc-alice', 'python'), fresh('svc-alice', 'python')]);
      expect(a).to.equal(b);
      expect(api.requests.slice(mark).map((r) => r.path).sort()).to.deep.equal([
        '/api/v1/namespaces/svc-alice/persistentvolumeclaims',
        '/apis/den.dev/v1alpha1/namespaces/svc-alice/workspaces',
        '/apis/den.dev/v1alpha1/userspaces/alice',
        '/apis/den.dev/v1alpha1/workspaceimages/python',
      ]);
      await fresh('svc-alice', 'python');
      expect(api.requests.length - mark, 'a later refusal reads again').to.equal(8);
    });
  });
});
