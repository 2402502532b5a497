import { expect } from 'chai';
import { denCrds } from '../../../contract/index.js';
import { membershipOf, resolveMembership, UserSpaceDirectory, type UserSpaceObject } from '../../../server/auth/directory.js';
import { FakeApiServer } from '../../support/fake-apiserver.js';
import { HttpError } from '../../../koa/errors.js';
import { RESOURCES } from '../../../kube/resources.js';

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the directory did not follow its cache within 3 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

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
  it('reads its UID, and role and disabled from the den.dev labels', () => {
    expect(membershipOf(userSpace('alice', 'alice@example.com', {}, { uid: 'u-1' }))).to.deep.equal({ owner: 'alice@example.com', uid: 'u-1', userspace: 'alice', namespace: 'svc-alice', role: 'user', disabled: false });
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

describe('UserSpaceDirectory, before it refuses anyone', () => {
  let api: FakeApiServer;
  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.installCrds(denCrds().map((crd) => ({ ...crd })));
  });
  afterEach(() => api.close());

  it('follows its cache: a UserSpace deleted, one created again under the same name for another owner, an address in another case', async () => {
    const directory = new UserSpaceDirectory(api.client());
    const stop = new AbortController();
    const running = directory.run(stop.signal);
    // A person the cache knows is answered from it alone; the API server is asked only before a refusal.
    const known = (owner: string, email = false) => (email ? directory.resolveEmail(owner) : directory.resolve(owner)).then((m) => m.userspace, (e: HttpError) => e.message);
    try {
      await directory.synced;
      api.seed(userSpace('alice', 'alice@example.com'), userSpace('bob', 'bob@example.com'));
      await until(async () => (await known('alice@example.com')) === 'alice');
      expect(await known('ALICE@EXAMPLE.COM', true)).to.equal('alice');
      expect(await known('ALICE@EXAMPLE.COM')).to.equal('no UserSpace belongs to ALICE@EXAMPLE.COM; ask an administrator to create one');
      await api.client().delete(RESOURCES.userSpace, 'alice');
      await until(async () => (await known('alice@example.com')) !== 'alice');
      expect(await known('alice@example.com')).to.equal('no UserSpace belongs to alice@example.com; ask an administrator to create one');
      api.seed(userSpace('alice', 'carol@example.com'));
      await until(async () => (await known('carol@example.com')) === 'alice');
      expect(await known('alice@example.com')).to.equal('no UserSpace belongs to alice@example.com; ask an administrator to create one');
      expect(await known('bob@example.com')).to.equal('bob');
    } finally {
      stop.abort();
      await running;
    }
  });

  it("asks the API server about a person its own cache does not know yet (another replica's write), and still refuses who has none", async () => {
    // Never run: its cache stays empty, as a replica's is before a new UserSpace's watch event arrives.
    const directory = new UserSpaceDirectory(api.client());
    const [stored] = api.seed(userSpace('alice', 'alice@example.com'));
    expect(await directory.resolve('alice@example.com')).to.deep.include({ userspace: 'alice', uid: stored!.metadata!.uid });
    expect(await directory.resolveEmail('ALICE@example.com')).to.deep.include({ owner: 'alice@example.com' });
    const err = await directory.resolve('carol@example.com').then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(HttpError);
    expect((err as HttpError).message).to.equal('no UserSpace belongs to carol@example.com; ask an administrator to create one');
  });
});
