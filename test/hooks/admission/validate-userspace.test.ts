import { expect } from 'chai';
import type { UserSpace } from '../../../hooks/admission/objects.js';
import type { UserInfo } from '../../../hooks/admission/review.js';
import { reviewUserSpaceUpdate } from '../../../hooks/admission/webhooks.js';
import { generateTestKeys, type TestKeys } from './keys.js';
import { reviewOf } from './reviews.js';
import { userSpace } from './world.js';

describe('validating webhook on UserSpace', () => {
  let keys: TestKeys;
  before(() => {
    keys = generateTestKeys();
  });

  const alice: UserInfo = { username: 'alice@example.com', uid: 'u-1', groups: ['system:authenticated'], extra: { 'authentication.kubernetes.io/pod-name': ['x'] } };

  async function review(change: (us: UserSpace) => void, opts: { admin?: boolean; userInfo?: UserInfo } = {}) {
    const oldObject = userSpace('alice', [keys.ed25519]);
    oldObject.metadata!.finalizers = ['den.dev/namespace'];
    const object = structuredClone(oldObject);
    change(object);
    const asked: UserInfo[] = [];
    const isAdmin = async (user: UserInfo) => {
      asked.push(user);
      return opts.admin ?? false;
    };
    const request = reviewOf({ kind: 'UserSpace', operation: 'UPDATE', object, oldObject, userInfo: opts.userInfo ?? alice }).request;
    const response = await reviewUserSpaceUpdate(request, isAdmin);
    expect(response.uid).to.equal(request.uid);
    return { response, asked };
  }

  it('lets the owner replace their SSH keys without asking who is an administrator', async () => {
    const { response, asked } = await review((us) => (us.spec!.sshAuthorizedKeys = [keys.rsa, keys.skEd25519]));
    expect(response.allowed).to.equal(true);
    expect(asked).to.deep.equal([]);
  });

  it('refuses an SSH key change made with a read-scoped token', async () => {
    const readOnly: UserInfo = { username: 'system:serviceaccount:svc-alice:session-readonly', groups: ['system:serviceaccounts', 'system:authenticated'] };
    const { response, asked } = await review((us) => us.spec!.sshAuthorizedKeys!.push(keys.rsa), { userInfo: readOnly });
    expect(response.allowed).to.equal(false);
    expect(response.status?.code).to.equal(422);
    expect(response.status?.message).to.equal('spec.sshAuthorizedKeys: system:serviceaccount:svc-alice:session-readonly is a read-scoped identity and may not change a UserSpace; use a full-scope token or sign in');
    expect(asked).to.deep.equal([]);
  });

  it('lets kubectl apply rewrite its last-applied annotation along with the keys', async () => {
    const { response } = await review((us) => {
      us.spec!.sshAuthorizedKeys = [];
      us.metadata!.annotations = { 'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{}}' };
    });
    expect(response.allowed).to.equal(true);
  });

  it('refuses a new key that does not parse, even from the owner', async () => {
    const { response } = await review((us) => us.spec!.sshAuthorizedKeys!.push('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG5vdCBhIGtleSBhdCBhbGw='));
    expect(response.allowed).to.equal(false);
    expect(response.status).to.deep.equal({
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message: 'spec.sshAuthorizedKeys[1]: not a valid SSH public key: the key blob is corrupt',
      details: {
        causes: [
          {
            reason: 'FieldValueInvalid',
            field: 'spec.sshAuthorizedKeys[1]',
            message: 'This is not an SSH public key Den can use (the key blob is corrupt). Paste the one line of your public key file, such as ~/.ssh/id_ed25519.pub: it starts with ssh-ed25519, ecdsa-sha2- or ssh-rsa.',
          },
        ],
      },
    });
  });

  const restricted: [string, (us: UserSpace) => void, string, string][] = [
    ['the quota', (us) => (us.spec!.quota!.cpu = '64'), 'spec.quota.cpu', '(it is "4", the update asks for "64")'],
    ['the network policy', (us) => (us.spec!.networkPolicy = 'ClusterEgress'), 'spec.networkPolicy', '(it is "Isolated", the update asks for "ClusterEgress")'],
    ['the membership role label', (us) => (us.metadata!.labels!['den.dev/role'] = 'admin'), 'metadata.labels["den.dev/role"]', '(it is "user", the update asks for "admin")'],
    ['the disabled label', (us) => (us.metadata!.labels!['den.dev/disabled'] = 'true'), 'metadata.labels["den.dev/disabled"]', '(it is unset, the update asks for "true")'],
    ['an annotation', (us) => (us.metadata!.annotations = { 'den.dev/force-sync': '1' }), 'metadata.annotations["den.dev/force-sync"]', '(it is unset, the update asks for "1")'],
    ['the finalizers', (us) => (us.metadata!.finalizers = []), 'metadata.finalizers', '(it is ["den.dev/namespace"], the update asks for [])'],
    ['a new spec field', (us) => (us.spec!.extra = true), 'spec.extra', '(it is unset, the update asks for true)'],
    ['the network policy to a long value (shown cut short)', (us) => (us.spec!.networkPolicy = 'x'.repeat(500)), 'spec.networkPolicy', `(it is "Isolated", the update asks for "${'x'.repeat(76)}...)`],
  ];
  for (const [what, change, field, values] of restricted) {
    it(`refuses a change of ${what} by someone who is not an administrator, with the values`, async () => {
      const { response, asked } = await review(change);
      expect(response.allowed).to.equal(false);
      expect(response.status?.code).to.equal(422);
      expect(response.status?.message).to.equal(`${field}: only an administrator may change this field ${values}; alice@example.com may change spec.sshAuthorizedKeys only`);
      expect(asked).to.deep.equal([alice]);
    });
  }

  it('lets an administrator change the quota and labels', async () => {
    const { response, asked } = await review((us) => {
      us.spec!.quota!.memory = '64Gi';
      us.metadata!.labels!['den.dev/role'] = 'admin';
    }, { admin: true });
    expect(response.allowed).to.equal(true);
    expect(asked).to.have.length(1);
  });

  it('refuses a change of spec.owner, even by an administrator', async () => {
    const { response } = await review((us) => (us.spec!.owner = 'mallory@example.com'), { admin: true });
    expect(response.allowed).to.equal(false);
    expect(response.status?.message).to.equal('spec.owner: is immutable: it is "alice@example.com", the update asks for "mallory@example.com"; create a new UserSpace for another owner');
  });

  it('reports the owner change and the restricted fields together', async () => {
    const { response } = await review((us) => {
      us.spec!.owner = 'mallory@example.com';
      us.spec!.quota!.workspaces = 99;
    });
    expect(response.status?.message).to.match(/^spec\.owner: is immutable: .*; spec\.quota\.workspaces: only an administrator/);
  });

  it('ignores status and server-managed metadata', async () => {
    const { response, asked } = await review((us) => {
      (us as { status?: unknown }).status = { phase: 'Ready' };
      us.metadata!.resourceVersion = '99';
      us.metadata!.generation = 7;
      us.metadata!.managedFields = [{ manager: 'kubectl' }];
    });
    expect(response.allowed).to.equal(true);
    expect(asked).to.deep.equal([]);
  });

  it('treats an absent map and an empty one as the same', async () => {
    const { response } = await review((us) => (us.metadata!.annotations = {}));
    expect(response.allowed).to.equal(true);
  });

  it('admits creates and deletes without looking', async () => {
    const request = reviewOf({ kind: 'UserSpace', operation: 'CREATE', object: userSpace('alice', ['garbage']) }).request;
    const response = await reviewUserSpaceUpdate(request, async () => false);
    expect(response.allowed).to.equal(true);
  });
});
