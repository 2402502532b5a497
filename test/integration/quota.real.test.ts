// A person's workspace count on a real API server: the UserSpace's spec.quota.workspaces becomes
// svc-quota's count/workspaces.den.dev, which Kubernetes' quota controller counts; the (n+1)th
// workspace is refused through REST as a 403 naming the quota, whether Den's webhook or the
// cluster's ResourceQuota admission refuses it (creates sent at once can pass the webhook
// together: the cluster's count lets one through), and a deleted workspace frees its place.
// (The first minute, before the quota is counted at all: first-minute.test.ts.)
import { expect } from 'chai';
import type { KubeClient } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { WORKSPACE_COUNT_KEY } from '../../contract/user-space.js';
import { generateSshKey } from '../support/ssh-keys.js';
import { eventually } from '../support/platform.js';
import { uniqueName, workspaceRequest, type Person } from '../support/real-kube/people.js';
import type { Rest, Session } from './rest.js';
import { removeSignedInPerson, signInNewPerson } from './real-person.js';

interface Quota {
  spec: { hard: Record<string, string> };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

describe('the workspace count of a person, on a real API server', function () {
  this.timeout(120_000);
  const image = uniqueName('ubuntu');
  const key = generateSshKey('ed25519').publicLine;
  let admin: KubeClient;
  let rest: Rest;
  let person: Person;
  let session: Session;

  before(async function () {
    this.timeout(300_000);
    ({ admin, rest, person, session } = await signInNewPerson('grace', image));
  });

  after(async function () {
    this.timeout(120_000);
    await removeSignedInPerson(admin, person, image);
  });

  const quota = () => admin.get<Quota>(RESOURCES.resourceQuota, 'svc-quota', person.namespace);
  const create = (name: string) => rest.call('POST', '/workspaces', { body: workspaceRequest(name, image, key), as: { session } });
  const workspaceNames = async () => (await admin.list(RESOURCES.workspace, { namespace: person.namespace })).items.map((w) => w.metadata!.name!).sort();

  it("writes spec.quota.workspaces into svc-quota's count/workspaces.den.dev, which the quota controller counts", async () => {
    await admin.patch(RESOURCES.userSpace, person.name, { spec: { quota: { workspaces: 1 } } }, { type: 'merge' });
    const counted = await eventually(async () => {
      const q = await quota();
      return q.status?.hard?.[WORKSPACE_COUNT_KEY] === '1' && q.status.used?.[WORKSPACE_COUNT_KEY] === '0' && q;
    }, `svc-quota counting ${WORKSPACE_COUNT_KEY} against 1`, 60_000, 250);
    expect(counted.spec.hard[WORKSPACE_COUNT_KEY]).to.equal('1');
  });

  it('admits exactly one of three workspaces asked for at once; the others get 403 naming the quota', async () => {
    const answers = await Promise.all(['one', 'two', 'three'].map(create));
    const admitted = answers.filter((a) => a.status === 201);
    expect(admitted, JSON.stringify(answers.map((a) => [a.status, a.body.error]))).to.have.length(1);
    for (const refused of answers.filter((a) => a.status !== 201)) {
      expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
      expect(refused.body.error).to.match(
        new RegExp(`^(admission webhook "vworkspace\\.den\\.dev" denied the request: .*exceeded quota of UserSpace "${person.name}" \\(spec\\.quota\\.workspaces\\): requested 1, used 1, limited 1|workspaces\\.den\\.dev "(one|two|three)" is forbidden: exceeded quota: svc-quota, requested: count/workspaces\\.den\\.dev=1, used: count/workspaces\\.den\\.dev=1, limited: count/workspaces\\.den\\.dev=1)$`),
      );
    }
    expect(await workspaceNames()).to.deep.equal([admitted[0]!.body.metadata.name]);
    await eventually(async () => (await quota()).status?.used?.[WORKSPACE_COUNT_KEY] === '1', 'the quota controller counting the one workspace', 60_000, 250);
  });

  it('refuses the next one with 403 naming the quota, nothing created', async () => {
    const refused = await create('four');
    expect(refused.status).to.equal(403);
    expect(refused.body.error).to.equal(`admission webhook "vworkspace.den.dev" denied the request: metadata.name: exceeded quota of UserSpace "${person.name}" (spec.quota.workspaces): requested 1, used 1, limited 1`);
    expect(await workspaceNames()).to.have.length(1);
  });

  it('admits a new one once the workspace is deleted and gone', async () => {
    const [only] = await workspaceNames();
    const deleted = await rest.call('DELETE', `/workspaces/${only}`, { as: { session } });
    expect(deleted.status, JSON.stringify(deleted.body)).to.equal(204);
    const admitted = await eventually(async () => {
      const answer = await create('five');
      return answer.status === 201 && answer;
    }, 'a workspace admitted after the delete', 60_000, 500);
    expect(admitted.body.metadata.name).to.equal('five');
    expect(await workspaceNames()).to.deep.equal(['five']);
  });
});
