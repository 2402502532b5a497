// The local platform runs two managers as the chart's Deployment does: the same ServiceAccount,
// a token each, one Service in front of their webhooks, and the den-manager Lease deciding which
// one reconciles; when the leader stops, the other takes the Lease and reconciles in its place.
import { expect } from 'chai';
import { SYSTEM_NAMESPACE } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { eventually, LocalPlatform, runDen } from '../support/platform.js';

async function leading(healthUrl: string): Promise<number | undefined> {
  const text = await fetch(`${healthUrl}/metrics`).then((r) => r.text(), () => '');
  const m = /^den_manager_leader (\d)/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

describe('two managers on the local platform', function () {
  this.timeout(90_000);
  const platform = new LocalPlatform();
  before(async () => {
    platform.suffix = 'mg';
    await platform.start();
  });
  after(() => platform.stop());

  it('run under the den-manager ServiceAccount with a token each, and exactly one holds the Lease', async () => {
    const managers = platform.replicasOf('manager');
    expect(managers.map((m) => m.name)).to.deep.equal(['manager-1', 'manager-2']);
    expect(platform.tokens['manager-1']).to.be.a('string').and.not.equal(platform.tokens['manager-2']);
    expect(platform.api.requests.some((r) => r.user === 'system:serviceaccount:svc-system:den-manager')).to.equal(true);
    const flags = await eventually(async () => {
      const both = await Promise.all(platform.health.manager.map(leading));
      return both.every((f) => f !== undefined) && both[0]! + both[1]! === 1 ? both : undefined;
    }, 'one manager leading', 30_000);
    const lease = await platform.admin.get<any>(RESOURCES.lease, 'den-manager', SYSTEM_NAMESPACE);
    expect(lease.spec.holderIdentity).to.be.a('string').and.not.equal('');
    expect(flags.filter((f) => f === 1)).to.have.length(1);
  });

  it('hand the Lease over when the leader stops: the other reconciles a new person to Ready', async () => {
    const flags = await Promise.all(platform.health.manager.map(leading));
    const leader = platform.replicasOf('manager')[flags.indexOf(1)]!;
    const other = platform.health.manager[1 - flags.indexOf(1)]!;
    const before = (await platform.admin.get<any>(RESOURCES.lease, 'den-manager', SYSTEM_NAMESPACE)).spec.holderIdentity;
    expect(await leader.stop()).to.equal(0);
    await eventually(async () => (await leading(other)) === 1, 'the other manager leading', 30_000);
    const after = (await platform.admin.get<any>(RESOURCES.lease, 'den-manager', SYSTEM_NAMESPACE)).spec.holderIdentity;
    expect(after).to.not.equal(before);
    const added = await runDen(['users', 'add', 'carol', '--owner', 'carol@example.com', '--password-stdin', '--kubeconfig', platform.kubeconfig], { stdin: 'two managers, one leader' });
    expect(added.code, added.stderr).to.equal(0);
    await eventually(async () => (await platform.admin.get<any>(RESOURCES.userSpace, 'carol')).status?.phase === 'Ready', 'UserSpace carol Ready', platform.convergeMs);
  });
});
