import { expect } from 'chai';
import { membershipOf, resolveMembership, type UserSpaceObject } from '../../../server/auth/directory.js';
import { HttpError } from '../../../koa/errors.js';

function userSpace(name: string, owner: string, labels: Record<string, string> = {}, extra: Record<string, unknown> = {}): UserSpaceObject {
  return { apiVersion: 'den.dev/v1alpha1', kind: 'UserSpace', metadata: { name, labels, ...extra }, spec: { owner } };
}

function refusal(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('membership of a UserSpace', () => {
  it('reads role and disabled from the den.dev labels', () => {
    expect(membershipOf(userSpace('alice', 'alice@example.com'))).to.deep.equal({ owner: 'alice@example.com', userspace: 'alice', namespace: 'svc-alice', role: 'user', disabled: false });
    expect(membershipOf(userSpace('root', 'root@example.com', { 'den.dev/role': 'admin', 'den.dev/disabled': 'true' }))).to.include({ role: 'admin', disabled: true });
  });

  it('resolves the one UserSpace whose owner is the person', () => {
    const all = [userSpace('bob', 'bob@example.com'), userSpace('alice', 'alice@example.com')];
    expect(resolveMembership(all, 'alice@example.com').namespace).to.equal('svc-alice');
  });

  it('answers 403 when nobody owns one, naming the person', () => {
    const err = refusal(() => resolveMembership([userSpace('bob', 'bob@example.com')], 'carol@example.com'));
    expect(err.status).to.equal(403);
    expect(err.message).to.equal('no UserSpace belongs to carol@example.com; ask an administrator to create one');
  });

  it('answers 403 for a disabled person', () => {
    const err = refusal(() => resolveMembership([userSpace('alice', 'alice@example.com', { 'den.dev/disabled': 'true' })], 'alice@example.com'));
    expect(err.status).to.equal(403);
    expect(err.message).to.equal('the account alice@example.com is disabled; ask an administrator to enable it');
  });

  it('refuses to guess between two UserSpaces of one owner, and ignores one being deleted', () => {
    const two = [userSpace('a1', 'alice@example.com'), userSpace('a2', 'alice@example.com')];
    expect(refusal(() => resolveMembership(two, 'alice@example.com')).message).to.contain('(a1, a2)');
    const deleting = [userSpace('a1', 'alice@example.com', {}, { deletionTimestamp: '2026-01-01T00:00:00Z' }), userSpace('a2', 'alice@example.com')];
    expect(resolveMembership(deleting, 'alice@example.com').userspace).to.equal('a2');
  });
});
