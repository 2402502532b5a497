// The manager's schedules and dormancy against the fake API server: the real loop, its
// resourceVersion-guarded writes, its timers, two managers at once, and a clock the test moves.
import { expect } from 'chai';
import type { Manager, ManagerOptions } from '../../hooks/manager.js';
import type { KubeObject } from '../../kube/client.js';
import { RESOURCES } from '../../kube/resources.js';
import { eventually } from './support/eventually.js';
import { workspace, workspaceImage } from './workspace/inputs.js';
import { managerWorld, type Obj } from './support/manager-world.js';

const DAY = 86_400_000;
type EventObj = Obj & { reason: string; message: string; count: number; involvedObject: { kind: string; name: string } };

describe('den manager: schedules and dormancy', () => {
  const world = managerWorld();
  const { startManager, get, userNamespaceReady } = world;
  /** The managers' clock: real time plus what the test adds. */
  let ahead = 0;
  const clock = () => new Date(Date.now() + ahead);
  const events = (reason: string) => world.api.objects<EventObj>(RESOURCES.event, 'svc-alice').filter((e) => e.reason === reason);
  const startedCount = () => events('Started').reduce((sum, e) => sum + (e.count ?? 1), 0);

  function options(extra: Partial<ManagerOptions['config']> = {}, leaderElect = false): Partial<ManagerOptions> {
    return {
      config: { namespace: 'svc-system', gatewayHost: 'den.example.com', gpuResource: 'nvidia.com/gpu', relistIntervalMs: 60_000, idleStop: false, ...extra },
      controller: { backoff: { baseMs: 20, maxMs: 500, jitter: 0.1 }, clock },
      leaderElect,
    };
  }

  async function createWorkspace(spec: Record<string, unknown>): Promise<void> {
    const image = workspaceImage();
    world.api.seed({ ...image, metadata: { name: image.metadata!.name } });
    const ws = workspace(spec);
    await world.api.client().create(RESOURCES.workspace, { apiVersion: ws.apiVersion, kind: ws.kind, metadata: { name: 'alice-dev', namespace: 'svc-alice' }, spec: ws.spec } as KubeObject, 'svc-alice');
  }

  /** The managers' clock set a few seconds before the next whole minute; that minute as HH:MM in UTC. */
  function minuteAhead(seconds: number): string {
    const now = Date.now();
    const next = Math.ceil((now + 1000) / 60_000) * 60_000;
    ahead = next - seconds * 1000 - now;
    return new Date(next).toISOString().slice(11, 16);
  }

  /** Until one manager holds the lead. */
  async function leaderOf(managers: Manager[]): Promise<number> {
    const found = await eventually(() => {
      const i = managers.findIndex((m) => m.leading);
      return i >= 0 ? i + 1 : undefined;
    }, 'a leader');
    return found - 1;
  }

  beforeEach(() => {
    ahead = 0;
  });

  it('starts a workspace at its autostart exactly once, though two managers reconcile it at the same moment (no leader election; each write carries the resourceVersion it read)', async () => {
    startManager(options());
    startManager(options());
    await userNamespaceReady();
    const time = minuteAhead(3);
    await createWorkspace({ running: false, schedule: { timeZone: 'UTC', autostart: { time } } });
    const started = await eventually(() => get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.spec?.running === true && get(RESOURCES.workspace, 'alice-dev', 'svc-alice'), 'started by its schedule', 15_000);
    expect(started.metadata?.annotations?.['den.dev/schedule-autostart']).to.match(new RegExp(`T${time}:00Z$`));
    await eventually(() => startedCount() > 0, 'the Started Event');
    // Both managers had their timer; give the slower one time to act, then count.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(startedCount()).to.equal(1);
    expect(events('Started')[0]!.message).to.equal(`Started by its schedule daily ${time} UTC.`);
  });

  it('starts a workspace at its autostart exactly once across a leader that stops just before it', async () => {
    const managers = [startManager(options({}, true)), startManager(options({}, true))];
    await userNamespaceReady();
    const time = minuteAhead(4);
    await createWorkspace({ running: false, schedule: { timeZone: 'UTC', autostart: { days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'], time } } });
    await eventually(() => get(RESOURCES.statefulSet, 'alice-dev', 'svc-alice'), 'the StatefulSet of the stopped workspace');
    const leader = await leaderOf(managers);
    world.stops[leader]!.stop.abort();
    await world.stops[leader]!.run;
    await eventually(() => get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.spec?.running === true, 'started by the other manager', 15_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(startedCount()).to.equal(1);
  });

  it('records an autostart the cluster refuses and says why in a Warning Event, instead of retrying it', async () => {
    startManager(options());
    await userNamespaceReady();
    const time = minuteAhead(3);
    const refusal = 'admission webhook "vworkspace.den.dev" denied the request: spec.sshAuthorizedKeys: a running workspace (spec.running: true, the default) needs at least one SSH key';
    world.api.failNext('PATCH', /\/workspaces\/alice-dev\?/, 422, { reason: 'Invalid', message: refusal });
    await createWorkspace({ running: false, schedule: { timeZone: 'UTC', autostart: { time } } });
    const [warning] = await eventually(() => events('ScheduleNotStarted').length > 0 && events('ScheduleNotStarted'), 'the Warning Event', 15_000);
    expect(warning!.message).to.equal(`Not started by its schedule daily ${time} UTC: the cluster refused the start; it is tried again at the next occurrence. The cluster said: ${refusal}`);
    const ws = get(RESOURCES.workspace, 'alice-dev', 'svc-alice')!;
    expect(ws.spec?.running).to.equal(false);
    expect(ws.metadata?.annotations?.['den.dev/schedule-autostart']).to.match(new RegExp(`T${time}:00Z$`));
    expect(events('Started')).to.deep.equal([]);
  });

  it('stops a workspace unused for --dormant-stop-days, then deletes it and its home --dormant-delete-days later, recording it', async () => {
    startManager(options({ dormancy: { stopAfterDays: 14, deleteAfterDays: 7, home: 'Delete' } }));
    await userNamespaceReady();
    await createWorkspace({ running: true });
    world.api.seed({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'home-alice-dev-0', namespace: 'svc-alice' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } });
    const policy = await eventually(() => get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.status?.dormancy, 'status.dormancy');
    expect(policy).to.deep.equal({ stopAfterDays: 14, deleteAfterDays: 7, home: 'Delete' });
    // A change to the workspace, so the hook runs with the moved clock (a run the move raced may have acted already).
    const touch = (value: string) => world.api.client().patch(RESOURCES.workspace, 'alice-dev', { metadata: { labels: { touched: value } } }, { namespace: 'svc-alice', type: 'merge' }).catch(() => undefined);

    ahead = 15 * DAY;
    await touch('15');
    await eventually(() => get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.spec?.running === false, 'stopped for dormancy');
    expect(get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.metadata?.annotations?.['den.dev/stopped-by']).to.equal('dormancy');
    const [stopped] = await eventually(() => events('Stopped').length > 0 && events('Stopped'), 'the Stopped Event');
    expect(stopped!.message).to.match(/^Stopped: unused for 15 days .* this installation stops workspaces unused for 14 days\. It will be deleted on/);
    expect(get(RESOURCES.persistentVolumeClaim, 'home-alice-dev-0', 'svc-alice')).to.not.equal(undefined);

    ahead = 22 * DAY;
    await touch('22');
    await eventually(() => !get(RESOURCES.workspace, 'alice-dev', 'svc-alice'), 'deleted for dormancy');
    await eventually(() => !get(RESOURCES.persistentVolumeClaim, 'home-alice-dev-0', 'svc-alice'), 'its home deleted');
    const [deleted] = await eventually(() => events('Deleted').length > 0 && events('Deleted'), 'the Deleted Event');
    expect(deleted!.involvedObject).to.include({ kind: 'Workspace', name: 'alice-dev' });
    expect(deleted!.message).to.match(/^Deleted workspace alice-dev: unused for 22 days .*Its home volume home-alice-dev-0 was deleted with it\.$/);
  });

  it('keeps the home of a dormant workspace it deletes unless the installation says otherwise', async () => {
    startManager(options({ dormancy: { stopAfterDays: 1, deleteAfterDays: 1, home: 'Keep' } }));
    await userNamespaceReady();
    await createWorkspace({ running: false });
    world.api.seed({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'home-alice-dev-0', namespace: 'svc-alice' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } });
    await eventually(() => get(RESOURCES.workspace, 'alice-dev', 'svc-alice')?.status?.dormancy, 'status.dormancy');
    ahead = 3 * DAY;
    await world.api.client().patch(RESOURCES.workspace, 'alice-dev', { metadata: { labels: { touched: 'yes' } } }, { namespace: 'svc-alice', type: 'merge' }).catch(() => undefined);
    await eventually(() => !get(RESOURCES.workspace, 'alice-dev', 'svc-alice'), 'deleted for dormancy');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(get(RESOURCES.persistentVolumeClaim, 'home-alice-dev-0', 'svc-alice')).to.not.equal(undefined);
  });
});
