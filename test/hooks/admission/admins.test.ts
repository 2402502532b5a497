import { expect } from 'chai';
import { AdminChecker, SUBJECT_ACCESS_REVIEW_PATH } from '../../../hooks/admission/admins.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { installedCluster, MANAGER_TOKEN } from './cluster.js';

describe('administrator check by SubjectAccessReview', () => {
  let api: FakeApiServer;
  let clock: number;
  let admins: AdminChecker;
  const alice = { username: 'alice@example.com', uid: 'alice-uid', groups: ['system:authenticated'] };
  const bob = { username: 'bob@example.com', groups: ['den-admins', 'system:authenticated'] };
  const reviews = () => api.requests.filter((r) => r.path === SUBJECT_ACCESS_REVIEW_PATH);

  beforeEach(async () => {
    api = await installedCluster([]);
    clock = 1_000_000;
    admins = new AdminChecker(api.client(MANAGER_TOKEN), { ttlMs: 30_000, now: () => clock });
  });
  afterEach(() => api.close());

  it('answers from the cluster RBAC: den-admin members are administrators, owners are not', async () => {
    expect(await admins.isAdmin(bob)).to.equal(true);
    expect(await admins.isAdmin(alice)).to.equal(false);
  });

  it('asks once per identity while the answer is fresh, and again after it expired', async () => {
    await admins.isAdmin(alice);
    await admins.isAdmin(alice);
    expect(reviews()).to.have.length(1);
    clock += 30_001;
    await admins.isAdmin(alice);
    expect(reviews()).to.have.length(2);
  });

  it('shares one review between concurrent questions', async () => {
    const answers = await Promise.all([admins.isAdmin(bob), admins.isAdmin(bob), admins.isAdmin(bob)]);
    expect(answers).to.deep.equal([true, true, true]);
    expect(reviews()).to.have.length(1);
  });

  it('keys the answer on the whole identity, groups included', async () => {
    expect(await admins.isAdmin({ username: 'bob@example.com', groups: ['system:authenticated'] })).to.equal(false);
    expect(await admins.isAdmin(bob)).to.equal(true);
    expect(reviews()).to.have.length(2);
  });

  it('refuses to ask faster than its rate, without asking, and asks again once the rate allows', async () => {
    admins = new AdminChecker(api.client(MANAGER_TOKEN), { maxReviewsPerSecond: 1, now: () => clock });
    const someone = (i: number) => ({ username: `made-up-${i}@example.com` });
    expect(await admins.isAdmin(someone(1))).to.equal(false);
    expect(await admins.isAdmin(someone(2))).to.equal(false);
    const err = await admins.isAdmin(someone(3)).then(() => undefined, (e: Error) => e);
    expect(err?.message).to.equal('too many administrator checks (more than 1 a second)');
    expect(reviews()).to.have.length(2);
    // A cached answer needs no question.
    expect(await admins.isAdmin(someone(1))).to.equal(false);
    clock += 1_000;
    expect(await admins.isAdmin(bob)).to.equal(true);
    expect(reviews()).to.have.length(3);
  });

  it('passes the failure on and caches nothing when the review fails', async () => {
    api.failNext('POST', /subjectaccessreviews/, 500, { message: 'boom' });
    const err = await admins.isAdmin(bob).then(() => undefined, (e: Error) => e);
    expect(err?.message).to.equal('boom');
    expect(await admins.isAdmin(bob)).to.equal(true);
  });
});
