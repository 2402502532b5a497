import { expect } from 'chai';
import { entryName } from '../../../hooks/registry/names.js';
import { syncImageRegistry, type ListingView, type RegistryHookConfig, type RegistryRelated } from '../../../hooks/registry/sync.js';
import type { ImageRegistry, ImageRegistrySpec, RegistryListing } from '../../../hooks/registry/types.js';
import type { HookInput } from '../../../hooks/loop/types.js';
import type { KubeObject } from '../../../kube/client.js';

const URI = '111122223333.dkr.ecr.eu-west-1.amazonaws.com';
const NOW = new Date('2026-11-22T12:00:00Z');
const LISTED_AT = new Date('2026-11-22T11:59:58.500Z');
const EARLIER = '2026-11-22T11:00:00Z';

function registry(sync: ImageRegistrySpec['sync'] = {}, extra: Partial<ImageRegistry> = {}): ImageRegistry {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'ImageRegistry',
    metadata: { name: 'ecr', uid: 'uid-ecr', generation: 2 },
    spec: { provider: 'cloud-registry', cloud: { region: 'eu-west-1' }, sync, imagePullSecretRef: { name: 'ecr-pull' } },
    ...extra,
  };
}

const listing: RegistryListing = {
  repositories: [
    { name: 'team/app', uri: `${URI}/team/app`, images: [{ tags: ['1.0'], pushedAt: 1 }, { tags: ['1.1'], pushedAt: 2 }] },
    { name: 'base/ubuntu', uri: `${URI}/base/ubuntu`, images: [{ tags: ['24.04'], pushedAt: 3 }] },
  ],
};

function observedEntry(repository: string, tag: string, extra: Record<string, unknown> = {}): KubeObject {
  const name = entryName('ecr', repository, tag);
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'WorkspaceImage',
    metadata: { name, uid: `uid-${name}`, resourceVersion: '7', labels: { 'den.dev/image-registry': 'ecr' }, ownerReferences: [{ apiVersion: 'den.dev/v1alpha1', kind: 'ImageRegistry', name: 'ecr', uid: 'uid-ecr', controller: true }] },
    spec: { displayName: `${repository}:${tag}`, image: `${URI}/${repository}:${tag}`, ...extra },
  };
}

function input(parent: ImageRegistry, view: ListingView, observed: KubeObject[] = []): HookInput<RegistryHookConfig, RegistryRelated> {
  const children: Record<string, Record<string, KubeObject>> = { 'WorkspaceImage.den.dev/v1alpha1': {} };
  for (const o of observed) children['WorkspaceImage.den.dev/v1alpha1']![o.metadata!.name!] = o;
  return { parent, children, related: { listing: view }, now: NOW, config: {} };
}

const DUE_AT = new Date('2026-11-22T12:14:58.500Z');
const listed: ListingView = { state: 'listed', listing, at: LISTED_AT, dueAt: DUE_AT };
const goodStatus = {
  images: 4,
  lastSyncTime: EARLIER,
  observedGeneration: 2,
  conditions: [
    { type: 'Ready', status: 'True', reason: 'Synced', message: 'old', lastTransitionTime: EARLIER, observedGeneration: 2 },
    { type: 'Degraded', status: 'False', reason: 'Synced', message: 'old', lastTransitionTime: EARLIER, observedGeneration: 2 },
  ],
};

function condition(status: Record<string, unknown>, type: string): Record<string, unknown> {
  return (status.conditions as Record<string, unknown>[]).find((c) => c.type === type)!;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe('syncImageRegistry (SPEC 1.6, 2.3, 3.3)', () => {
  describe('after a successful listing', () => {
    it('returns one WorkspaceImage per selected image with the fields people see and filter by', () => {
      const out = syncImageRegistry(input(registry(), listed));
      expect(out.children).to.deep.equal([
        {
          apiVersion: 'den.dev/v1alpha1',
          kind: 'WorkspaceImage',
          metadata: { name: entryName('ecr', 'team/app', '1.1'), labels: { 'den.dev/image-registry': 'ecr' } },
          spec: { displayName: 'team/app:1.1', image: `${URI}/team/app:1.1`, tags: ['team', 'app', '1.1'], imagePullSecretRef: { name: 'ecr-pull' } },
        },
        {
          apiVersion: 'den.dev/v1alpha1',
          kind: 'WorkspaceImage',
          metadata: { name: entryName('ecr', 'base/ubuntu', '24.04'), labels: { 'den.dev/image-registry': 'ecr' } },
          spec: { displayName: 'base/ubuntu:24.04', image: `${URI}/base/ubuntu:24.04`, tags: ['base', 'ubuntu', '24.04'], imagePullSecretRef: { name: 'ecr-pull' } },
        },
      ]);
    });

    it('never sends the fields an administrator may set by hand', () => {
      for (const child of syncImageRegistry(input(registry(), listed)).children) {
        expect(child.spec).to.have.all.keys('displayName', 'image', 'tags', 'imagePullSecretRef');
      }
    });

    it('says Ready with the number of entries and the time of the listing', () => {
      const { status } = syncImageRegistry(input(registry(), listed));
      expect(status.images).to.equal(2);
      expect(status.lastSyncTime).to.equal('2026-11-22T11:59:58Z');
      expect(condition(status, 'Ready')).to.include({ status: 'True', reason: 'Synced', message: '2 catalog entries from 2 repositories' });
      expect(condition(status, 'Degraded')).to.include({ status: 'False', reason: 'Synced' });
    });

    it('keeps an entry whose image is gone, as observed, while prune is off', () => {
      const gone = observedEntry('old/thing', '1');
      const out = syncImageRegistry(input(registry(), listed, [gone]));
      expect(out.children).to.include(gone);
      expect(out.status.images).to.equal(3);
      expect(condition(out.status, 'Ready').message).to.contain('1 kept whose image is gone');
    });

    it('leaves an entry whose image is gone out with prune on, so the loop deletes it', () => {
      const gone = observedEntry('old/thing', '1');
      const out = syncImageRegistry(input(registry({ prune: true }), listed, [gone]));
      expect(out.children.map((c) => c.metadata?.name)).not.to.include(gone.metadata!.name);
      expect(out.status.images).to.equal(2);
    });

    it('drops the pull Secret from the entries when the registry has none', () => {
      const parent = registry();
      delete parent.spec!.imagePullSecretRef;
      for (const child of syncImageRegistry(input(parent, listed)).children) expect(child.spec).not.to.have.property('imagePullSecretRef');
    });

    it('reports entries that could not be written as Degraded, counting what it owns', () => {
      const out = syncImageRegistry({ ...input(registry(), listed, [observedEntry('team/app', '1.1')]), errors: [{ child: 'WorkspaceImage/x', message: 'denied' }] });
      expect(out.status.images).to.equal(1);
      expect(condition(out.status, 'Degraded')).to.include({ status: 'True', reason: 'EntriesNotWritten' });
      expect(condition(out.status, 'Degraded').message).to.contain('WorkspaceImage/x: denied');
    });

    it('keeps lastTransitionTime while a condition keeps its status', () => {
      const { status } = syncImageRegistry(input(registry({}, {}), listed));
      const again = syncImageRegistry(input({ ...registry(), status: goodStatus }, listed));
      expect(condition(again.status, 'Ready').lastTransitionTime).to.equal(EARLIER);
      expect(condition(status, 'Ready').lastTransitionTime).to.equal('2026-11-22T12:00:00Z');
    });
  });

  describe('when the listing failed', () => {
    const failed: ListingView = { state: 'failed', reason: 'Throttled', message: 'the registry throttled the listing: Rate exceeded', at: NOW, dueAt: new Date(NOW.getTime() + 60_000) };

    it('keeps every owned entry as observed and images and lastSyncTime as they were (SPEC 1.6)', () => {
      const owned = [observedEntry('team/app', '1.0'), observedEntry('old/thing', '1')];
      const out = syncImageRegistry(input({ ...registry({ prune: true }), status: goodStatus }, failed, owned));
      expect(out.children).to.deep.equal(owned);
      expect(out.status).to.include({ images: 4, lastSyncTime: EARLIER });
      expect(condition(out.status, 'Ready')).to.include({ status: 'False', reason: 'Throttled', message: 'the registry throttled the listing: Rate exceeded' });
      expect(condition(out.status, 'Degraded')).to.include({ status: 'True', reason: 'Throttled' });
    });

    it('says InvalidPattern naming the field when a pattern got past admission', () => {
      const out = syncImageRegistry(input({ ...registry({ include: ['(bad'] }), status: goodStatus }, listed, [observedEntry('team/app', '1.0')]));
      expect(out.children).to.have.length(1);
      expect(condition(out.status, 'Degraded')).to.include({ status: 'True', reason: 'InvalidPattern' });
      expect(condition(out.status, 'Degraded').message).to.contain('spec.sync.include[0]');
      expect(out.status).to.include({ images: 4, lastSyncTime: EARLIER });
    });
  });

  describe('asks the loop to run it again when the next listing is due', () => {
    it('after the interval once listed', () => {
      expect(syncImageRegistry(input(registry(), listed)).resyncAfterMs).to.equal(DUE_AT.getTime() - NOW.getTime());
    });

    it('after the retry delay once failed, and at the latest at once when overdue', () => {
      const failed: ListingView = { state: 'failed', reason: 'AccessDenied', message: 'no', at: NOW, dueAt: new Date(NOW.getTime() + 15_000) };
      expect(syncImageRegistry(input(registry(), failed)).resyncAfterMs).to.equal(15_000);
      expect(syncImageRegistry(input(registry(), { ...listed, dueAt: new Date(NOW.getTime() - 5000) })).resyncAfterMs).to.equal(1);
    });
  });

  it('does not modify its input', () => {
    const frozen = deepFreeze(input({ ...registry(), status: goodStatus }, listed, [observedEntry('old/thing', '1')]));
    expect(() => syncImageRegistry(frozen)).not.to.throw();
  });

  it('gives the same output for the same input', () => {
    const a = syncImageRegistry(input(registry({ tags: { limit: 5 } }), listed));
    const b = syncImageRegistry(input(registry({ tags: { limit: 5 } }), listed));
    expect(a).to.deep.equal(b);
  });
});
