// den schedule against den server's app on the fake API server, as a person runs it on their
// laptop with their own API token.
import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import type { FakeApiServer } from '../../support/fake-apiserver.js';
import { addPerson, startCluster, startDen, type Den } from '../../server/core/cluster.js';
import { laptop, signInWithToken, type Laptop } from './support.js';

describe('den schedule', function () {
  this.timeout(60_000);
  let api: FakeApiServer;
  let den: Den;
  let me: Laptop;

  before(async () => {
    api = await startCluster();
    await addPerson(api, 'alice');
    den = await startDen(api);
    me = await laptop();
    await signInWithToken(den, 'alice', me);
    api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'dev', namespace: 'svc-alice' }, spec: { imageRef: { name: 'ubuntu' }, storage: '1Gi', running: true } });
  });

  after(async () => {
    await den?.close();
    await api?.close();
    if (me) await rm(me.home, { recursive: true, force: true });
  });

  const stored = () => api.object<{ spec: { schedule?: Record<string, unknown> } }>(RESOURCES.workspace, 'dev', 'svc-alice')?.spec.schedule;

  it("sets autostart, autostop and the time zone from words, and prints what the workspace now has", async () => {
    const set = await me.den(['schedule', 'dev', '--autostart', 'weekdays 08:30', '--tz', 'Europe/Berlin', '--autostop', '19:00']);
    expect(set.code, set.stderr).to.equal(0);
    expect(stored()).to.deep.equal({ timeZone: 'Europe/Berlin', autostart: { days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], time: '08:30' }, autostop: { time: '19:00' } });
    expect(set.stdout).to.equal('workspace dev:\nautostart    weekdays 08:30\nautostop     daily 19:00\nmax running  none\ntime zone    Europe/Berlin\n');
  });

  it('changes one part and keeps the others; den schedule <name> shows them', async () => {
    expect((await me.den(['schedule', 'dev', '--max-running', '8h'])).code).to.equal(0);
    const shown = await me.den(['schedule', 'dev']);
    expect(shown.stdout).to.equal('autostart    weekdays 08:30\nautostop     daily 19:00\nmax running  8h\ntime zone    Europe/Berlin\n');
  });

  it("says what is wrong with a time in the server's words, exit 1", async () => {
    const bad = await me.den(['schedule', 'dev', '--autostart', 'weekdays 8am']);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.equal('den schedule: autostart: "weekdays 8am" does not end with a time of day as HH:MM (24 hours), such as "weekdays 08:30", "daily 19:00", "Mon,Wed,Fri 07:45" or "18:00"\n');
  });

  it('--clear removes the whole schedule; --clear with a part is a usage error, exit 2', async () => {
    expect((await me.den(['schedule', 'dev', '--clear', '--autostop', '19:00'])).code).to.equal(2);
    const cleared = await me.den(['schedule', 'dev', '--clear']);
    expect(cleared.code, cleared.stderr).to.equal(0);
    expect(cleared.stdout).to.equal('workspace dev: schedule removed\n');
    expect(stored() ?? {}).to.deep.equal({});
  });
});
