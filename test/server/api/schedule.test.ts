import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import { ApiTestEnv, KEY } from './support.js';

const CREATE = { name: 'dev', image: 'python', storage: '10Gi', ssh_public_key: KEY };

describe('REST schedules (docs/schedules.md)', () => {
  let env: ApiTestEnv;
  let alice: string;

  beforeEach(async () => {
    env = await new ApiTestEnv().start();
    alice = await env.person('alice');
  });
  afterEach(() => env.close());

  const stored = () => env.api.object<any>(RESOURCES.workspace, 'dev', 'svc-alice');

  it('POST /workspaces writes schedule in words as spec.schedule', async () => {
    const res = await env.request('POST', '/workspaces', { token: alice, body: { ...CREATE, schedule: { autostart: 'weekdays 08:30', autostop: '19:00', max_running: '10h', time_zone: 'Europe/Berlin' } } });
    expect(res.status).to.equal(201);
    expect(stored().spec.schedule).to.deep.equal({ timeZone: 'Europe/Berlin', autostart: { days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], time: '08:30' }, autostop: { time: '19:00' }, maxRunning: '10h' });
  });

  it('PATCH /workspaces/{name}/schedule sets what it names, keeps what it does not, and removes what is empty', async () => {
    await env.request('POST', '/workspaces', { token: alice, body: { ...CREATE, schedule: { autostart: 'weekdays 08:30', autostop: '19:00', time_zone: 'Europe/Berlin' } } });
    const changed = await env.request('PATCH', '/workspaces/dev/schedule', { token: alice, body: { autostart: 'daily 07:00', max_running: '8h' } });
    expect(changed.status).to.equal(200);
    expect(changed.body.spec.schedule).to.deep.equal({ timeZone: 'Europe/Berlin', autostart: { time: '07:00' }, autostop: { time: '19:00' }, maxRunning: '8h' });
    const cleared = await env.request('PATCH', '/workspaces/dev/schedule', { token: alice, body: { autostart: '', autostop: '', max_running: '', time_zone: '' } });
    expect(cleared.status).to.equal(200);
    expect(stored().spec.schedule ?? {}).to.deep.equal({});
  });

  it('answers 400 naming the field for a time, a zone or a duration it cannot read', async () => {
    await env.request('POST', '/workspaces', { token: alice, body: CREATE });
    const time = await env.request('PATCH', '/workspaces/dev/schedule', { token: alice, body: { autostart: 'weekdays 8.30' } });
    expect(time.status).to.equal(400);
    expect(time.body.error).to.equal('autostart: "weekdays 8.30" does not end with a time of day as HH:MM (24 hours), such as "weekdays 08:30", "daily 19:00", "Mon,Wed,Fri 07:45" or "18:00"');
    const zone = await env.request('PATCH', '/workspaces/dev/schedule', { token: alice, body: { time_zone: 'CEST' } });
    expect(zone.status).to.equal(400);
    expect(zone.body.error).to.equal('time_zone must be an IANA time zone such as Europe/Berlin, America/New_York or UTC');
    const created = await env.request('POST', '/workspaces', { token: alice, body: { ...CREATE, name: 'other', schedule: { max_running: '5m' } } });
    expect(created.status).to.equal(400);
    expect(created.body.error).to.equal('max_running must be a duration of at least 10m, such as 8h or 90m');
  });
});
