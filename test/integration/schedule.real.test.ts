// Schedules on a real API server calling Den's webhooks (docs/schedules.md): the space's limit on
// maxRunning, an unknown time zone and an administrator's defaults are decided by admission, and
// reach a person through REST and a client of the cluster with the rule's words.
import { expect } from 'chai';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import { generateSshKey } from '../support/ssh-keys.js';
import { addPerson, removePerson, uniqueName, workspaceRequest, type Person } from '../support/real-kube/people.js';
import { sharedRealKube } from '../support/real-kube/shared.js';
import type { Rest, Session } from './rest.js';
import { removeSignedInPerson, signInNewPerson } from './real-person.js';

describe('schedules decided by admission, on a real API server', function () {
  this.timeout(120_000);
  const image = uniqueName('ubuntu');
  const key = generateSshKey('ed25519').publicLine;
  let admin: KubeClient;
  let rest: Rest;
  let person: Person;
  let session: Session;

  before(async function () {
    this.timeout(300_000);
    ({ admin, rest, person, session } = await signInNewPerson('sched', image));
    await admin.patch(RESOURCES.userSpace, person.name, { spec: { schedules: { maxRunningLimit: '8h' } } }, { type: 'merge' });
  });

  after(async function () {
    this.timeout(120_000);
    await removeSignedInPerson(admin, person, image);
  });

  const absent = (name: string) => admin.get(RESOURCES.workspace, name, person.namespace).then(() => false, () => true);

  it("refuses a maxRunning above the space's limit: REST 400 in words naming the limit, nothing created", async () => {
    const answer = await rest.call('POST', '/workspaces', { body: { ...workspaceRequest('long', image, key), schedule: { max_running: '12h' } }, as: { session } });
    expect(answer.status).to.equal(400);
    expect(answer.body).to.deep.equal({ error: 'admission webhook "vworkspace.den.dev" denied the request: spec.schedule.maxRunning: 12h is above the limit of 8h set by an administrator for this space (UserSpace spec.schedules.maxRunningLimit)' });
    expect(await absent('long')).to.equal(true);
  });

  it('admits a schedule within the limit, and refuses raising it past the limit later, with the advice as the cause', async () => {
    const created = await rest.call('POST', '/workspaces', { body: { ...workspaceRequest('day', image, key), schedule: { autostart: 'weekdays 08:30', autostop: '19:00', max_running: '8h', time_zone: 'Europe/Berlin' } }, as: { session } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect((created.body as KubeObject & { spec: Record<string, unknown> }).spec.schedule).to.deep.equal({ timeZone: 'Europe/Berlin', autostart: { days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], time: '08:30' }, autostop: { time: '19:00' }, maxRunning: '8h' });
    const raised = await rest.call('PATCH', '/workspaces/day/schedule', { body: { max_running: '9h' }, as: { session } });
    expect(raised.status).to.equal(400);
    expect((raised.body as { error: string }).error).to.contain('spec.schedule.maxRunning: 9h is above the limit of 8h set by an administrator for this space');
    const refused = (await admin.patch(RESOURCES.workspace, 'day', { spec: { schedule: { maxRunning: '9h' } } }, { namespace: person.namespace, type: 'merge' }).then(() => undefined, (e: unknown) => e)) as KubeApiError;
    expect(refused).to.be.instanceOf(KubeApiError);
    expect(refused.status).to.equal(422);
    expect(refused.body.details?.causes).to.deep.equal([
      { reason: 'FieldValueInvalid', field: 'spec.schedule.maxRunning', message: 'Your administrator lets a workspace run at most 8h at a time: choose 8h or less.' },
    ]);
  });

  it('refuses a time zone Intl does not know, written past REST with a client of the cluster', async () => {
    const direct: KubeObject = { apiVersion: RESOURCES.workspace.apiVersion, kind: 'Workspace', metadata: { name: 'zone', namespace: person.namespace }, spec: { imageRef: { name: image }, storage: '1Gi', running: false, schedule: { timeZone: 'Europe/Berlln', autostart: { time: '08:30' } } } };
    const refused = (await admin.create(RESOURCES.workspace, direct, person.namespace).then(() => undefined, (e: unknown) => e)) as KubeApiError;
    expect(refused).to.be.instanceOf(KubeApiError);
    expect(refused.status).to.equal(422);
    expect(refused.body.message).to.equal('admission webhook "vworkspace.den.dev" denied the request: spec.schedule.timeZone: "Europe/Berlln" is not an IANA time zone (such as Europe/Berlin, America/New_York or UTC)');
    expect(await absent('zone')).to.equal(true);
  });

  it("refuses an administrator's default autostop in a zone Intl does not know", async () => {
    const refused = (await admin.patch(RESOURCES.userSpace, person.name, { spec: { schedules: { defaultAutostop: { time: '20:00', timeZone: 'Moon/Base' } } } }, { type: 'merge' }).then(() => undefined, (e: unknown) => e)) as KubeApiError;
    expect(refused).to.be.instanceOf(KubeApiError);
    expect(refused.body.message).to.equal('admission webhook "vuserspace.den.dev" denied the request: spec.schedules.defaultAutostop.timeZone: "Moon/Base" is not an IANA time zone (such as Europe/Berlin, America/New_York or UTC)');
  });

  it("lets an administrator set the space's limit and defaults through REST, and refuses the person setting their own (the webhook's admin-only rule)", async () => {
    const shared = await sharedRealKube();
    const chief = await addPerson(shared.den.kubeconfig, uniqueName('chief'), { admin: true });
    try {
      const chiefSession = await rest.login(chief.name, chief.password);
      const set = await rest.call('PATCH', `/admin/schedules/${person.name}`, { body: { max_running_limit: '6h', default_max_running: '4h', default_autostop: 'weekdays 19:00', time_zone: 'Europe/Berlin' }, as: { session: chiefSession } });
      expect(set.status, JSON.stringify(set.body)).to.equal(200);
      expect(set.body).to.deep.equal({ max_running_limit: '6h', default_max_running: '4h', default_autostop: 'weekdays 19:00', time_zone: 'Europe/Berlin' });
      const above = await rest.call('PATCH', `/admin/schedules/${person.name}`, { body: { default_max_running: '7h' }, as: { session: chiefSession } });
      expect(above.status).to.equal(400);
      expect(above.body).to.deep.equal({ error: 'admission webhook "vuserspace.den.dev" denied the request: spec.schedules.defaultMaxRunning: 7h is above spec.schedules.maxRunningLimit 6h' });
      const own = await rest.call('PATCH', `/admin/schedules/${person.name}`, { body: { max_running_limit: '100h' }, as: { session } });
      expect(own.status).to.equal(400);
      expect((own.body as { error: string }).error).to.match(/^admission webhook "vuserspace.den.dev" denied the request: spec.schedules.maxRunningLimit: only an administrator may change this field/);
      const kept = (await admin.get<KubeObject & { spec: { schedules?: unknown } }>(RESOURCES.userSpace, person.name)).spec.schedules;
      expect(kept).to.deep.equal({ maxRunningLimit: '6h', defaultMaxRunning: '4h', defaultAutostop: { days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], time: '19:00', timeZone: 'Europe/Berlin' } });
    } finally {
      await removePerson(admin, chief.name);
      await admin.patch(RESOURCES.userSpace, person.name, { spec: { schedules: { maxRunningLimit: '8h', defaultMaxRunning: null, defaultAutostop: null } } }, { type: 'merge' });
    }
  });
});
