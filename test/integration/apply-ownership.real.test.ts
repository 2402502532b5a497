// Server-side apply as Den uses it, decided by a real API server: the manager applies every
// child as field manager den-manager; another manager applying a field Den set is refused
// with a 409 that names den-manager, unless it forces and takes the field; either way, and
// after a person's plain edit, the manager takes its fields back (its applies force), and
// what another manager set beside them stays.
import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { FIELD_MANAGERS } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { eventually } from '../support/platform.js';
import { realClient } from '../support/real-kube/cluster.js';
import { addPerson, removePerson, uniqueName, type Person } from '../support/real-kube/people.js';
import { sharedRealKube } from '../support/real-kube/shared.js';

interface Quota extends KubeObject {
  spec: { hard: Record<string, string> };
  metadata: KubeObject['metadata'] & { managedFields?: { manager: string; operation: string; fieldsV1?: { 'f:spec'?: { 'f:hard'?: Record<string, unknown> } } }[] };
}

const QUOTA = 'svc-quota';
const OTHER = 'platform-team';

/** Which managers own `spec.hard[key]` of the quota, by managedFields. */
function ownersOf(quota: Quota, key: string): string[] {
  return (quota.metadata.managedFields ?? []).filter((f) => f.fieldsV1?.['f:spec']?.['f:hard']?.[`f:${key}`] !== undefined).map((f) => f.manager);
}

describe('server-side apply ownership of what Den applies, on a real API server', function () {
  this.timeout(120_000);
  let admin: KubeClient;
  let person: Person;
  let denCpu: string;

  before(async function () {
    this.timeout(300_000);
    const shared = await sharedRealKube();
    admin = realClient(shared.kube);
    person = await addPerson(shared.den.kubeconfig, uniqueName('erin'));
    const quota = await admin.get<Quota>(RESOURCES.resourceQuota, QUOTA, person.namespace);
    denCpu = quota.spec.hard['requests.cpu']!;
  });

  after(async function () {
    this.timeout(120_000);
    if (person) await removePerson(admin, person.name);
  });

  const quota = () => admin.get<Quota>(RESOURCES.resourceQuota, QUOTA, person.namespace);
  const applied = (hard: Record<string, string>, labels?: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: QUOTA, namespace: person.namespace, ...(labels ? { labels } : {}) },
    spec: { hard },
  });
  const applyAs = (body: KubeObject, force: boolean) => admin.patch<Quota>(RESOURCES.resourceQuota, QUOTA, body, { namespace: person.namespace, type: 'apply', fieldManager: OTHER, force });

  it("holds the person's quota as den-manager, by managedFields", async () => {
    expect(ownersOf(await quota(), 'requests.cpu')).to.deep.equal([FIELD_MANAGERS.manager]);
  });

  it("refuses another manager's apply of a field Den set with a 409 naming den-manager, and changes nothing", async () => {
    const refused = await applyAs(applied({ 'requests.cpu': '64' }), false).then(() => undefined, (err: unknown) => err);
    expect(refused).to.be.instanceOf(KubeApiError);
    const err = refused as KubeApiError;
    expect(err.status).to.equal(409);
    expect(err.reason).to.equal('Conflict');
    expect(err.message).to.equal(`Apply failed with 1 conflict: conflict with "${FIELD_MANAGERS.manager}": .spec.hard.requests.cpu`);
    const now = await quota();
    expect(now.spec.hard['requests.cpu']).to.equal(denCpu);
    expect(ownersOf(now, 'requests.cpu')).to.deep.equal([FIELD_MANAGERS.manager]);
  });

  it('lets a forced apply take the field, then the manager takes it back, and keeps what the other manager set beside it', async () => {
    const taken = await applyAs(applied({ 'requests.cpu': '64' }, { 'team.example.com/owner': 'platform' }), true);
    expect(taken.spec.hard['requests.cpu']).to.equal('64');
    expect(ownersOf(taken, 'requests.cpu')).to.deep.equal([OTHER]);
    const back = await eventually(async () => {
      const q = await quota();
      return q.spec.hard['requests.cpu'] === denCpu && q;
    }, "den-manager re-applying the quota's cpu", 60_000, 250);
    expect(ownersOf(back, 'requests.cpu')).to.deep.equal([FIELD_MANAGERS.manager]);
    expect(back.metadata.labels?.['team.example.com/owner'], "the other manager's label").to.equal('platform');
  });

  it("puts back a field a person edited by hand (a merge patch, as kubectl edit sends)", async () => {
    await admin.patch(RESOURCES.resourceQuota, QUOTA, { spec: { hard: { 'requests.cpu': '99' } } }, { namespace: person.namespace, type: 'merge', fieldManager: 'kubectl-edit' });
    await eventually(async () => (await quota()).spec.hard['requests.cpu'] === denCpu, "the quota's cpu back to Den's", 60_000, 250);
  });
});
