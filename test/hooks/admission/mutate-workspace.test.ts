import { expect } from 'chai';
import type { Workspace } from '../../../hooks/admission/objects.js';
import { reviewWorkspaceMutation } from '../../../hooks/admission/webhooks.js';
import { jsonPatch } from '../../support/fake-apiserver/patch.js';
import { generateTestKeys, type TestKeys } from './keys.js';
import { decodedPatch, reviewOf, viewOf } from './reviews.js';
import { IMAGES, userSpace, workspace } from './world.js';

describe('mutating webhook on Workspace', () => {
  let keys: TestKeys;
  before(() => {
    keys = generateTestKeys();
  });

  const bob = { username: 'bob@example.com', uid: 'u-bob', groups: ['system:authenticated'] };

  /** The object the API server stores after applying the webhook's patch. */
  function mutated(object: Workspace, opts: { namespace?: string; operation?: 'CREATE' | 'UPDATE'; ownerKeys?: string[] } = {}) {
    const view = viewOf({ images: IMAGES, userSpaces: [userSpace('alice', opts.ownerKeys ?? [keys.ed25519, keys.rsa])] });
    const review = reviewOf({ kind: 'Workspace', object, oldObject: opts.operation === 'UPDATE' ? object : undefined, operation: opts.operation, namespace: opts.namespace, userInfo: bob });
    const response = reviewWorkspaceMutation(review.request, view);
    expect(response.allowed).to.equal(true);
    expect(response.uid).to.equal(review.request.uid);
    if (response.patch) expect(response.patchType).to.equal('JSONPatch');
    return { object: jsonPatch(object, decodedPatch(response) as never) as Workspace, response };
  }

  it("copies the owner's keys into a workspace that names none and records the requester", () => {
    const { object } = mutated(workspace('dev'));
    expect(object.spec?.sshAuthorizedKeys).to.deep.equal([keys.ed25519, keys.rsa]);
    expect(object.metadata?.annotations).to.deep.equal({ 'den.dev/requester': 'bob@example.com' });
  });

  it('copies the keys when the workspace names an empty list', () => {
    const { object } = mutated(workspace('dev', { sshAuthorizedKeys: [] }));
    expect(object.spec?.sshAuthorizedKeys).to.deep.equal([keys.ed25519, keys.rsa]);
  });

  it('keeps the keys a workspace names', () => {
    const { object } = mutated(workspace('dev', { sshAuthorizedKeys: [keys.ecdsa256] }));
    expect(object.spec?.sshAuthorizedKeys).to.deep.equal([keys.ecdsa256]);
  });

  it('adds keys to a workspace without a spec', () => {
    const bare: Workspace = { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev', namespace: 'svc-alice' } };
    const { object } = mutated(bare);
    expect(object.spec).to.deep.equal({ sshAuthorizedKeys: [keys.ed25519, keys.rsa] });
  });

  it('overwrites a requester annotation written by the client and keeps the others', () => {
    const ws = workspace('dev', { sshAuthorizedKeys: [keys.ed25519] });
    ws.metadata!.annotations = { 'den.dev/requester': 'mallory@example.com', note: 'mine' };
    const { object } = mutated(ws);
    expect(object.metadata?.annotations).to.deep.equal({ 'den.dev/requester': 'bob@example.com', note: 'mine' });
  });

  it('only records the requester when the owner has no keys', () => {
    const { object } = mutated(workspace('dev'), { ownerKeys: [] });
    expect(object.spec?.sshAuthorizedKeys).to.equal(undefined);
    expect(object.metadata?.annotations?.['den.dev/requester']).to.equal('bob@example.com');
  });

  it('only records the requester in a namespace without a UserSpace', () => {
    const { object } = mutated(workspace('dev', {}, 'team-x'), { namespace: 'team-x' });
    expect(object.spec?.sshAuthorizedKeys).to.equal(undefined);
    expect(object.metadata?.annotations?.['den.dev/requester']).to.equal('bob@example.com');
  });

  it('leaves updates alone', () => {
    const { response } = mutated(workspace('dev'), { operation: 'UPDATE' });
    expect(response.patch).to.equal(undefined);
  });

  it('leaves the excluded namespaces alone', () => {
    for (const namespace of ['svc-system', 'kube-system']) {
      const { response } = mutated(workspace('dev', {}, namespace), { namespace });
      expect(response.patch).to.equal(undefined);
    }
  });
});
