import { expect } from 'chai';
import { RESOURCES } from '../../../kube/resources.js';
import { ApiTestEnv } from './support.js';

describe('PATCH /admin/schedules/{name}: a space\'s schedule limit and defaults (docs/schedules.md)', () => {
  let env: ApiTestEnv;
  let alice: string;
  let carol: string;

  beforeEach(async () => {
    env = await new ApiTestEnv().start();
    alice = await env.person('alice');
    carol = await env.person('carol', { role: 'admin' });
  });
  afterEach(() => env.close());

  const schedulesOf = (name: string): unknown => (env.api.object(RESOURCES.userSpace, name) as { spec: { schedules?: unknown } }).spec.schedules;

  it('an administrator sets them in words; the UserSpace holds them as the CRD spells them', async () => {
    const res = await env.request('PATCH', '/admin/schedules/alice', { token: carol, body: { max_running_limit: '12h', default_max_running: '8h', default_autostop: 'weekdays 19:00', time_zone: 'Europe/Berlin' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ max_running_limit: '12h', default_max_running: '8h', default_autostop: 'weekdays 19:00', time_zone: 'Europe/Berlin' });
    expect(schedulesOf('alice')).to.deep.equal({ maxRunningLimit: '12h', defaultMaxRunning: '8h', defaultAutostop: { days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], time: '19:00', timeZone: 'Europe/Berlin' } });
  });

  it('keeps a field left out, removes one sent empty, and removing the default autostop removes its zone with it', async () => {
    await env.request('PATCH', '/admin/schedules/alice', { token: carol, body: { max_running_limit: '12h', default_autostop: 'Mon,Wed 18:30', time_zone: 'UTC' } });
    const everyDay = await env.request('PATCH', '/admin/schedules/alice', { token: carol, body: { default_autostop: '22:00' } });
    expect(everyDay.body).to.deep.equal({ max_running_limit: '12h', default_max_running: null, default_autostop: 'daily 22:00', time_zone: 'UTC' });
    expect(schedulesOf('alice')).to.deep.equal({ maxRunningLimit: '12h', defaultAutostop: { time: '22:00', timeZone: 'UTC' } });
    const cleared = await env.request('PATCH', '/admin/schedules/alice', { token: carol, body: { max_running_limit: '', default_autostop: '' } });
    expect(cleared.status).to.equal(200);
    expect(cleared.body).to.deep.equal({ max_running_limit: null, default_max_running: null, default_autostop: null, time_zone: null });
    expect(schedulesOf('alice')).to.deep.equal({});
  });

  it('answers 400 naming the field and changes nothing', async () => {
    const before = env.api.resourceVersion;
    for (const [body, message] of [
      [{ max_running_limit: '5m' }, 'max_running_limit must be a duration of at least 10m, such as 8h or 90m'],
      [{ default_max_running: 'all day' }, 'default_max_running must be a duration of at least 10m'],
      [{ default_autostop: 'workdays 19:00' }, 'default_autostop: "workdays" is not a day'],
      [{ default_autostop: 'weekdays 7pm' }, 'default_autostop: "weekdays 7pm" does not end with a time of day as HH:MM'],
      [{ time_zone: 'Europe/Berlln' }, 'time_zone must be an IANA time zone'],
      [{ max_running: '8h' }, 'unknown field max_running'],
    ] as const) {
      const res = await env.request('PATCH', '/admin/schedules/alice', { token: carol, body });
      expect(res.status, message).to.equal(400);
      expect(res.body.error).to.contain(message);
    }
    expect(env.api.resourceVersion).to.equal(before);
  });

  it('answers 400 in the webhook\'s words to a default above the limit and to a default autostop without a zone, nothing changed', async () => {
    const before = env.api.resourceVersion;
    const above = await env.request('PATCH', '/admin/schedules/alice', { token: carol, body: { max_running_limit: '8h', default_max_running: '10h' } });
    expect(above.status).to.equal(400);
    expect(above.body.error).to.equal('admission webhook "vuserspace.den.dev" denied the request: spec.schedules.defaultMaxRunning: 10h is above spec.schedules.maxRunningLimit 8h');
    const zoneless = await env.request('PATCH', '/admin/schedules/alice', { token: carol, body: { default_autostop: 'daily 20:00' } });
    expect(zoneless.status).to.equal(400);
    expect(zoneless.body.error).to.contain('spec.schedules.defaultAutostop.timeZone: is required with an autostart or autostop');
    expect(env.api.resourceVersion).to.equal(before);
  });

  it('refuses a person setting their own space\'s limit (the webhook\'s admin-only rule, 400) and another\'s (RBAC, 403); 404 for a missing UserSpace', async () => {
    const before = env.api.resourceVersion;
    const own = await env.request('PATCH', '/admin/schedules/alice', { token: alice, body: { max_running_limit: '100h' } });
    expect(own.status).to.equal(400);
    expect(own.body.error).to.equal('admission webhook "vuserspace.den.dev" denied the request: spec.schedules: only an administrator may change this field (it is unset, the update asks for {"maxRunningLimit":"100h"}); system:serviceaccount:svc-alice:session may change spec.sshAuthorizedKeys only');
    const other = await env.request('PATCH', '/admin/schedules/carol', { token: alice, body: { max_running_limit: '1h' } });
    expect(other.status).to.equal(403);
    expect(other.body.error).to.equal('userspaces.den.dev "carol" is forbidden: User "system:serviceaccount:svc-alice:session" cannot patch resource "userspaces" in API group "den.dev" at the cluster scope');
    expect(env.api.resourceVersion).to.equal(before);
    expect((await env.request('PATCH', '/admin/schedules/nobody', { token: carol, body: { max_running_limit: '1h' } })).status).to.equal(404);
  });
});
