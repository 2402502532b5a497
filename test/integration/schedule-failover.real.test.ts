// A schedule across a killed leader, on a real API server of its own with the chart's two
// den manager processes (this file kills one): an autostart a few seconds ahead, the leading
// manager killed with SIGKILL just before it, and the workspace started exactly once by the
// other manager once it takes the Lease (one Started Event), then an
// autostop a minute later, once, while the killed replica is back as a follower.
import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { eventually } from '../support/platform.js';
import type { RealKube } from '../support/real-kube/cluster.js';
import { startInstalledKube, type RealDen } from '../support/real-kube/den.js';
import { addImage, addPerson, uniqueName, type Person } from '../support/real-kube/people.js';
import { generateSshKey } from '../support/ssh-keys.js';

type EventObj = KubeObject & { reason: string; message: string; count?: number; involvedObject: { name: string } };

async function leaderGauges(den: RealDen): Promise<(number | undefined)[]> {
  return Promise.all(
    den.health.manager.map(async (url) => {
      const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
      if (!res || res.status !== 200) return undefined;
      const line = (await res.text()).split('\n').find((l) => l.startsWith('den_manager_leader '));
      return line === undefined ? undefined : Number(line.split(' ')[1]);
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

describe('a schedule across a killed leader, on a real API server of its own', function () {
  this.timeout(300_000);
  const image = uniqueName('ubuntu');
  let kube: RealKube;
  let den: RealDen;
  let admin: KubeClient;
  let alice: Person;

  before(async function () {
    this.timeout(300_000);
    ({ kube, admin, den } = await startInstalledKube());
    await addImage(admin, image);
    alice = await addPerson(den.kubeconfig, 'alice');
  });

  after(async function () {
    this.timeout(60_000);
    await den?.stop();
    await kube?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && den) this.currentTest.err!.message += `\n--- what Den said ---\n${den.diagnostics()}`;
  });

  const events = async (reason: string) =>
    (await admin.list<EventObj>(RESOURCES.event, { namespace: alice.namespace })).items.filter((e) => e.reason === reason && e.involvedObject.name === 'dev');
  const counted = (list: EventObj[]) => list.reduce((sum, e) => sum + (e.count ?? 1), 0);

  it('starts the workspace at its autostart exactly once when the leader is killed just before it, and stops it at its autostop once', async () => {
    const leader = (await eventually(async () => {
      const g = await leaderGauges(den);
      return g.filter((v) => v === 1).length === 1 && g.every((v) => v !== undefined) && g;
    }, 'exactly one manager leading', 60_000, 250)).indexOf(1);
    const follower = 1 - leader;
    // An autostart at the next whole minute at least 20 s away, an autostop a minute later (UTC).
    const start = Math.ceil((Date.now() + 20_000) / 60_000) * 60_000;
    const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    const schedule = { timeZone: 'UTC', autostart: { time: hhmm(start) }, autostop: { time: hhmm(start + 60_000) } };
    await admin.create(RESOURCES.workspace, {
      apiVersion: RESOURCES.workspace.apiVersion,
      kind: 'Workspace',
      metadata: { name: 'dev', namespace: alice.namespace },
      spec: { imageRef: { name: image }, storage: '1Gi', running: false, sshAuthorizedKeys: [generateSshKey('ed25519').publicLine], schedule },
    }, alice.namespace);

    await sleep(start - 5_000 - Date.now());
    expect((await admin.get<{ spec: { running: boolean } }>(RESOURCES.workspace, 'dev', alice.namespace)).spec.running, 'still stopped before its autostart').to.equal(false);
    await den.killManager(leader);
    await eventually(async () => (await leaderGauges(den))[follower] === 1, `manager-${follower + 1} leading`, 60_000, 250);
    const started = await eventually(async () => {
      const ws = await admin.get<KubeObject & { spec: { running: boolean } }>(RESOURCES.workspace, 'dev', alice.namespace);
      return ws.spec.running && ws;
    }, 'started by its schedule under the new leader', 60_000, 250);
    expect(started.metadata?.annotations?.['den.dev/schedule-autostart']).to.equal(new Date(start).toISOString().replace('.000Z', 'Z'));
    await den.restartManager(leader);
    await sleep(3_000);
    const startedEvents = await events('Started');
    expect(counted(startedEvents), JSON.stringify(startedEvents.map((e) => e.message))).to.equal(1);
    expect(startedEvents[0]!.message).to.equal(`Started by its schedule daily ${hhmm(start)} UTC.`);

    await eventually(async () => !(await admin.get<{ spec: { running: boolean } }>(RESOURCES.workspace, 'dev', alice.namespace)).spec.running, 'stopped by its schedule', 120_000, 500);
    await sleep(3_000);
    const stopped = await events('Stopped');
    expect(counted(stopped), JSON.stringify(stopped.map((e) => e.message))).to.equal(1);
    expect(stopped[0]!.message).to.equal(`Stopped by its schedule daily ${hhmm(start + 60_000)} UTC. The home volume is kept; start the workspace to use it again.`);
    expect(counted(await events('Started'))).to.equal(1);
  });
});
