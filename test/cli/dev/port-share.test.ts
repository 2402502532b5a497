// den port share against den server's app with host-based previews on the fake API server, as a
// person runs it on their laptop with their own API token: the share written onto the
// Workspace, the line that says who may open the port and where, and the server's refusals.
import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import type { Workspace } from '../../../contract/workspace.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, startCluster, startDen, type Den } from '../../server/core/cluster.js';
import { seedRunningWorkspace } from '../../server/preview/world.js';
import { laptop, signInWithToken, type Laptop } from './support.js';

describe('den port share', function () {
  this.timeout(60_000);
  let api: FakeApiServer;
  let den: Den;
  let me: Laptop;

  before(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
    seedRunningWorkspace(api, 'dev', 'svc-alice');
    den = await startDen(api, { appsDomain: 'apps.test' });
    me = await laptop();
    await signInWithToken(den, 'alice', me);
  });

  after(async () => {
    await den?.close();
    await api?.close();
    if (me) await rm(me.home, { recursive: true, force: true });
  });

  const stored = () => api.object<Workspace>(RESOURCES.workspace, 'dev', 'svc-alice')?.spec?.sharedPorts;

  it('shares a port with signed-in people, then with named people, then makes it the owner\'s again', async () => {
    const shared = await me.den(['port', 'share', 'dev', '3000', '--level', 'authenticated']);
    expect(shared.code, shared.stderr).to.equal(0);
    expect(shared.stdout).to.equal('port 3000 of dev: every signed-in person of this Den can open it at http://3000--dev--alice.apps.test/\n');
    expect(stored()).to.deep.equal([{ port: 3000, level: 'authenticated' }]);
    const people = await me.den(['port', 'share', 'dev', '3000', '--level', 'people', '--people', 'carol,bob', '-o', 'json']);
    expect(JSON.parse(people.stdout)).to.deep.equal({ workspace: 'dev', port: 3000, level: 'people', people: ['bob', 'carol'], app_url: 'http://3000--dev--alice.apps.test/' });
    const back = await me.den(['port', 'share', 'dev', '3000', '--level', 'owner']);
    expect(back.stdout).to.equal('port 3000 of dev: only you can open it\n');
    expect(stored()).to.deep.equal([]);
  });

  it("says the server's refusal of a public share, naming the setting, exit 1; a missing level is bad usage, exit 2", async () => {
    const refused = await me.den(['port', 'share', 'dev', '3000', '--level', 'public']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.equal('den port: level: public ports are not allowed on this Den: an administrator must set server.apps.allowPublicPorts: true in the install configuration\n');
    const usage = await me.den(['port', 'share', 'dev', '3000']);
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.match(/^den port: --level is required/);
  });
});
