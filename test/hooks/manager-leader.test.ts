import { expect } from 'chai';
import { microTime } from '../../hooks/loop/leader.js';
import { Manager } from '../../hooks/manager.js';
import { NAMESPACE_FINALIZER } from '../../hooks/userspace/controller.js';
import { RESOURCES } from '../../kube/resources.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { eventually } from './support/eventually.js';
import { managerWorld, userSpace, type Obj } from './support/manager-world.js';

describe('den manager controllers', () => {
  const world = managerWorld();
  const { stops, startManager, get } = world;
  let api: FakeApiServer;
  beforeEach(() => {
    api = world.api;
  });

  describe('leader election', () => {
    it('reconciles on one replica only, and on the other once the first stops', async () => {
      const a = startManager({ leaderElect: true, identity: 'manager-a' });
      await eventually(() => a.leading && a.ready, 'a leading with caches synced');
      const b = startManager({ leaderElect: true, identity: 'manager-b' });
      await api.client().create(RESOURCES.userSpace, userSpace('alice'));
      await eventually(() => get(RESOURCES.userSpace, 'alice')?.status?.phase === 'Ready', 'alice Ready');
      expect(b.leading).to.equal(false);
      await eventually(() => b.ready, 'b ready: its caches synced');
      const first = stops.shift()!;
      first.stop.abort();
      await first.run;
      await eventually(() => b.leading && b.ready, 'b leading', 3000);
      await api.client().create(RESOURCES.userSpace, userSpace('bob'));
      await eventually(() => get(RESOURCES.userSpace, 'bob')?.status?.phase === 'Ready', 'bob Ready');
      const applies = api.requests.filter((r) => r.method === 'PATCH' && r.path.includes('svc-userspace-bob'));
      expect(applies.length).to.be.at.least(1);
      expect(api.object<Obj>(RESOURCES.lease, 'den-manager', 'svc-system')?.spec?.holderIdentity).to.equal('manager-b');
    });

    /** A replica with an identity of its own at the API server too, so its requests can be told apart. */
    function replica(identity: string): Manager {
      api.addUser(`token-${identity}`, { username: identity, groups: ['system:masters'] });
      return startManager({ leaderElect: true, identity }, api.client(`token-${identity}`));
    }
    /** The list requests (an informer's first list or relist) `identity` sent since request number `from`. */
    const listsBy = (identity: string, from = 0) => api.requests.slice(from).filter((r) => r.user === identity && r.method === 'GET' && r.query.includes('limit=') && !r.query.includes('watch='));
    const writesBy = (identity: string) => api.requests.filter((r) => r.user === identity && r.method !== 'GET');
    const userSpacesOf = (m: Manager) => m.controllers!.find((c) => c.spec.parent.kind === 'UserSpace')!;

    it('keeps its caches through a lost lead: it lists nothing again and reconciles each parent once when it leads again', async () => {
      const a = replica('manager-a');
      await eventually(() => a.leading && a.ready, 'a leading with caches synced');
      await api.client().create(RESOURCES.userSpace, userSpace('alice'));
      await api.client().create(RESOURCES.userSpace, userSpace('bob'));
      for (const name of ['alice', 'bob']) await eventually(() => get(RESOURCES.userSpace, name)?.status?.phase === 'Ready', `${name} Ready`);
      const userSpaces = userSpacesOf(a);
      await eventually(() => userSpaces.idle, 'every reconcile done');
      // Another holder renews the Lease once: a loses the lead at its next renewal and takes the Lease back one lease duration later.
      const from = api.requests.length;
      const lease = api.object<Obj>(RESOURCES.lease, 'den-manager', 'svc-system')!;
      api.seed({ ...lease, spec: { ...lease.spec, holderIdentity: 'usurper', leaseDurationSeconds: 1, renewTime: microTime(Date.now()) } });
      await eventually(() => !a.leading, 'a lost the lead');
      const before = userSpaces.stats.reconciles;
      await eventually(() => a.leading && a.ready, 'a leading again', 5000);
      expect(listsBy('manager-a', from).map((r) => r.path)).to.deep.equal([]);
      expect(userSpacesOf(a)).to.equal(userSpaces);
      await eventually(() => userSpaces.stats.reconciles >= before + 2 && userSpaces.idle, 'both UserSpaces reconciled on the new lead');
      expect(userSpaces.stats.reconciles - before).to.equal(2);
    });

    it('keeps the caches of a replica that does not lead synced, and writes nothing from it', async () => {
      const a = replica('manager-a');
      await eventually(() => a.leading && a.ready, 'a leading with caches synced');
      const b = replica('manager-b');
      await eventually(() => b.ready, 'b ready: its caches synced');
      await api.client().create(RESOURCES.userSpace, userSpace('alice'));
      await eventually(() => get(RESOURCES.userSpace, 'alice')?.status?.phase === 'Ready', 'alice Ready');
      const cached = await eventually(() => (userSpacesOf(b).parents.get('alice')?.status as Obj['status'])?.phase === 'Ready' && userSpacesOf(b).parents.get('alice'), "alice's Ready status in b's cache");
      expect(cached.metadata?.finalizers).to.deep.equal([NAMESPACE_FINALIZER]);
      expect(b.leading).to.equal(false);
      expect(writesBy('manager-b').map((r) => `${r.method} ${r.path}`)).to.deep.equal([]);
      expect(userSpacesOf(b).stats.reconciles).to.equal(0);
    });

    it('lets a follower that takes over reconcile from the caches it already holds, with no list', async () => {
      const a = replica('manager-a');
      await eventually(() => a.leading && a.ready, 'a leading with caches synced');
      await api.client().create(RESOURCES.userSpace, userSpace('alice'));
      await eventually(() => get(RESOURCES.userSpace, 'alice')?.status?.phase === 'Ready', 'alice Ready');
      const b = replica('manager-b');
      await eventually(() => b.ready && userSpacesOf(b).parents.get('alice'), "alice in b's cache");
      const from = api.requests.length;
      const first = stops.shift()!;
      first.stop.abort();
      await first.run;
      await eventually(() => b.leading, 'b leading', 3000);
      await eventually(() => userSpacesOf(b).stats.reconciles >= 1 && userSpacesOf(b).idle, 'alice reconciled by b');
      await api.client().create(RESOURCES.userSpace, userSpace('bob'));
      await eventually(() => get(RESOURCES.userSpace, 'bob')?.status?.phase === 'Ready', 'bob Ready');
      expect(writesBy('manager-b').some((r) => r.path.includes('svc-userspace-bob')), 'bob converged by b').to.equal(true);
      expect(listsBy('manager-b', from).map((r) => r.path)).to.deep.equal([]);
    });
  });
});
