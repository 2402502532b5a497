// Registry sync through `den manager` against the in-process fake API server, with the real AWS
// SDK listing the loopback ECR fake (pointed at it by AWS_ENDPOINT_URL_ECR / _STS).
import { expect } from 'chai';
import { Manager } from '../../../hooks/manager.js';
import { entryName } from '../../../hooks/registry/names.js';
import { defaultProviders } from '../../../hooks/registry/providers.js';
import type { RegistrySyncConfig } from '../../../hooks/registry/controller.js';
import { denCrds } from '../../../contract/index.js';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { FakeApiServer } from '../../support/fake-apiserver.js';
import { fakeAwsEnvironment, FakeEcr, useAwsEnvironment } from '../../support/fake-ecr.js';
import { eventually } from '../support/eventually.js';

type Obj = KubeObject & { status?: Record<string, any>; spec?: Record<string, any> };

const ACCOUNT = '111122223333';
const OTHER = '444455556666';
const URI = `${ACCOUNT}.dkr.ecr.eu-west-1.amazonaws.com`;
const T0 = 1_750_000_000;

function registry(name: string, sync: Record<string, unknown> = {}, cloud: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'ImageRegistry',
    metadata: { name },
    spec: { provider: 'cloud-registry', cloud: { region: 'eu-west-1', ...cloud }, sync, ...extra },
  };
}

describe('registry sync in den manager (SPEC 1.6, 3.3, 3.4)', function () {
  this.timeout(20_000);
  let api: FakeApiServer;
  let ecr: FakeEcr;
  let restore: () => void;
  let stop: AbortController | undefined;
  let running: Promise<void> | undefined;

  function startManager(registrySync: RegistrySyncConfig = {}): Manager {
    const manager = new Manager(api.client(), {
      config: {
        namespace: 'svc-system',
        gatewayHost: 'den.example.com',
        idleStop: false,
        gpuResource: 'nvidia.com/gpu',
        relistIntervalMs: 60_000,
        registrySync: { providers: defaultProviders({ cloudRegistry: { maxAttempts: 1 } }), retryBaseMs: 50, throttledRetryBaseMs: 50, ...registrySync },
      },
      leaderElect: false,
      log: () => undefined,
      controller: { backoff: { baseMs: 20, maxMs: 500, jitter: 0.1 } },
    });
    stop = new AbortController();
    running = manager.run(stop.signal);
    return manager;
  }

  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.installCrds(denCrds().map((crd) => ({ ...crd })));
    ecr = await new FakeEcr({ accounts: { AKIDDENTEST: ACCOUNT } }).start();
    restore = useAwsEnvironment(fakeAwsEnvironment(ecr.url, 'AKIDDENTEST'));
    ecr.putRepository(ACCOUNT, 'team/app', [{ tags: ['1.0'], pushedAt: T0 }, { tags: ['1.1'], pushedAt: T0 + 60 }]);
    ecr.putRepository(ACCOUNT, 'base/ubuntu', [{ tags: ['24.04'], pushedAt: T0 }, { tags: [], pushedAt: T0 + 120 }]);
  });

  afterEach(async () => {
    stop?.abort();
    await running;
    stop = undefined;
    restore();
    await ecr.stop();
    await api.close();
  });

  const get = (name: string) => api.object<Obj>(RESOURCES.imageRegistry, name);
  const entries = (registryName?: string) =>
    api.objects<Obj>(RESOURCES.workspaceImage).filter((i) => registryName === undefined || i.metadata?.labels?.['den.dev/image-registry'] === registryName);
  const condition = (name: string, type: string) => (get(name)?.status?.conditions ?? []).find((c: { type: string }) => c.type === type);
  const ready = (name: string, images?: number) =>
    eventually(() => condition(name, 'Ready')?.status === 'True' && (images === undefined || get(name)?.status?.images === images) && get(name), `ImageRegistry ${name} Ready${images === undefined ? '' : ` with ${images} images`}`);
  const forceSync = (name: string, value: string) => api.client().patch(RESOURCES.imageRegistry, name, { metadata: { annotations: { 'den.dev/force-sync': value } } });

  it('creates owned catalog entries with pullable references, the label, the pull Secret, names and tags, and says Ready', async () => {
    startManager();
    await api.client().create(RESOURCES.imageRegistry, registry('ecr', {}, {}, { imagePullSecretRef: { name: 'ecr-pull' } }));
    const reg = await ready('ecr', 2);
    const byImage = Object.fromEntries(entries('ecr').map((e) => [e.spec?.image, e]));
    expect(Object.keys(byImage).sort()).to.deep.equal([`${URI}/base/ubuntu:24.04`, `${URI}/team/app:1.1`]);
    const app = byImage[`${URI}/team/app:1.1`]!;
    expect(app.metadata?.name).to.equal(entryName('ecr', 'team/app', '1.1'));
    expect(app.metadata?.ownerReferences).to.deep.equal([{ apiVersion: 'den.dev/v1alpha1', kind: 'ImageRegistry', name: 'ecr', uid: reg.metadata?.uid, controller: true, blockOwnerDeletion: true }]);
    expect(app.spec).to.deep.include({ displayName: 'team/app:1.1', tags: ['team', 'app', '1.1'], imagePullSecretRef: { name: 'ecr-pull' }, deprecated: false, shell: '/bin/bash' });
    expect(reg.status?.lastSyncTime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(reg.status?.observedGeneration).to.equal(reg.metadata?.generation);
    expect(condition('ecr', 'Degraded')).to.include({ status: 'False', reason: 'Synced' });
  });

  it('follows a moved tag on force-sync, keeping the old entry while prune is off and deleting it once prune is on', async () => {
    startManager();
    await api.client().create(RESOURCES.imageRegistry, registry('ecr', { include: ['^team/'] }));
    await ready('ecr', 1);
    ecr.pushImage(ACCOUNT, 'team/app', ['1.2'], T0 + 600);
    await forceSync('ecr', 'one');
    await eventually(() => entries('ecr').some((e) => e.spec?.image === `${URI}/team/app:1.2`), 'the entry of the new tag');
    await ready('ecr', 2);
    expect(entries('ecr').map((e) => e.spec?.image).sort()).to.deep.equal([`${URI}/team/app:1.1`, `${URI}/team/app:1.2`]);
    await api.client().patch(RESOURCES.imageRegistry, 'ecr', { spec: { sync: { prune: true } } });
    await eventually(() => entries('ecr').length === 1 && entries('ecr')[0]!.spec?.image === `${URI}/team/app:1.2`, 'the old entry pruned');
    await ready('ecr', 1);
  });

  it('keeps fields an administrator set by hand on an entry through resyncs that rewrite it', async () => {
    startManager();
    await api.client().create(RESOURCES.imageRegistry, registry('ecr', { include: ['^team/'] }));
    await ready('ecr', 1);
    const name = entryName('ecr', 'team/app', '1.1');
    await api.client().patch(RESOURCES.workspaceImage, name, { spec: { deprecated: true, description: 'use 2.x', icon: 'https://example.com/app.svg' } });
    await api.client().patch(RESOURCES.imageRegistry, 'ecr', { spec: { imagePullSecretRef: { name: 'team-pull' } } });
    await eventually(() => api.object<Obj>(RESOURCES.workspaceImage, name)?.spec?.imagePullSecretRef?.name === 'team-pull', 'the entry rewritten with the new pull Secret');
    await forceSync('ecr', 'again');
    await ready('ecr', 1);
    expect(api.object<Obj>(RESOURCES.workspaceImage, name)!.spec).to.deep.include({ deprecated: true, description: 'use 2.x', icon: 'https://example.com/app.svg', image: `${URI}/team/app:1.1` });
  });

  it('lets two registries coexist, each syncing and deleting only its own entries, and leaves hand-made entries alone', async () => {
    ecr.putRepository(OTHER, 'shared/base', [{ tags: ['1'], pushedAt: T0 }]);
    await api.client().create(RESOURCES.workspaceImage, { apiVersion: 'den.dev/v1alpha1', kind: 'WorkspaceImage', metadata: { name: 'python' }, spec: { displayName: 'Python', image: 'python:3.12' } });
    startManager();
    await api.client().create(RESOURCES.imageRegistry, registry('own', { prune: true }));
    await api.client().create(RESOURCES.imageRegistry, registry('other', { prune: true }, { registryId: OTHER }));
    await ready('own', 2);
    await ready('other', 1);
    expect(entries('other').map((e) => e.spec?.image)).to.deep.equal([`${OTHER}.dkr.ecr.eu-west-1.amazonaws.com/shared/base:1`]);
    ecr.deleteRepository(OTHER, 'shared/base');
    await forceSync('other', 'gone');
    await ready('other', 0);
    expect(entries('own')).to.have.length(2);
    await api.client().delete(RESOURCES.imageRegistry, 'own');
    await eventually(() => entries('own').length === 0, 'the entries of the deleted registry collected');
    expect(api.object(RESOURCES.workspaceImage, 'python')).not.to.equal(undefined);
    expect(get('other')?.status?.images).to.equal(0);
  });

  it('lists again at once on force-sync and on a spec change, and writes no entry when nothing changed', async () => {
    startManager();
    await api.client().create(RESOURCES.imageRegistry, registry('ecr'));
    const first = await ready('ecr', 2);
    const versions = () => entries('ecr').map((e) => `${e.metadata?.name}@${e.metadata?.resourceVersion}`).sort();
    const before = versions();
    const listings = () => ecr.callsOf('DescribeRepositories').length;
    expect(listings()).to.equal(1);
    await forceSync('ecr', 'now');
    await eventually(() => listings() === 2 && get('ecr')?.status?.lastSyncTime !== undefined && get('ecr'), 'a second listing');
    await api.client().patch(RESOURCES.imageRegistry, 'ecr', { spec: { sync: { intervalSeconds: 600 } } });
    await eventually(() => listings() === 3 && get('ecr')?.status?.observedGeneration === (first.metadata?.generation ?? 0) + 1, 'a listing for the new generation');
    await ready('ecr', 2);
    expect(versions()).to.deep.equal(before);
  });

  it('lists again every spec.sync.intervalSeconds', async () => {
    startManager({ secondMs: 5 });
    await api.client().create(RESOURCES.imageRegistry, registry('ecr', { intervalSeconds: 60 }));
    await ready('ecr', 2);
    await eventually(() => ecr.callsOf('DescribeRepositories').length >= 3, 'two more listings on the interval (60 × 5 ms)', 5000);
  });

  it('says Degraded with the reason on a failed listing and keeps the entries, images and lastSyncTime it had', async () => {
    startManager({ retryBaseMs: 60_000 });
    await api.client().create(RESOURCES.imageRegistry, registry('ecr', { prune: true }));
    const good = await ready('ecr', 2);
    const owned = entries('ecr').map((e) => e.metadata?.name).sort();
    // lastSyncTime has whole seconds: a later second shows whether the failed sync moved it.
    const syncedAt = Date.parse(good.status?.lastSyncTime as string);
    await eventually(() => Math.floor(Date.now() / 1000) * 1000 > syncedAt, 'a second later than lastSyncTime', 3000);
    ecr.fail({ operation: 'DescribeRepositories', type: 'AccessDeniedException', message: 'User: arn:aws:iam::111122223333:user/den is not authorized to perform: ecr:DescribeRepositories', times: 1 });
    await forceSync('ecr', 'denied');
    await eventually(() => condition('ecr', 'Degraded')?.status === 'True', 'Degraded');
    expect(condition('ecr', 'Degraded')).to.include({ reason: 'AccessDenied' });
    expect(condition('ecr', 'Degraded').message).to.contain('not authorized to perform: ecr:DescribeRepositories');
    expect(condition('ecr', 'Ready')).to.include({ status: 'False', reason: 'AccessDenied' });
    expect(get('ecr')?.status).to.include({ images: 2, lastSyncTime: good.status?.lastSyncTime });
    expect(entries('ecr').map((e) => e.metadata?.name).sort()).to.deep.equal(owned);
    await forceSync('ecr', 'allowed');
    await ready('ecr', 2);
  });

  it('retries a throttled listing after growing delays, not at once', async () => {
    startManager({ throttledRetryBaseMs: 100, retryBaseMs: 5 });
    ecr.fail({ operation: 'DescribeRepositories', type: 'ThrottlingException', message: 'Rate exceeded', times: 1000 });
    await api.client().create(RESOURCES.imageRegistry, registry('ecr'));
    await eventually(() => condition('ecr', 'Degraded')?.reason === 'Throttled', 'Degraded Throttled');
    const calls = await eventually(() => ecr.callsOf('DescribeRepositories').length >= 4 && ecr.callsOf('DescribeRepositories'), 'four listings');
    // Timers fire late on a busy machine, never early: each gap is at least 100, 200, 400 ms (the plain base would make 5, 10, 20).
    const gaps = calls.slice(1, 4).map((call, i) => call.at - calls[i]!.at);
    expect(gaps.map((gap, i) => gap >= 100 * 2 ** i), `gaps of ${gaps.join(', ')} ms`).to.deep.equal([true, true, true]);
    expect(get('ecr')?.status).not.to.have.property('lastSyncTime');
  });

  it('never lets a slow registry delay another, and abandons a listing past its timeout as TimedOut', async () => {
    ecr.putRepository(OTHER, 'shared/base', [{ tags: ['1'], pushedAt: T0 }]);
    ecr.delays.set(OTHER, 3000);
    startManager({ listingTimeoutMs: 1500, retryBaseMs: 60_000 });
    await api.client().create(RESOURCES.imageRegistry, registry('slow', {}, { registryId: OTHER }));
    await api.client().create(RESOURCES.imageRegistry, registry('quick'));
    await ready('quick', 2);
    expect(get('slow')?.status, 'the slow registry is still listing').to.equal(undefined);
    await eventually(() => condition('slow', 'Degraded')?.reason === 'TimedOut', 'slow TimedOut', 5000);
  });

  it('reports a pattern RE2 refuses as InvalidPattern without calling the registry', async () => {
    startManager();
    await api.client().create(RESOURCES.imageRegistry, registry('ecr', { include: ['(unclosed'] }));
    await eventually(() => condition('ecr', 'Degraded')?.reason === 'InvalidPattern', 'Degraded InvalidPattern');
    expect(condition('ecr', 'Degraded').message).to.contain('spec.sync.include[0]');
    expect(ecr.calls).to.deep.equal([]);
  });
});
